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
//! A stored document that fails to load is never replaced behind the person's back: the stored
//! value is copied, as it is, to a key of its own, the problem is recorded under
//! [`PROBLEM_KEY`] and pushed to the pages, and until the person chooses a [`Recovery`] the
//! worker runs on default settings that it does not store and refuses edits.

use std::rc::Rc;

use futures_channel::oneshot;

use gemipanel_browser::chrome;
use gemipanel_browser::http::now_ms;
use gemipanel_browser::messaging::{from_js, to_js};
use gemipanel_core::messages::{Event, Recovery, SettingsProblem};
use gemipanel_core::oauth::Credentials;
use gemipanel_core::settings::{apply, load, ServerId, Settings, SettingsEdit};
use gemipanel_core::sync::FifoLock;
use gemipanel_core::text::Text;
use serde_json::Value;
use wasm_bindgen::JsValue;

use crate::events::WorkerEvent;
use crate::worker::{EditReply, SettingsState};
use crate::{ports, vault, worker};

pub const KEY: &str = "settings";
/// The last load problem, until the person chooses what to do about it.
pub const PROBLEM_KEY: &str = "settings_problem";
const REJECTED_PREFIX: &str = "settings_rejected_";

type Reply = EditReply;

/// Runs `f` on the settings' part of the worker's state.
fn state<R>(f: impl FnOnce(&SettingsState) -> R) -> R {
    worker::with(|w| f(&w.settings))
}

fn change_count() -> u64 {
    state(|s| s.changes.get())
}

fn forget_cached_now() {
    state(|s| s.cached.borrow_mut().take());
}

/// The stored document changed: the cached one goes, and reads in flight read again.
fn changed_now() {
    state(|s| s.changes.set(s.changes.get() + 1));
    forget_cached_now();
}

/// The current settings. Reading needs no lock unless the stored document has to be migrated or
/// moved aside, which writes, or its secrets could not be opened.
pub async fn read() -> Result<Rc<Settings>, Text> {
    let settings = read_current().await?;
    if !gemipanel_core::vault::has_sealed(&settings) {
        return Ok(settings);
    }
    // Still sealed: the secrets are locked, or a passphrase change (`passphrase::rekey`) wrote
    // them under a key it has not kept yet. It holds the queue's turn until it has: read again
    // after that turn, not hand on a document whose key reads as locked.
    drop(queue().lock().await);
    read_current().await
}

async fn read_current() -> Result<Rc<Settings>, Text> {
    // A document that changed while it was read is read again: handed on, the older one would
    // undo the change for whoever acts on it (a listing of servers dropped the client a save
    // had just made, leaving the server "not connected"). Bounded, so a storm of edits cannot
    // keep a reader waiting; the last read then goes on as before.
    for _ in 0..3 {
        let changes = change_count();
        let settings = read_once().await?;
        if change_count() == changes {
            return Ok(settings);
        }
    }
    read_once().await
}

