//! A page's fast lane to the worker: a `MessageChannel` handed to the service worker.
//!
//! A `chrome.runtime` port carries every message through the browser process: about 0.7 ms a
//! round trip, several ms in its tail when the machine is busy. An extension page and its
//! service worker live in one renderer process, and a `MessageChannel` between them takes about
//! 0.05 ms. The runtime port stays in charge of everything else: it wakes the worker, carries
//! events and says when the worker stops (a `MessagePort` says nothing when its other end dies).
//!
//! The handshake (the worker's half is in `static/background.js`):
//! 1. the page connects its runtime port with the name `<name>#<token>`;
//! 2. it posts `{gemipanel_channel: <token>}` with one end of a new channel to the worker
//!    (`navigator.serviceWorker.ready` → `active.postMessage`);
//! 3. once the worker has both halves it posts `{kind: "channel_ready"}` on the channel, and
//!    from then on answers requests that arrive on the channel on the channel.
//!
//! Anything failing on the way leaves the page on its runtime port, which always works.

use js_sys::{Array, Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::BrowserError;

/// Between a port's name and the token that pairs it with a channel.
pub const TOKEN_SEPARATOR: char = '#';
/// The key of the hello message that carries the token.
pub const HELLO_KEY: &str = "gemipanel_channel";
/// The `kind` of the worker's message that says the channel is paired.
pub const READY_KIND: &str = "channel_ready";

#[wasm_bindgen]
extern "C" {
    type MessageChannel;
    #[wasm_bindgen(constructor, catch)]
    fn new() -> Result<MessageChannel, JsValue>;
    #[wasm_bindgen(method, getter)]
    fn port1(this: &MessageChannel) -> MessagePort;
    #[wasm_bindgen(method, getter)]
    fn port2(this: &MessageChannel) -> MessagePort;

    #[derive(Clone)]
    type MessagePort;
    #[wasm_bindgen(method, catch, js_name = postMessage)]
    fn post_message(this: &MessagePort, message: &JsValue) -> Result<(), JsValue>;
    #[wasm_bindgen(method, setter)]
    fn set_onmessage(this: &MessagePort, listener: &JsValue);
    #[wasm_bindgen(method)]
    fn close(this: &MessagePort);
}

/// This page's end of the channel. Dropping it closes the channel.
pub struct Channel {
    local: MessagePort,
    _listener: Closure<dyn FnMut(JsValue)>,
}

/// A token for one connection: it only pairs a port with a channel of the same page.
pub fn token() -> String {
    let random = || (js_sys::Math::random() * f64::from(u32::MAX)) as u32;
    format!("{:08x}{:08x}", random(), random())
}

impl Channel {
    /// Opens a channel and hands it to the worker for the port that carries `token`.
    /// `on_ready` runs once the worker paired it; `on_message` gets every other message on it.
    pub fn open(
        token: &str,
        on_ready: impl FnOnce() + 'static,
        mut on_message: impl FnMut(JsValue) + 'static,
    ) -> Result<Channel, BrowserError> {
        let channel =
            MessageChannel::new().map_err(|e| BrowserError::from_js("opening a channel", e))?;
        let local = channel.port1();
        let mut on_ready = Some(on_ready);
        let listener = Closure::<dyn FnMut(JsValue)>::new(move |event: JsValue| {
            let data = Reflect::get(&event, &"data".into()).unwrap_or_default();
            let kind = Reflect::get(&data, &"kind".into()).ok().and_then(|k| k.as_string());
            if kind.as_deref() == Some(READY_KIND) {
                if let Some(ready) = on_ready.take() {
                    ready();
                }
            } else {
                on_message(data);
            }
        });
        // Setting `onmessage` also starts the port.
        local.set_onmessage(listener.as_ref());
        let remote = channel.port2();
        let token = token.to_owned();
        wasm_bindgen_futures::spawn_local(async move {
            if let Err(err) = hand_over(&token, &remote).await {
                let err = BrowserError::from_js("the fast channel to the worker", err);
                web_sys::console::warn_1(&format!("{err}; using the port alone").into());
            }
        });
        Ok(Channel { local, _listener: listener })
    }

    pub fn post(&self, message: &JsValue) -> Result<(), BrowserError> {
        self.local.post_message(message).map_err(|e| BrowserError::from_js("posting a request", e))
    }
}

impl Drop for Channel {
    fn drop(&mut self) {
        // Unhook first: the listener closure is freed with this struct.
        self.local.set_onmessage(&JsValue::NULL);
        self.local.close();
    }
}

/// `navigator.serviceWorker.ready`, then `active.postMessage(hello, [remote])`.
async fn hand_over(token: &str, remote: &MessagePort) -> Result<(), JsValue> {
    let navigator = Reflect::get(&js_sys::global(), &"navigator".into())?;
    let container = Reflect::get(&navigator, &"serviceWorker".into())?;
    let ready: Promise = Reflect::get(&container, &"ready".into())?.dyn_into()?;
    let registration: JsValue = JsFuture::from(ready).await?;
    let active = Reflect::get(&registration, &"active".into())?;
    let post: Function = Reflect::get(&active, &"postMessage".into())?.dyn_into()?;
    let hello = Object::new();
    Reflect::set(&hello, &HELLO_KEY.into(), &token.into())?;
    post.call2(&active, &hello, &Array::of1(remote))?;
    Ok(())
}
