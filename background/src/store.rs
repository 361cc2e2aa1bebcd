//! The settings document in `chrome.storage.local`, and the one queue every change goes through.
//!
//! The worker is the only writer. Edits wait in one FIFO queue and are applied in arrival order
//! as read-modify-write steps under a lock, so edits from several pages and from the worker
//! itself never lose one another. Edits that queued up while storage was busy are applied
//! together: one read, each edit in order, one write (group commit), which keeps a burst of
//! edits fast. The document is read from storage each time rather than cached: whatever is in
//! storage is the truth, even if something outside this worker (a test, an older version)
//! wrote it.
//!
//! A stored document that fails to load is never overwritten: it is copied to a key of its own,
//! the problem is recorded under [`PROBLEM_KEY`] and pushed to the pages, and the worker goes on
//! with default settings.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures_channel::oneshot;

use gemipanel_browser::chrome;
use gemipanel_browser::http::now_ms;
use gemipanel_browser::messaging::{from_js, to_js};
use gemipanel_core::messages::{Event, SettingsProblem};
use gemipanel_core::settings::{apply, load, read_settings_problem, Settings, SettingsEdit};
use serde_json::Value;

use crate::lock::FifoLock;
use crate::ports;

pub const KEY: &str = "settings";
/// The last load problem, until the user dismisses it.
pub const PROBLEM_KEY: &str = "settings_problem";
const REJECTED_PREFIX: &str = "settings_rejected_";

type Reply = oneshot::Sender<Result<Settings, String>>;

thread_local! {
    static QUEUE: Rc<FifoLock> = Rc::default();
    /// Edits waiting, oldest first. A `Vec` taken whole rather than a `VecDeque` drained: the
    /// same FIFO order, and no drain iterator's drop code in the wasm.
    static PENDING: RefCell<Vec<(SettingsEdit, Reply)>> = const { RefCell::new(Vec::new()) };
    static DRAINING: Cell<bool> = const { Cell::new(false) };
    /// The document as last read, so a tool call does not parse the whole document again.
    /// Dropped whenever `settings` changes in storage, whoever wrote it.
    // Shared, not cloned, per request: a document with cached tool lists is not small.
    static CACHED: RefCell<Option<Rc<Settings>>> = const { RefCell::new(None) };
    static WATCHING: Cell<bool> = const { Cell::new(false) };
}

/// The current settings. Reading needs no lock unless the stored document has to be migrated or
/// moved aside, which writes.
pub async fn read() -> Result<Rc<Settings>, String> {
    if let Some(settings) = CACHED.with(|c| c.borrow().clone()) {
        return Ok(settings);
    }
    watch_for_changes();
    if let Some(raw) = stored().await? {
        if let Ok(loaded) = load(&raw) {
            if loaded.migrated_from.is_none() {
                let settings = Rc::new(loaded.settings);
                if WATCHING.with(Cell::get) {
                    CACHED.with(|c| *c.borrow_mut() = Some(settings.clone()));
                }
                return Ok(settings);
            }
        }
    } else {
        return Ok(Rc::new(Settings::default()));
    }
    let _turn = queue().lock().await;
    read_locked().await.map(Rc::new)
}

/// Drops the cached document whenever the stored one changes. Caching only starts once this
/// listener is in place, so a cached document is never older than the last change.
fn watch_for_changes() {
    if WATCHING.with(Cell::get) {
        return;
    }
    let watching = chrome::on_local_storage_changed(|key| {
        if key == KEY {
            CACHED.with(|c| c.borrow_mut().take());
        }
    });
    match watching {
        Ok(()) => WATCHING.with(|w| w.set(true)),
        Err(err) => {
            web_sys::console::warn_1(&format!("settings are read without a cache: {err}").into())
        }
    }
}

/// Applies one edit after every edit queued before it; returns the document after it.
pub async fn edit(edit: SettingsEdit) -> Result<Settings, String> {
    let (reply, answer) = oneshot::channel();
    PENDING.with(|p| p.borrow_mut().push((edit, reply)));
    if !DRAINING.with(|d| d.replace(true)) {
        wasm_bindgen_futures::spawn_local(drain());
    }
    answer.await.unwrap_or_else(|_| Err("the settings could not be saved; try again".into()))
}

/// Applies queued edits until none are left.
async fn drain() {
    loop {
        let batch = PENDING.with(|p| std::mem::take(&mut *p.borrow_mut()));
        if batch.is_empty() {
            DRAINING.with(|d| d.set(false));
            return;
        }
        let turn = queue().lock().await;
        let answers = apply_batch(batch).await;
        drop(turn);
        for (reply, result) in answers {
            let _ = reply.send(result);
        }
    }
}