async fn read_once() -> Result<Rc<Settings>, Text> {
    if let Some(settings) = state(|s| s.cached.borrow().clone()) {
        return Ok(settings);
    }
    watch_for_changes();
    let changes = change_count();
    if let Some(raw) = stored().await? {
        if let Ok(loaded) = load(&from_js::<Value>(raw).unwrap_or(Value::Null)) {
            if loaded.migrated_from.is_none() {
                let mut settings = loaded.settings;
                // Locked, the secrets stay sealed: not kept, so an unlock reads them again.
                let opened = vault::open_settings(&mut settings).await;
                let settings = Rc::new(settings);
                let unchanged = change_count() == changes;
                if opened && unchanged && state(|s| s.watching.get()) {
                    state(|s| *s.cached.borrow_mut() = Some(settings.clone()));
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

/// The queue's turn, for a change of more than the document (`passphrase::rekey`): no edit runs
/// while it is held.
pub async fn hold() -> impl Drop {
    queue().lock().await
}

/// The document with its secrets opened, while [`hold`] is held.
pub async fn read_for_rewrite() -> Result<Settings, Text> {
    if problem().await.is_some() {
        return Err(Text::new("errSettingsBlocked"));
    }
    read_locked().await
}

/// Drops the document kept in memory (its secrets were sealed, or are now); reads in flight
/// read again.
pub fn forget_cached() {
    changed_now();
}

/// Drops the cached document whenever the stored one changes. Caching only starts once this
/// listener is in place, so a cached document is never older than the last change.
fn watch_for_changes() {
    if state(|s| s.watching.get()) {
        return;
    }
    let watching = chrome::on_local_storage_changed(|key| {
        if key == KEY || key == PROBLEM_KEY {
            changed_now();
        }
        if key == gemipanel_core::vault::RECORD_KEY {
            crate::vault::forget_record();
        }
    });
    match watching {
        Ok(()) => state(|s| s.watching.set(true)),
        Err(err) => {
            web_sys::console::warn_1(&format!("settings are read without a cache: {err}").into())
        }
    }
}

/// Applies one edit after every edit queued before it; returns the document after it.
pub async fn edit(edit: SettingsEdit) -> Result<Settings, Text> {
    let (reply, answer) = oneshot::channel();
    state(|s| s.pending.borrow_mut().push((edit, reply)));
    if !state(|s| s.draining.replace(true)) {
        wasm_bindgen_futures::spawn_local(drain());
    }
    answer.await.unwrap_or_else(|_| Err(Text::new("errSettingsNotSaved")))
}

/// Applies queued edits until none are left.
async fn drain() {
    loop {
        let batch = state(|s| std::mem::take(&mut *s.pending.borrow_mut()));
        if batch.is_empty() {
            state(|s| s.draining.set(false));
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

async fn apply_batch(batch: Vec<(SettingsEdit, Reply)>) -> Vec<(Reply, Result<Settings, Text>)> {
    let current = match problem().await {
        Some(_) => Err(Text::new("errSettingsBlocked")),
        None => read_locked().await,
    };
    let mut doc = match current {
        Ok(current) => current,
        Err(message) => return refused(batch, message),
    };
    let before = doc.clone();
    let mut answers = Vec::with_capacity(batch.len());
    for (edit, reply) in batch {
        // A refused edit leaves the document as the edits before it made it.
        let result = apply(&doc, &edit).map_err(|e| e.text());
        if let Ok(next) = &result {
            doc = next.clone();
        }
        answers.push((reply, result));
    }
    if doc != before {
        if let Err(message) = write_forgetting(&doc, &before.removed_in(&doc)).await {
            for (_, result) in &mut answers {
                if result.is_ok() {
                    *result = Err(message.clone());
                }
            }
            return answers;
        }
        // Every edit of the batch is answered with the document written, the one the pages are
        // told: a page orders its answers by the documents told (the popup's `told`).
        for (_, result) in &mut answers {
            if result.is_ok() {
                *result = Ok(doc.clone());
            }
        }
        // Still holding the lock: pages see the changes in the order they were made.
        ports::broadcast(Event::SettingsChanged { settings: doc.for_pages() });
        worker::raise(WorkerEvent::SettingsEdited { before: &before, after: &doc });
    }
    answers
}

fn refused(
    batch: Vec<(SettingsEdit, Reply)>,
    message: Text,
) -> Vec<(Reply, Result<Settings, Text>)> {
    batch.into_iter().map(|(_, reply)| (reply, Err(message.clone()))).collect()
}

/// The recorded load problem, until the person chooses what to do.
pub async fn problem() -> Option<SettingsProblem> {
    let raw = chrome::local_get(PROBLEM_KEY).await.ok()?;
    if raw.is_undefined() {
        return None;
    }
    from_js(raw).ok()
}

/// Carries out the person's choice about a document that could not be read. `ExportKept`
/// answers with the kept document's text.
pub async fn recover(action: Recovery) -> Result<Option<String>, Text> {
    let _turn = queue().lock().await;
    let Some(problem) = problem().await else {
        return Err(Text::new("errSettingsNoProblem"));
    };
    let kept = chrome::local_get(&problem.kept_under).await.map_err(storage)?;
    match action {
        Recovery::ExportKept => {
            let text = js_sys::JSON::stringify_with_replacer_and_space(
                &kept,
                &JsValue::NULL,
                &JsValue::from(2),
            )
            .ok()
            .and_then(|t| t.as_string())
            .ok_or_else(|| Text::new("errSettingsKeptNotJson"))?;
            Ok(Some(text))
        }
        Recovery::Restore => {
            if let Err(e) = load(&from_js::<Value>(kept.clone()).unwrap_or(Value::Null)) {
                return Err(e.reason().text());
            }
            chrome::local_set(KEY, &kept).await.map_err(storage)?;
            forget_problem(&problem).await?;
            read_locked().await?;
            Ok(None)
        }
        Recovery::StartFresh => {
            write(&Settings::default()).await?;
            forget_problem(&problem).await?;
            Ok(None)
        }
    }
}

async fn forget_problem(problem: &SettingsProblem) -> Result<(), Text> {
    chrome::local_remove(PROBLEM_KEY).await.map_err(storage)?;
    chrome::local_remove(&problem.kept_under).await.map_err(storage)?;
    changed_now();
    Ok(())
}

fn queue() -> Rc<FifoLock> {
    state(|s| s.queue.clone())
}

/// The stored document as storage holds it; `None` when there is none.
async fn stored() -> Result<Option<JsValue>, Text> {
    let raw = chrome::local_get(KEY).await.map_err(storage)?;
    Ok((!raw.is_undefined() && !raw.is_null()).then_some(raw))
}

/// Only with the queue's lock held. Defaults (not stored) while a problem waits for the person.
async fn read_locked() -> Result<Settings, Text> {
    let Some(raw) = stored().await? else {
        return Ok(Settings::default());
    };
    // A value that is not even JSON (it cannot come from this worker) reads as `null` and so
    // fails to load below; what is kept aside is the stored value itself.
    match load(&from_js::<Value>(raw.clone()).unwrap_or(Value::Null)) {
        Ok(mut loaded) => {
            if loaded.migrated_from.is_some() && !vault::is_locked().await {
                write(&loaded.settings).await?;
            }
            vault::open_settings(&mut loaded.settings).await;
            Ok(loaded.settings)
        }
        Err(err) => {
            let problem = keep_aside(raw, err.reason().text()).await?;
            ports::broadcast(Event::SettingsProblem { problem });
            Ok(Settings::default())
        }
    }
}

/// Copies the rejected document, as stored, to a fresh key, records why, and only then clears
/// `settings`.
async fn keep_aside(raw: JsValue, error: Text) -> Result<SettingsProblem, Text> {
    let stamp = now_ms();
    let mut kept_under = format!("{REJECTED_PREFIX}{stamp}");
    let mut n = 1;
    while !chrome::local_get(&kept_under).await.map_err(storage)?.is_undefined() {
        n += 1;
        kept_under = format!("{REJECTED_PREFIX}{stamp}_{n}");
    }
    chrome::local_set(&kept_under, &raw).await.map_err(storage)?;
    let problem = SettingsProblem { error, kept_under, at_ms: stamp };
    let record = to_js(&problem).map_err(storage)?;
    chrome::local_set(PROBLEM_KEY, &record).await.map_err(storage)?;
    chrome::local_remove(KEY).await.map_err(storage)?;
    changed_now();
    Ok(problem)
}

/// Writes what settings sync took in from another computer, while [`hold`] is held (the
/// credentials of servers it removed go in the same write).
pub async fn write_taken_in(settings: &Settings, removed: &[ServerId]) -> Result<(), Text> {
    write_forgetting(settings, removed).await
}

/// The one way the document is written.
async fn write(settings: &Settings) -> Result<(), Text> {
    write_forgetting(settings, &[]).await
}

/// Writes the document and, in the same storage write, blanks the credentials of the servers
/// it no longer has (`removed`): a removed server's tokens and client secret never outlive it,
/// even when the worker stops right after (issue 22, item 3). The blanks (`null`) are taken
/// away afterwards, with the revocation (`auth::forget`).
async fn write_forgetting(settings: &Settings, removed: &[ServerId]) -> Result<(), Text> {
    // Sealed when a passphrase is set; refused while it is not entered (the document read
    // then has its secrets sealed, and the person's edit may add new ones).
    let settings = vault::seal_settings(settings).await?;
    let value = to_js(&settings).map_err(storage)?;
    let keys: Vec<String> = removed.iter().map(Credentials::storage_key).collect();
    let blank = JsValue::NULL;
    let mut entries = vec![(KEY, &value)];
    entries.extend(keys.iter().map(|key| (key.as_str(), &blank)));
    chrome::local_set_all(&entries)
        .await
        .map_err(|e| Text::new("errSettingsNotSavedBecause").arg(e.message()))?;
    // Chrome tells of the change (`watch_for_changes`) on another channel than this answer,
    // sometimes after it: a read in between would hand on the document just replaced.
    changed_now();
    Ok(())
}

/// A failure of `chrome.storage` (full disk, quota, a profile being closed).
fn storage(error: gemipanel_browser::BrowserError) -> Text {
    Text::new("errStorage").arg(error.message())
}
