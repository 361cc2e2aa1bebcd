//! Sleeping without a `setTimeout` per sleep: the waits of this thread share one host timer
//! (`core::deadlines` decides when it must move). A request's timeout then costs a clock read
//! and a list entry instead of a timer, a promise and two closures crossing into JavaScript.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use gemipanel_core::deadlines::{Deadlines, WaitKey};
use js_sys::Function;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    // `catch`: a throwing import inside wasm would leave the caller's promise unsettled.
    #[wasm_bindgen(catch, js_name = setTimeout)]
    fn set_timeout(handler: &Function, ms: f64) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = clearTimeout)]
    fn clear_timeout(id: &JsValue) -> Result<(), JsValue>;
    /// Monotonic milliseconds (`performance.now()`): a changed wall clock moves no deadline.
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn monotonic_ms() -> f64;
}

/// The host timer: its callback, made once, and the id of the `setTimeout` now pending.
struct HostTimer {
    callback: Closure<dyn FnMut()>,
    pending: Option<JsValue>,
}

thread_local! {
    static DEADLINES: RefCell<Deadlines> = RefCell::new(Deadlines::new());
    static HOST: RefCell<Option<HostTimer>> = const { RefCell::new(None) };
}

/// Resolves after `duration`. Dropping it forgets the wait.
pub fn sleep(duration: Duration) -> Sleep {
    Sleep { at_ms: monotonic_ms() + duration.as_secs_f64() * 1000.0, key: None }
}

pub struct Sleep {
    at_ms: f64,
    key: Option<WaitKey>,
}

impl Future for Sleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let key = match self.key {
            Some(key) => key,
            None => {
                let (key, arm) =
                    DEADLINES.with(|d| d.borrow_mut().add(self.at_ms, cx.waker().clone()));
                self.key = Some(key);
                if let Some(at_ms) = arm {
                    arm_or_end_all(at_ms);
                }
                key
            }
        };
        if DEADLINES.with(|d| d.borrow_mut().poll(key, cx.waker())) {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        if let Some(key) = self.key {
            DEADLINES.with(|d| d.borrow_mut().remove(key));
        }
    }
}

/// Sets the host timer for `at_ms`. Without a timer to come back with (should not happen),
/// every wait ends now rather than never.
fn arm_or_end_all(at_ms: f64) {
    if !arm_host_timer(at_ms) {
        let (all, _) = DEADLINES.with(|d| d.borrow_mut().fire(f64::INFINITY));
        all.into_iter().for_each(|w| w.wake());
    }
}

/// Sets the one host timer for `at_ms`, replacing the pending one; false if that failed.
fn arm_host_timer(at_ms: f64) -> bool {
    HOST.with(|host| {
        let mut host = host.borrow_mut();
        let host = host.get_or_insert_with(|| HostTimer {
            callback: Closure::new(on_host_timer),
            pending: None,
        });
        if let Some(id) = host.pending.take() {
            let _ = clear_timeout(&id);
        }
        let delay = (at_ms - monotonic_ms()).max(0.0);
        match set_timeout(host.callback.as_ref().unchecked_ref(), delay) {
            Ok(id) => {
                host.pending = Some(id);
                true
            }
            Err(_) => false,
        }
    })
}

fn on_host_timer() {
    HOST.with(|host| host.borrow_mut().as_mut().map(|h| h.pending.take()));
    let (woken, next) = DEADLINES.with(|d| d.borrow_mut().fire(monotonic_ms()));
    if let Some(at_ms) = next {
        arm_or_end_all(at_ms);
    }
    woken.into_iter().for_each(|w| w.wake());
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::rc::Rc;
    use wasm_bindgen_test::*;

    wasm_bindgen_test_configure!(run_in_browser);

    #[wasm_bindgen_test]
    async fn a_nearer_sleep_is_not_held_up_by_a_longer_one() {
        let long = sleep(Duration::from_secs(60));
        let mut long = Box::pin(long);
        // Registers the 60 s wait, which sets the host timer for it.
        assert!(futures_poll_once(long.as_mut()).is_pending());
        let started = monotonic_ms();
        sleep(Duration::from_millis(20)).await;
        let waited = monotonic_ms() - started;
        assert!((19.0..5_000.0).contains(&waited), "waited {waited} ms");
        assert!(futures_poll_once(long.as_mut()).is_pending(), "the 60 s sleep ended early");
    }

    #[wasm_bindgen_test]
    async fn sleeps_end_in_deadline_order_after_a_dropped_one_set_the_timer() {
        let order = Rc::new(RefCell::new(Vec::new()));
        let record = |label: &'static str, ms: u64| {
            let order = order.clone();
            async move {
                sleep(Duration::from_millis(ms)).await;
                order.borrow_mut().push(label);
            }
        };
        // Sets the host timer for 5 ms, then leaves: the timer fires for nothing and moves on.
        let mut dropped = Box::pin(sleep(Duration::from_millis(5)));
        assert!(futures_poll_once(dropped.as_mut()).is_pending());
        drop(dropped);
        let (a, b, c) = (record("30", 30), record("10", 10), record("20", 20));
        join3(a, b, c).await;
        assert_eq!(*order.borrow(), ["10", "20", "30"]);
        assert!(DEADLINES.with(|d| d.borrow().is_empty()));
    }

    /// Polls once with a waker that does nothing.
    fn futures_poll_once<F: Future>(future: Pin<&mut F>) -> Poll<F::Output> {
        let waker = std::task::Waker::noop();
        future.poll(&mut Context::from_waker(waker))
    }

    async fn join3(
        a: impl Future<Output = ()>,
        b: impl Future<Output = ()>,
        c: impl Future<Output = ()>,
    ) {
        let (mut a, mut b, mut c) = (Box::pin(a), Box::pin(b), Box::pin(c));
        let (mut da, mut db, mut dc) = (false, false, false);
        std::future::poll_fn(|cx| {
            da = da || a.as_mut().poll(cx).is_ready();
            db = db || b.as_mut().poll(cx).is_ready();
            dc = dc || c.as_mut().poll(cx).is_ready();
            if da && db && dc {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        })
        .await
    }
}