async fn apply_batch(batch: Vec<(SettingsEdit, Reply)>) -> Vec<(Reply, Result<Settings, String>)> {
    let mut doc = match read_locked().await {
        Ok(current) => current,
        Err(message) => {
            return batch.into_iter().map(|(_, reply)| (reply, Err(message.clone()))).collect()
        }
    };
    // Compared in the stored form: `Settings == Settings` was 1.6 KB of the worker, and the form
    // is needed for the write anyway.
    let before = encode(&doc);
    let mut answers = Vec::with_capacity(batch.len());
    for (edit, reply) in batch {
        // A refused edit leaves the document as the edits before it made it.
        let result = apply(&doc, &edit).map_err(|e| e.to_string());
        if let Ok(next) = &result {
            doc = next.clone();
        }
        answers.push((reply, result));
    }
    let after = encode(&doc);
    if after != before {
        if let Err(message) = write(&after).await {
            for (_, result) in &mut answers {
                if result.is_ok() {
                    *result = Err(message.clone());
                }
            }
            return answers;
        }
        // Still holding the lock: pages see the changes in the order they were made.
        ports::broadcast(Event::SettingsChanged { settings: doc });
    }
    answers
}

/// The recorded load problem, if the user has not dismissed it.
pub async fn problem() -> Option<SettingsProblem> {
    let raw = chrome::local_get(PROBLEM_KEY).await.ok()?;
    // Read by hand from JSON: the derived decoder was 2 KB of the worker.
    read_settings_problem(&from_js::<Value>(raw).ok()?)
}

pub async fn dismiss_problem() -> Result<(), String> {
    chrome::local_remove(PROBLEM_KEY).await.map_err(|e| e.to_string())
}

fn queue() -> Rc<FifoLock> {
    QUEUE.with(Rc::clone)
}

async fn stored() -> Result<Option<Value>, String> {
    let raw = chrome::local_get(KEY).await.map_err(|e| e.to_string())?;
    if raw.is_undefined() || raw.is_null() {
        return Ok(None);
    }
    // Anything storage holds is representable as JSON; a failure here is kept aside below.
    Ok(Some(from_js::<Value>(raw).unwrap_or(Value::Null)))
}

/// Only with the queue's lock held.
async fn read_locked() -> Result<Settings, String> {
    let Some(raw) = stored().await? else {
        return Ok(Settings::default());
    };
    match load(&raw) {
        Ok(loaded) => {
            if loaded.migrated_from.is_some() {
                write(&encode(&loaded.settings)).await?;
            }
            Ok(loaded.settings)
        }
        Err(err) => {
            let problem = keep_aside(raw, err.to_string()).await?;
            ports::broadcast(Event::SettingsProblem { problem });
            Ok(Settings::default())
        }
    }
}

/// Copies the rejected document to a fresh key, records why, and only then clears `settings`.
async fn keep_aside(raw: Value, message: String) -> Result<SettingsProblem, String> {
    let stamp = now_ms();
    let mut kept_under = format!("{REJECTED_PREFIX}{stamp}");
    let mut n = 1;
    while !chrome::local_get(&kept_under).await.map_err(|e| e.to_string())?.is_undefined() {
        n += 1;
        kept_under = format!("{REJECTED_PREFIX}{stamp}_{n}");
    }
    let raw = to_js(&raw).map_err(|e| e.to_string())?;
    chrome::local_set(&kept_under, &raw).await.map_err(|e| e.to_string())?;
    let problem = SettingsProblem { message, kept_under, at_ms: stamp };
    let record = to_js(&problem).map_err(|e| e.to_string())?;
    chrome::local_set(PROBLEM_KEY, &record).await.map_err(|e| e.to_string())?;
    chrome::local_remove(KEY).await.map_err(|e| e.to_string())?;
    Ok(problem)
}

/// The document as JSON text, the form it is stored in.
fn encode(settings: &Settings) -> String {
    // Cannot fail: every map in the document has string keys.
    serde_json::to_string(settings).unwrap_or_default()
}

/// The one way the document is written: as JSON text from [`encode`].
async fn write(encoded: &str) -> Result<(), String> {
    let saved = match js_sys::JSON::parse(encoded) {
        Ok(value) => chrome::local_set(KEY, &value).await.map_err(|e| e.to_string()),
        Err(_) => Err("the settings could not be encoded".to_owned()),
    };
    saved.map_err(|e| format!("the settings were not saved: {e}"))
}
