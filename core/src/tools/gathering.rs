//! Gathering the servers' tool lists for a turn without letting a dead server hold it.
//!
//! A turn asks every enabled server for its tools at once. [`Gathering`] decides when the
//! turn stops waiting: when every listing has settled, or when those still out look dead. A
//! server that is slow and one that never answers look the same from here, so the rule is
//! relative: once a server has answered *from the network*, the others get a grace that grows
//! with how long that took, restarted by each further answer. Answers from memory or storage
//! and failures say nothing about how long a listing takes, so they start no grace. A listing
//! still out when the turn leaves goes on; its tools join the turn's next round.
//!
//! [`ListingHealth`] remembers, across turns, the servers whose listing failed: they are not
//! asked again until their backoff has passed, and the person is told once per streak of
//! failures (or of waits given up), not on every message.

use std::time::Duration;

use indexmap::{IndexMap, IndexSet};

use crate::backoff::Backoff;

/// The least grace after the last network answer. The first answers after a worker's start
/// can come well before the rest: twenty servers on loopback answered at 71 and 104 ms, then
/// from 189 ms on (`tests/bench/dead_servers.mjs`); 60 ms of grace let the turn leave with two
/// lists of twenty.
pub const MIN_GRACE: Duration = Duration::from_millis(150);
/// The grace, in percent of how long the last network answer took. Answers of healthy servers
/// do not come together: one worker reads them all, so they arrive spread over a time that
/// grows with their number, with gaps of up to a third of the time elapsed seen here (twenty
/// servers on loopback: answers from 440 to 965 ms, one gap of 171 ms after 515 ms).
pub const GRACE_PERCENT: u64 = 40;
/// While no server has answered from the network, how long the turn waits at most.
pub const FIRST_ANSWER_WAIT: Duration = Duration::from_secs(4);

/// What the turn does now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// Send with the tools at hand.
    Leave,
    /// Wait for a listing to settle, or until this time (ms), then ask again.
    Until(u64),
}

/// How a listing settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settled {
    /// The server was asked just now and answered.
    Fetched,
    /// Answered without asking the server (the worker's memory or its stored copy).
    Known,
    Failed,
}

/// One turn's wait for its listings.
#[derive(Debug, Clone)]
pub struct Gathering {
    started_ms: u64,
    pending: IndexSet<String>,
    /// When the last network answer came.
    last_fetched_ms: Option<u64>,
}

impl Gathering {
    /// Starts waiting at `now_ms` for the listings of `servers`.
    pub fn new(now_ms: u64, servers: impl IntoIterator<Item = String>) -> Self {
        Self { started_ms: now_ms, pending: servers.into_iter().collect(), last_fetched_ms: None }
    }

    /// A listing of the same round of asking answered from the network at `at_ms`, before
    /// this turn began waiting (the panel asks when it opens): it says as much about how long
    /// listings take as an answer seen while waiting.
    pub fn fetched_earlier(&mut self, at_ms: u64) {
        if at_ms >= self.started_ms && self.last_fetched_ms.is_none_or(|last| at_ms > last) {
            self.last_fetched_ms = Some(at_ms);
        }
    }

    /// A listing settled; `false` when it was not one this turn waits for.
    pub fn settled(&mut self, server: &str, how: Settled, now_ms: u64) -> bool {
        if !self.pending.swap_remove(server) {
            return false;
        }
        if how == Settled::Fetched {
            self.last_fetched_ms = Some(now_ms.max(self.started_ms));
        }
        true
    }

    /// The servers not heard from yet.
    pub fn pending(&self) -> impl Iterator<Item = &str> {
        self.pending.iter().map(String::as_str)
    }

    pub fn poll(&self, now_ms: u64) -> Wait {
        if self.pending.is_empty() {
            return Wait::Leave;
        }
        let deadline = match self.last_fetched_ms {
            Some(last) => {
                let took = last - self.started_ms;
                let grace = (took * GRACE_PERCENT / 100).max(MIN_GRACE.as_millis() as u64);
                last.saturating_add(grace)
            }
            None => self.started_ms.saturating_add(FIRST_ANSWER_WAIT.as_millis() as u64),
        };
        if now_ms >= deadline {
            Wait::Leave
        } else {
            Wait::Until(deadline)
        }
    }
}

