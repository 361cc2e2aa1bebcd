//! Many waits on one host timer.
//!
//! Every MCP request races a timeout that almost never fires (30 s by default). Giving each its
//! own `setTimeout` cost the worker a timer, a promise and two closures per call; here a wait is
//! an entry in a list, and the host keeps one timer, set for the earliest deadline and moved only
//! when a nearer one arrives. A wait that ends early just leaves the list: the host timer may
//! then fire for nothing and is set again for whatever is next. Time is passed in (milliseconds
//! on any monotonic clock); the host owns the clock and the timer.

use std::task::Waker;

/// Names a wait in the list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WaitKey(u64);

struct Wait {
    key: WaitKey,
    at_ms: f64,
    waker: Waker,
    due: bool,
}

/// The pending waits and the instant the host timer is set for.
#[derive(Default)]
pub struct Deadlines {
    waits: Vec<Wait>,
    next_key: u64,
    armed_at_ms: Option<f64>,
}

impl Deadlines {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a wait until `at_ms`. Returns its key and, when no host timer fires by then, the
    /// instant to set the host timer for (replacing the one set before).
    pub fn add(&mut self, at_ms: f64, waker: Waker) -> (WaitKey, Option<f64>) {
        let key = WaitKey(self.next_key);
        self.next_key += 1;
        self.waits.push(Wait { key, at_ms, waker, due: false });
        let arm = match self.armed_at_ms {
            Some(armed) if armed <= at_ms => None,
            _ => {
                self.armed_at_ms = Some(at_ms);
                Some(at_ms)
            }
        };
        (key, arm)
    }

    /// Whether the wait's deadline has passed. Otherwise `waker` is the one to wake.
    pub fn poll(&mut self, key: WaitKey, waker: &Waker) -> bool {
        match self.waits.iter_mut().find(|w| w.key == key) {
            Some(wait) if wait.due => true,
            Some(wait) => {
                if !wait.waker.will_wake(waker) {
                    wait.waker = waker.clone();
                }
                false
            }
            // Not in the list: never added, or already over.
            None => true,
        }
    }

    /// Forgets a wait, over or not.
    pub fn remove(&mut self, key: WaitKey) {
        self.waits.retain(|w| w.key != key);
    }

    /// The host timer fired at `now_ms`. Marks the waits that are due and returns their wakers,
    /// plus the instant to set the host timer for next, if any wait is left.
    pub fn fire(&mut self, now_ms: f64) -> (Vec<Waker>, Option<f64>) {
        let mut woken = Vec::new();
        let mut next: Option<f64> = None;
        for wait in self.waits.iter_mut().filter(|w| !w.due) {
            if wait.at_ms <= now_ms {
                wait.due = true;
                woken.push(wait.waker.clone());
            } else if next.is_none_or(|n| wait.at_ms < n) {
                next = Some(wait.at_ms);
            }
        }
        self.armed_at_ms = next;
        (woken, next)
    }

    /// How many waits are in the list.
    pub fn len(&self) -> usize {
        self.waits.len()
    }

    pub fn is_empty(&self) -> bool {
        self.waits.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::task::Wake;

    struct Count(AtomicUsize);

    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn waker() -> (Waker, Arc<Count>) {
        let count = Arc::new(Count(AtomicUsize::new(0)));
        (Waker::from(count.clone()), count)
    }

    #[test]
    fn only_a_nearer_deadline_moves_the_host_timer() {
        let mut deadlines = Deadlines::new();
        let (w, _) = waker();
        assert_eq!(deadlines.add(30_000.0, w.clone()).1, Some(30_000.0));
        // Later deadlines are covered by the timer already set: no host call.
        assert_eq!(deadlines.add(30_005.0, w.clone()).1, None);
        assert_eq!(deadlines.add(30_000.0, w.clone()).1, None);
        assert_eq!(deadlines.add(100.0, w).1, Some(100.0));
    }

    #[test]
    fn firing_wakes_what_is_due_and_sets_the_timer_for_the_next() {
        let mut deadlines = Deadlines::new();
        let (early, early_count) = waker();
        let (late, late_count) = waker();
        let (a, _) = deadlines.add(100.0, early);
        let (b, _) = deadlines.add(500.0, late.clone());
        let (woken, next) = deadlines.fire(100.0);
        woken.into_iter().for_each(Waker::wake);
        assert_eq!(early_count.0.load(Ordering::SeqCst), 1);
        assert_eq!(late_count.0.load(Ordering::SeqCst), 0);
        assert_eq!(next, Some(500.0));
        assert!(deadlines.poll(a, &late));
        assert!(!deadlines.poll(b, &late));
        // A due wait is not woken twice.
        let (woken, next) = deadlines.fire(200.0);
        assert!(woken.is_empty());
        assert_eq!(next, Some(500.0));
    }

    #[test]
    fn a_wait_that_ended_early_leaves_a_timer_that_fires_for_nothing() {
        let mut deadlines = Deadlines::new();
        let (w, count) = waker();
        let (key, arm) = deadlines.add(30_000.0, w);
        assert_eq!(arm, Some(30_000.0));
        deadlines.remove(key);
        assert!(deadlines.is_empty());
        let (woken, next) = deadlines.fire(30_000.0);
        assert!(woken.is_empty() && next.is_none());
        assert_eq!(count.0.load(Ordering::SeqCst), 0);
        // With nothing armed, the next wait sets the timer again, even a later one.
        let (w, _) = waker();
        assert_eq!(deadlines.add(60_000.0, w).1, Some(60_000.0));
    }

    #[test]
    fn a_timer_that_fires_early_is_set_again_for_the_same_deadline() {
        let mut deadlines = Deadlines::new();
        let (w, count) = waker();
        deadlines.add(1_000.0, w);
        let (woken, next) = deadlines.fire(999.5);
        assert!(woken.is_empty());
        assert_eq!(next, Some(1_000.0));
        assert_eq!(count.0.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn polling_keeps_the_latest_waker() {
        let mut deadlines = Deadlines::new();
        let (first, first_count) = waker();
        let (second, second_count) = waker();
        let (key, _) = deadlines.add(10.0, first);
        assert!(!deadlines.poll(key, &second));
        let (woken, _) = deadlines.fire(10.0);
        woken.into_iter().for_each(Waker::wake);
        assert_eq!(first_count.0.load(Ordering::SeqCst), 0);
        assert_eq!(second_count.0.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn an_unknown_key_counts_as_over() {
        let mut deadlines = Deadlines::new();
        let (w, _) = waker();
        assert!(deadlines.poll(WaitKey(7), &w));
        assert_eq!(deadlines.len(), 0);
    }
}
