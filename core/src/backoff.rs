//! Exponential backoff: the wait before attempt `n + 1` after `n` failures, doubling from
//! `first` up to `max`. Deterministic (no jitter): one person, a few connections.

use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    pub first: Duration,
    pub max: Duration,
}

impl Backoff {
    /// The wait after `failures` failures in a row (0: the first retry).
    pub fn delay(&self, failures: u32) -> Duration {
        self.first.saturating_mul(2u32.saturating_pow(failures)).min(self.max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_up_to_the_cap_without_overflow() {
        let b = Backoff { first: Duration::from_secs(1), max: Duration::from_secs(30) };
        let waits: Vec<u64> = (0..7).map(|n| b.delay(n).as_secs()).collect();
        assert_eq!(waits, [1, 2, 4, 8, 16, 30, 30]);
        assert_eq!(b.delay(u32::MAX), Duration::from_secs(30));
    }
}