/// The wait before a failed server is asked again, after 1, 2, … failures in a row.
pub const RETRY: Backoff =
    Backoff { first: Duration::from_secs(15), max: Duration::from_secs(5 * 60) };

/// Servers whose listings failed or did not answer, across the turns of one page.
#[derive(Debug, Clone, Default)]
pub struct ListingHealth {
    // Index maps: their table code is shared with the others the side panel has.
    servers: IndexMap<String, Health>,
}

#[derive(Debug, Clone, Default)]
struct Health {
    failures: u32,
    retry_at_ms: u64,
    /// Why the last listing failed, in the person's words.
    reason: Option<String>,
    /// The person was told about this streak.
    told: bool,
}

impl ListingHealth {
    /// Whether a turn starting at `now_ms` should ask `server` for its tools.
    pub fn may_ask(&self, server: &str, now_ms: u64) -> bool {
        self.servers.get(server).is_none_or(|h| now_ms >= h.retry_at_ms)
    }

    /// The listing failed: the server waits out a backoff before it is asked again.
    pub fn failed(&mut self, server: &str, now_ms: u64, reason: String) {
        let health = self.servers.entry(server.to_owned()).or_default();
        health.retry_at_ms = now_ms.saturating_add(RETRY.delay(health.failures).as_millis() as u64);
        health.failures = health.failures.saturating_add(1);
        health.reason = Some(reason);
    }

    /// Why the server's listing failed, when the person has not been told of this streak yet
    /// (and is about to be).
    pub fn tell_failure(&mut self, server: &str) -> Option<String> {
        let health = self.servers.get_mut(server).filter(|h| !h.told)?;
        let reason = health.reason.clone()?;
        health.told = true;
        Some(reason)
    }

    /// A turn left without the server's tools; `true` when the person should be told.
    pub fn tell_left_behind(&mut self, server: &str) -> bool {
        !std::mem::replace(&mut self.servers.entry(server.to_owned()).or_default().told, true)
    }

