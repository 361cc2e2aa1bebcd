//! When to start a server again after it exited on its own: soon at first, then less often,
//! and not at all after a run of quick crashes (the worker starts it again by sending to it).

/// The first delay; each quick exit in a row doubles it.
pub const FIRST_DELAY_MS: u64 = 500;
pub const MAX_DELAY_MS: u64 = 30_000;
/// Quick exits in a row after which the bridge stops restarting.
pub const GIVE_UP_AFTER: u32 = 5;
/// A run at least this long counts as healthy: the next exit starts the count again.
pub const HEALTHY_RUN_MS: u64 = 60_000;

#[derive(Debug, Default)]
pub struct Backoff {
    quick_exits: u32,
    started_at_ms: Option<u64>,
}

impl Backoff {
    pub fn started(&mut self, now_ms: u64) {
        self.started_at_ms = Some(now_ms);
    }

    /// The process exited on its own: how long to wait before starting it again, or `None`
    /// to stop trying.
    pub fn exited(&mut self, now_ms: u64) -> Option<u64> {
        let ran_ms = self.started_at_ms.take().map_or(0, |start| now_ms.saturating_sub(start));
        if ran_ms >= HEALTHY_RUN_MS {
            self.quick_exits = 0;
        }
        self.quick_exits = self.quick_exits.saturating_add(1);
        if self.quick_exits > GIVE_UP_AFTER {
            return None;
        }
        let doublings = self.quick_exits - 1;
        Some(FIRST_DELAY_MS.saturating_mul(1 << doublings.min(16)).min(MAX_DELAY_MS))
    }

    /// The worker asked for the server: a fresh series of attempts.
    pub fn reset(&mut self) {
        self.quick_exits = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_crashes_back_off_then_give_up() {
        let mut backoff = Backoff::default();
        let mut now = 0;
        let mut delays = Vec::new();
        for _ in 0..7 {
            backoff.started(now);
            now += 100;
            let delay = backoff.exited(now);
            delays.push(delay);
            now += delay.unwrap_or(0);
        }
        assert_eq!(delays, [Some(500), Some(1000), Some(2000), Some(4000), Some(8000), None, None]);
        backoff.reset();
        backoff.started(now);
        assert_eq!(backoff.exited(now + 1), Some(500));
    }

    #[test]
    fn a_healthy_run_starts_the_count_again() {
        let mut backoff = Backoff::default();
        for _ in 0..4 {
            backoff.started(0);
            backoff.exited(10);
        }
        backoff.started(1_000);
        assert_eq!(backoff.exited(1_000 + HEALTHY_RUN_MS), Some(FIRST_DELAY_MS));
    }

    #[test]
    fn the_delay_is_capped() {
        let mut backoff = Backoff { quick_exits: 0, started_at_ms: None };
        // Without a recorded start the run counts as quick.
        let delays: Vec<_> = (0..GIVE_UP_AFTER).map(|_| backoff.exited(0)).collect();
        assert!(delays.iter().flatten().all(|&d| d <= MAX_DELAY_MS));
    }
}
