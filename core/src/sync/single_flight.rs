//! Work that many callers may ask for at once but that must run once: the first caller runs
//! it, the others wait and share its outcome. Opening an MCP session (two first requests must
//! not open two sessions) and listing a server's tools are such work.
//!
//! A caller that gives up while running (its future dropped) does not strand the others: the
//! next waiter runs the work itself.

use std::cell::RefCell;
use std::future::{poll_fn, Future};
use std::task::{Poll, Waker};

pub struct SingleFlight<T> {
    state: RefCell<State<T>>,
}

struct State<T> {
    /// Counts runs; a waiter takes the outcome of the run it waited for, and only that.
    run: u64,
    running: bool,
    outcome: Option<(u64, T)>,
    waiting: Vec<Waker>,
}

impl<T> Default for SingleFlight<T> {
    fn default() -> Self {
        SingleFlight {
            state: RefCell::new(State {
                run: 0,
                running: false,
                outcome: None,
                waiting: Vec::new(),
            }),
        }
    }
}

/// Ends a run however its future ends, and wakes the waiters.
struct Running<'a, T> {
    flight: &'a SingleFlight<T>,
}

impl<T> Drop for Running<'_, T> {
    fn drop(&mut self) {
        let waiting = {
            let mut state = self.flight.state.borrow_mut();
            state.running = false;
            std::mem::take(&mut state.waiting)
        };
        waiting.into_iter().for_each(Waker::wake);
    }
}

impl<T: Clone> SingleFlight<T> {
    /// Runs `work` unless a run is under way, in which case its outcome is shared.
    pub async fn run<F: Future<Output = T>>(&self, work: impl FnOnce() -> F) -> T {
        let joined = {
            let state = self.state.borrow();
            state.running.then_some(state.run)
        };
        if let Some(run) = joined {
            self.until_idle().await;
            let shared = match &self.state.borrow().outcome {
                Some((finished, outcome)) if *finished == run => Some(outcome.clone()),
                _ => None,
            };
            // Else the run we waited for was abandoned; someone may have started another.
            return match shared {
                Some(outcome) => outcome,
                None => Box::pin(self.run(work)).await,
            };
        }
        let run = {
            let mut state = self.state.borrow_mut();
            state.run += 1;
            state.running = true;
            state.run
        };
        let guard = Running { flight: self };
        let outcome = work().await;
        self.state.borrow_mut().outcome = Some((run, outcome.clone()));
        drop(guard);
        outcome
    }

    async fn until_idle(&self) {
        poll_fn(|cx| {
            let mut state = self.state.borrow_mut();
            if !state.running {
                return Poll::Ready(());
            }
            if !state.waiting.iter().any(|w| w.will_wake(cx.waker())) {
                state.waiting.push(cx.waker().clone());
            }
            Poll::Pending
        })
        .await
    }

    pub fn is_running(&self) -> bool {
        self.state.borrow().running
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::channel::oneshot;
    use futures::executor::LocalPool;
    use futures::task::LocalSpawnExt;
    use futures::FutureExt;
    use std::cell::Cell;
    use std::rc::Rc;

    #[test]
    fn concurrent_callers_share_one_run() {
        let flight = Rc::new(SingleFlight::<u32>::default());
        let runs = Rc::new(Cell::new(0));
        let (release, released) = oneshot::channel::<()>();
        let released = released.shared();
        let results = Rc::new(RefCell::new(Vec::new()));
        let mut pool = LocalPool::new();
        for _ in 0..3 {
            let (flight, runs, released, results) =
                (flight.clone(), runs.clone(), released.clone(), results.clone());
            pool.spawner()
                .spawn_local(async move {
                    let out = flight
                        .run(|| async move {
                            runs.set(runs.get() + 1);
                            let _ = released.await;
                            7
                        })
                        .await;
                    results.borrow_mut().push(out);
                })
                .unwrap();
        }
        pool.run_until_stalled();
        assert!(flight.is_running());
        release.send(()).unwrap();
        pool.run_until_stalled();
        assert_eq!((runs.get(), results.borrow().clone()), (1, vec![7, 7, 7]));
        // A later call runs again.
        assert_eq!(pool.run_until(flight.run(|| async { 8 })), 8);
    }

    #[test]
    fn an_abandoned_run_does_not_strand_the_waiters() {
        let flight = Rc::new(SingleFlight::<u32>::default());
        let mut pool = LocalPool::new();
        let mut leader = Box::pin(flight.run(std::future::pending::<u32>));
        assert!(leader.as_mut().now_or_never().is_none());
        let out = Rc::new(Cell::new(0));
        let (f, o) = (flight.clone(), out.clone());
        pool.spawner().spawn_local(async move { o.set(f.run(|| async { 5 }).await) }).unwrap();
        pool.run_until_stalled();
        assert_eq!(out.get(), 0, "waits for the leader");
        drop(leader);
        pool.run_until_stalled();
        assert_eq!(out.get(), 5, "ran the work itself");
        assert!(!flight.is_running());
    }
}