    /// The listing succeeded: the streak is over.
    pub fn answered(&mut self, server: &str) {
        self.servers.swap_remove(server);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gathering(servers: &[&str]) -> Gathering {
        Gathering::new(1_000, servers.iter().map(|s| s.to_string()))
    }

    #[test]
    fn leaves_at_once_when_every_listing_settled() {
        let mut g = gathering(&["a", "b"]);
        assert_eq!(g.poll(1_000), Wait::Until(1_000 + FIRST_ANSWER_WAIT.as_millis() as u64));
        g.settled("a", Settled::Fetched, 1_200);
        assert!(g.poll(1_200) != Wait::Leave);
        g.settled("b", Settled::Failed, 1_210);
        assert_eq!(g.poll(1_210), Wait::Leave);
        assert_eq!(gathering(&[]).poll(1_000), Wait::Leave);
    }

    #[test]
    fn a_silent_server_gets_a_grace_relative_to_the_answers_seen() {
        let mut g = gathering(&["fast", "slow", "hung"]);
        g.settled("fast", Settled::Fetched, 1_400);
        // 400 ms for the first answer: 160 ms of grace.
        assert_eq!(g.poll(1_400), Wait::Until(1_560));
        // Another answer restarts the grace, from how long that one took.
        g.settled("slow", Settled::Fetched, 1_500);
        assert_eq!(g.poll(1_510), Wait::Until(1_700));
        assert_eq!(g.poll(1_700), Wait::Leave);
        assert_eq!(g.pending().collect::<Vec<_>>(), ["hung"]);
    }

    #[test]
    fn a_quick_answer_still_gets_the_least_grace() {
        let mut g = gathering(&["a", "b"]);
        g.settled("a", Settled::Fetched, 1_010);
        assert_eq!(g.poll(1_010), Wait::Until(1_010 + MIN_GRACE.as_millis() as u64));
        // A listing started before the turn (when the panel opened) counts from its start.
        let mut early = Gathering::new(0, ["a".to_owned(), "b".to_owned()]);
        early.settled("a", Settled::Fetched, 1_000);
        assert_eq!(early.poll(1_000), Wait::Until(1_400));
    }

    #[test]
    fn the_first_quick_answers_do_not_end_the_wait_before_the_rest_arrive() {
        // Measured: twenty healthy servers after a worker's start, empty caches.
        let servers = (0..20).map(|i| format!("s{i}"));
        let mut g = Gathering::new(0, servers);
        g.settled("s0", Settled::Fetched, 71);
        g.settled("s1", Settled::Fetched, 104);
        assert!(matches!(g.poll(180), Wait::Until(at) if at > 189), "{:?}", g.poll(180));
        for (i, at) in [189, 202, 207, 212, 214, 218, 221, 223, 230, 236, 240, 243, 246, 251]
            .into_iter()
            .enumerate()
        {
            g.settled(&format!("s{}", i + 2), Settled::Fetched, at);
            assert!(g.poll(at) != Wait::Leave);
        }
        for (i, at) in [260, 269, 272, 275].into_iter().enumerate() {
            assert!(g.poll(at) != Wait::Leave);
            g.settled(&format!("s{}", i + 16), Settled::Fetched, at);
        }
        assert_eq!(g.poll(275), Wait::Leave);
    }

    #[test]
    fn an_answer_before_the_turn_waited_counts_when_it_is_of_the_same_round() {
        // Asked at 0 when the panel opened, one server answered at 500, the turn starts
        // waiting for the two others at 2 000: they had their grace already.
        let mut g = Gathering::new(0, ["hung".to_owned(), "slow".to_owned()]);
        g.fetched_earlier(500);
        assert_eq!(g.poll(2_000), Wait::Leave);
        // An answer from before the round began says nothing about it.
        let mut g = Gathering::new(1_000, ["hung".to_owned()]);
        g.fetched_earlier(500);
        assert_eq!(g.poll(2_000), Wait::Until(1_000 + FIRST_ANSWER_WAIT.as_millis() as u64));
    }

    #[test]
    fn failures_and_known_lists_start_no_grace() {
        // A closed port fails at once and a cached list answers at once: neither says how long
        // a real listing takes, so the servers still listing are waited for.
        let mut g = gathering(&["closed", "cached", "new"]);
        g.settled("closed", Settled::Failed, 1_005);
        g.settled("cached", Settled::Known, 1_006);
        assert_eq!(g.poll(2_000), Wait::Until(1_000 + FIRST_ANSWER_WAIT.as_millis() as u64));
        assert_eq!(g.poll(5_000), Wait::Leave);
    }

    #[test]
    fn settling_a_server_not_waited_for_changes_nothing() {
        let mut g = gathering(&["a"]);
        assert!(!g.settled("other", Settled::Fetched, 1_001));
        assert!(g.settled("a", Settled::Fetched, 1_002));
        assert!(!g.settled("a", Settled::Fetched, 1_003));
    }

    #[test]
    fn a_failing_server_is_told_once_and_asked_again_after_its_backoff() {
        let mut health = ListingHealth::default();
        assert!(health.may_ask("dead", 0));
        assert_eq!(health.tell_failure("dead"), None, "nothing failed yet");
        health.failed("dead", 1_000, "refused".into());
        assert!(!health.may_ask("dead", 1_000 + 14_999));
        assert!(health.may_ask("dead", 1_000 + 15_000));
        assert_eq!(health.tell_failure("dead").as_deref(), Some("refused"));
        assert_eq!(health.tell_failure("dead"), None, "told once");
        // The second failure of the streak is not told again, and waits twice as long.
        health.failed("dead", 20_000, "refused again".into());
        assert_eq!(health.tell_failure("dead"), None);
        assert!(!health.may_ask("dead", 20_000 + 29_999));
        assert!(health.may_ask("dead", 20_000 + 30_000));
        // Recovered, then failing again: a new streak, told again.
        health.answered("dead");
        assert!(health.may_ask("dead", 20_001));
        health.failed("dead", 60_000, "gone".into());
        assert_eq!(health.tell_failure("dead").as_deref(), Some("gone"));
    }

    #[test]
    fn a_server_left_behind_is_told_once_even_when_it_then_fails() {
        let mut health = ListingHealth::default();
        assert!(health.tell_left_behind("hung"));
        assert!(!health.tell_left_behind("hung"));
        // Left behind is no failure: it is still asked (its listing is still out).
        assert!(health.may_ask("hung", 0));
        health.failed("hung", 10_000, "timed out".into());
        assert_eq!(health.tell_failure("hung"), None);
        assert!(!health.may_ask("hung", 10_000));
    }
}
