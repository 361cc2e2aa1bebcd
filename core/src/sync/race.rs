//! Runtime-free waiting: the first of two futures, a deadline on one, and a cancel signal a
//! caller can fire.

use std::cell::RefCell;
use std::future::{poll_fn, Future};
use std::pin::pin;
use std::rc::Rc;
use std::task::{Poll, Waker};

pub enum Either<A, B> {
    Left(A),
    Right(B),
}

/// Polls both futures; the first to finish wins and the other is dropped (which aborts it).
pub async fn first<A: Future, B: Future>(a: A, b: B) -> Either<A::Output, B::Output> {
    let mut a = pin!(a);
    let mut b = pin!(b);
    poll_fn(|cx| {
        if let Poll::Ready(out) = a.as_mut().poll(cx) {
            return Poll::Ready(Either::Left(out));
        }
        if let Poll::Ready(out) = b.as_mut().poll(cx) {
            return Poll::Ready(Either::Right(out));
        }
        Poll::Pending
    })
    .await
}

/// `future`'s output, or `None` when `deadline` (a host's sleep) ended first; the loser is
/// dropped.
pub async fn within<F: Future>(future: F, deadline: impl Future<Output = ()>) -> Option<F::Output> {
    match first(future, deadline).await {
        Either::Left(out) => Some(out),
        Either::Right(()) => None,
    }
}

/// Fired by whoever started a call (the person pressing "Stop"); the client then abandons the
/// request and tells the server. Clones share one signal.
#[derive(Clone, Default)]
pub struct CancelToken(Rc<RefCell<CancelState>>);

#[derive(Default)]
struct CancelState {
    cancelled: bool,
    waiting: Vec<Waker>,
}

impl CancelToken {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn cancel(&self) {
        let waiting = {
            let mut state = self.0.borrow_mut();
            state.cancelled = true;
            std::mem::take(&mut state.waiting)
        };
        waiting.into_iter().for_each(Waker::wake);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.borrow().cancelled
    }

    /// Resolves once [`cancel`](Self::cancel) has been called.
    pub async fn cancelled(&self) {
        poll_fn(|cx| {
            let mut state = self.0.borrow_mut();
            if state.cancelled {
                Poll::Ready(())
            } else {
                if !state.waiting.iter().any(|w| w.will_wake(cx.waker())) {
                    state.waiting.push(cx.waker().clone());
                }
                Poll::Pending
            }
        })
        .await
    }
}

impl std::fmt::Debug for CancelToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CancelToken(cancelled: {})", self.is_cancelled())
    }
}
