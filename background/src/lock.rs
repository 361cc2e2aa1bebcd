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

impl FifoLock {
    pub async fn lock(self: &Rc<Self>) -> Guard {
        if !self.held.replace(true) {
            return Guard(self.clone());
        }
        let (sender, receiver) = oneshot::channel();
        self.waiting.borrow_mut().push_back(sender);
        // The sender is only dropped after `send`, so an error cannot happen; either way the
        // lock was handed to us.
        let _ = receiver.await;
        Guard(self.clone())
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
