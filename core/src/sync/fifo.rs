//! A first-in-first-out async lock: the settings edits run one after another, in arrival order.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use futures_channel::oneshot;

#[derive(Default)]
pub struct FifoLock {
    held: Cell<bool>,
    waiting: RefCell<VecDeque<oneshot::Sender<()>>>,
}

/// Holding it means owning the lock; dropping it hands the lock to the next in line.
pub struct Guard(Rc<FifoLock>);

/// A place in the line. Dropped after the lock was handed to it but before it was taken (the
/// waiting future was abandoned), it passes the lock on instead of keeping it forever.
struct Place {
    lock: Rc<FifoLock>,
    turn: Option<oneshot::Receiver<()>>,
}

impl Drop for Place {
    fn drop(&mut self) {
        if let Some(mut turn) = self.turn.take() {
            if let Ok(Some(())) = turn.try_recv() {
                drop(Guard(self.lock.clone()));
            }
        }
    }
}

impl FifoLock {
    pub async fn lock(self: &Rc<Self>) -> Guard {
        if !self.held.replace(true) {
            return Guard(self.clone());
        }
        let (sender, receiver) = oneshot::channel();
        self.waiting.borrow_mut().push_back(sender);
        let mut place = Place { lock: self.clone(), turn: Some(receiver) };
        if let Some(turn) = place.turn.as_mut() {
            // The sender is dropped only after `send` (or with the lock itself): either way the
            // lock is ours now.
            let _ = turn.await;
        }
        place.turn = None;
        Guard(self.clone())
    }

    pub fn is_held(&self) -> bool {
        self.held.get()
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        // Hand over directly (the lock stays held), skipping waiters that gave up.
        loop {
            let next = self.0.waiting.borrow_mut().pop_front();
            match next {
                Some(sender) => {
                    if sender.send(()).is_ok() {
                        return;
                    }
                }
                None => {
                    self.0.held.set(false);
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::executor::LocalPool;
    use futures::task::LocalSpawnExt;
    use futures::FutureExt;

    #[test]
    fn holders_run_in_arrival_order() {
        let lock = Rc::new(FifoLock::default());
        let order = Rc::new(RefCell::new(Vec::new()));
        let mut pool = LocalPool::new();
        let first = pool.run_until(lock.lock());
        for n in 0..5 {
            let (lock, order) = (lock.clone(), order.clone());
            pool.spawner()
                .spawn_local(async move {
                    let _turn = lock.lock().await;
                    order.borrow_mut().push(n);
                })
                .unwrap();
        }
        pool.run_until_stalled();
        assert!(order.borrow().is_empty(), "everyone waits for the first holder");
        drop(first);
        pool.run_until_stalled();
        assert_eq!(*order.borrow(), [0, 1, 2, 3, 4]);
        assert!(!lock.is_held());
    }

    #[test]
    fn a_waiter_dropped_after_the_hand_off_passes_the_lock_on() {
        let lock = Rc::new(FifoLock::default());
        let mut pool = LocalPool::new();
        let holder = pool.run_until(lock.lock());
        // Polled once so it waits in line, then handed the lock, then abandoned unpolled.
        let mut abandoned = Box::pin(lock.lock());
        assert!(abandoned.as_mut().now_or_never().is_none());
        drop(holder);
        drop(abandoned);
        assert!(!lock.is_held(), "the lock was not lost with the abandoned waiter");
        drop(pool.run_until(lock.lock()));
    }

    #[test]
    fn a_waiter_dropped_before_its_turn_is_skipped() {
        let lock = Rc::new(FifoLock::default());
        let mut pool = LocalPool::new();
        let holder = pool.run_until(lock.lock());
        let mut gone = Box::pin(lock.lock());
        assert!(gone.as_mut().now_or_never().is_none());
        drop(gone);
        drop(holder);
        assert!(!lock.is_held());
        drop(pool.run_until(lock.lock()));
    }
}
