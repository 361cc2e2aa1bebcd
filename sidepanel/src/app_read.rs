//! A tool's app read through the worker, which checks it (`core::apps::resource`) and does
//! not send again the HTML of an app this page holds: an app is often shown many times in a
//! chat, and each copy sent was hundreds of KB carried, parsed and given a new block of the
//! page's memory.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};

use futures_channel::oneshot;
use gemipanel_browser::chrome::{message, word};
use gemipanel_browser::port::WorkerPort;
use gemipanel_core::apps::resource::{unreadable, AppResource};
use gemipanel_core::messages::{Request, Response};
use serde_json::Value;

/// The apps this page holds, by server and URI: weak, so that an app no chat shows any more
/// is let go.
#[derive(Default)]
pub struct HeldApps(HashMap<(String, String), Weak<AppResource>>);

impl HeldApps {
    pub fn get(&self, server_id: &str, uri: &str) -> Option<Rc<AppResource>> {
        self.0.get(&(server_id.to_owned(), uri.to_owned()))?.upgrade()
    }

    /// Holds `resource` for its server and URI, unless a copy of the same HTML is held there
    /// already (two tools of one app, each with its own `_meta.ui`, then do not take turns).
    pub fn hold(&mut self, server_id: &str, resource: &Rc<AppResource>) {
        // Those let go leave with the next one held.
        self.0.retain(|_, held| held.strong_count() > 0);
        let key = (server_id.to_owned(), resource.uri.clone());
        let held = self.0.get(&key).and_then(Weak::upgrade);
        if held.is_none_or(|held| held.digest != resource.digest) {
            self.0.insert(key, Rc::downgrade(resource));
        }
    }
}

/// The app `uri` of `server_id`, its `_meta.ui` completed from the tool's definition `tool`;
/// `held` is this page's copy, if any, which the worker then does not send again when it is
/// unchanged. The reason in the person's words when the app cannot be read.
pub async fn read_app(
    port: &WorkerPort,
    server_id: &str,
    uri: &str,
    tool: &Value,
    held: Option<Rc<AppResource>>,
) -> Result<Rc<AppResource>, String> {
    let held = held.filter(|held| held.uri == uri && !held.digest.is_empty());
    let request = Request::ReadApp {
        server_id: crate::chat_driver::server_id(server_id),
        uri: uri.to_owned(),
        held: held.as_ref().map(|held| held.digest.clone()),
    };
    match port.request(request).await {
        Ok(Response::App { read }) => match read.into_resource(uri, held.clone(), tool) {
            Some(resource) => Ok(resource),
            // "Unchanged" about a copy this page does not hold (a worker of another version):
            // once more, asking for the whole app.
            None if held.is_some() => Box::pin(read_app(port, server_id, uri, tool, None)).await,
            None => Err(message("errWorkerUnexpectedAnswer", &[])),
        },
        Ok(Response::Error { error } | Response::SignInNeeded { error, .. }) => {
            Err(word(&unreadable(&error)))
        }
        Ok(_) => Err(message("errWorkerUnexpectedAnswer", &[])),
        Err(err) => Err(err.to_string()),
    }
}

/// An app's resource read ahead (when the person opens a tool in the tool browser): a run
/// that starts before the read is done waits for it instead of reading again.
#[derive(Clone, Default)]
pub struct Prefetch(Rc<RefCell<PrefetchState>>);

#[derive(Default)]
enum PrefetchState {
    #[default]
    Idle,
    Pending(Vec<oneshot::Sender<Result<Rc<AppResource>, String>>>),
    Done(Result<Rc<AppResource>, String>),
}

impl Prefetch {
    pub fn start(&self, port: Rc<WorkerPort>, server_id: String, uri: String, tool: Rc<Value>) {
        *self.0.borrow_mut() = PrefetchState::Pending(Vec::new());
        let this = self.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let read = read_app(&port, &server_id, &uri, &tool, None).await;
            let state =
                std::mem::replace(&mut *this.0.borrow_mut(), PrefetchState::Done(read.clone()));
            if let PrefetchState::Pending(waiters) = state {
                for waiter in waiters {
                    let _ = waiter.send(read.clone());
                }
            }
        });
    }

    /// The app read ahead, once it is read; `None` when no read was started.
    pub async fn get(&self) -> Option<Result<Rc<AppResource>, String>> {
        let receiver = match &mut *self.0.borrow_mut() {
            PrefetchState::Idle => return None,
            PrefetchState::Done(read) => return Some(read.clone()),
            PrefetchState::Pending(waiters) => {
                let (sender, receiver) = oneshot::channel();
                waiters.push(sender);
                receiver
            }
        };
        receiver.await.ok()
    }
}
