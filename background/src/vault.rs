//! Secrets at rest under the person's passphrase (`core::vault`; WebCrypto through
//! `gemipanel_browser::vault`).
//!
//! The key derived from the passphrase is kept for the browser session in
//! `chrome.storage.session` (base64): that storage takes JSON values only, so a `CryptoKey`
//! cannot live there; it is held in memory only, never written to disk, emptied when the
//! browser closes, and content scripts cannot read it. The worker keeps a copy in memory too,
//! so opening a secret does not read storage again. Without a passphrase none of this runs.
//!
//! What is sealed: the secrets inside the settings document (`store` seals on every write and
//! opens on every read) and the sign-in documents `auth` keeps (credentials, registered
//! clients, identity providers' sign-ins), each as one envelope.

use std::rc::Rc;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use gemipanel_browser::chrome;
use gemipanel_browser::messaging::from_js;
use gemipanel_browser::vault as crypto;
use gemipanel_core::settings::{Secret, Settings};
use gemipanel_core::text::Text;
use gemipanel_core::vault::{self, Envelope, VaultRecord, VaultState, CHECK_TEXT};
use wasm_bindgen::JsValue;

use crate::worker::{self, VaultMemory};

/// The `chrome.storage.session` key of the derived key (base64url).
const SESSION_KEY: &str = "vault_key";
/// The other sign-in documents `auth` keeps (credentials are under a prefix of their own).
pub const SIGN_IN_KEYS: [&str; 2] = ["oauth_clients", "oauth_idp_sessions"];

/// Runs `f` on the key and record kept in memory.
fn kept<R>(f: impl FnOnce(&VaultMemory) -> R) -> R {
    worker::with(|w| f(&w.vault))
}

fn locked_text() -> Text {
    Text::new("errVaultLocked")
}

pub async fn record() -> Option<VaultRecord> {
    if let Some(known) = kept(|k| k.record.borrow().clone()) {
        return known;
    }
    let raw = chrome::local_get(vault::RECORD_KEY).await.ok()?;
    let record = if raw.is_undefined() || raw.is_null() { None } else { Some(from_js(raw).ok()?) };
    kept(|k| *k.record.borrow_mut() = Some(record.clone()));
    record
}

/// The stored record changed behind the worker's back: read it again next time.
pub fn forget_record() {
    kept(|k| k.record.borrow_mut().take());
}

/// Forgets the key and the record kept in memory (Delete everything emptied both storages).
pub fn forget_all() {
    kept(|k| k.key.borrow_mut().take());
    forget_record();
}

/// The key of this browser session, once the passphrase was entered.
async fn key() -> Option<Rc<Vec<u8>>> {
    if let Some(key) = kept(|k| k.key.borrow().clone()) {
        return Some(key);
    }
    let raw = chrome::session_get(SESSION_KEY).await.ok()?.as_string()?;
    let key = Rc::new(URL_SAFE_NO_PAD.decode(raw).ok()?);
    kept(|k| *k.key.borrow_mut() = Some(key.clone()));
    Some(key)
}

pub async fn keep_key(key: Option<Vec<u8>>) -> Result<(), Text> {
    let stored = match &key {
        Some(key) => chrome::session_set(SESSION_KEY, &URL_SAFE_NO_PAD.encode(key).into()).await,
        None => chrome::session_remove(SESSION_KEY).await,
    };
    kept(|k| *k.key.borrow_mut() = key.map(Rc::new));
    stored.map_err(storage)
}

pub async fn state() -> VaultState {
    if record().await.is_none() {
        return VaultState::Off;
    }
    match key().await {
        None => VaultState::Locked,
        Some(_) => VaultState::Unlocked,
    }
}

pub async fn is_locked() -> bool {
    state().await == VaultState::Locked
}

/// Opens the sealed secrets of a document read from storage; `false` when they stay sealed
/// (locked). A secret that does not open stays as it is: nothing is ever dropped.
pub async fn open_settings(settings: &mut Settings) -> bool {
    if !vault::has_sealed(settings) {
        return true;
    }
    let Some(key) = key().await else { return false };
    for secret in vault::secrets_mut(settings) {
        if let Some(envelope) = Envelope::parse(secret.expose()) {
            if let Ok(text) = crypto::open(&key, &envelope).await {
                *secret = Secret::new(text);
            }
        }
    }
    !vault::has_sealed(settings)
}

/// The document as it is to be stored: every secret sealed when a passphrase is set.
pub async fn seal_settings(settings: &Settings) -> Result<Settings, Text> {
    if record().await.is_none() {
        return Ok(settings.clone());
    }
    let key = key().await.ok_or_else(locked_text)?;
    seal_settings_with(settings, &key).await
}

pub async fn seal_settings_with(settings: &Settings, key: &[u8]) -> Result<Settings, Text> {
    let mut sealed = settings.clone();
    for secret in vault::secrets_mut(&mut sealed) {
        if !secret.is_empty() && !vault::is_sealed(secret.expose()) {
            let envelope = crypto::seal(key, secret.expose()).await.map_err(failed)?;
            *secret = Secret::new(envelope.to_text());
        }
    }
    Ok(sealed)
}

/// A sign-in document as it is to be stored: one envelope when a passphrase is set.
pub async fn seal_json(value: JsValue) -> Result<JsValue, Text> {
    if record().await.is_none() {
        return Ok(value);
    }
    let key = key().await.ok_or_else(locked_text)?;
    seal_json_with(&value, &key).await
}

pub async fn seal_json_with(value: &JsValue, key: &[u8]) -> Result<JsValue, Text> {
    let text = js_sys::JSON::stringify(value).map_err(|_| Text::new("errUnknown"))?;
    let text = text.as_string().unwrap_or_default();
    Ok(crypto::seal(key, &text).await.map_err(failed)?.to_text().into())
}

/// A sign-in document as stored, opened; `None` while locked (or when it does not open).
pub async fn open_json(raw: JsValue) -> Option<JsValue> {
    let Some(envelope) = raw.as_string().and_then(|t| Envelope::parse(&t)) else {
        return Some(raw);
    };
    let key = key().await?;
    open_json_with(&envelope, &key).await
}

pub async fn open_json_with(envelope: &Envelope, key: &[u8]) -> Option<JsValue> {
    let text = crypto::open(key, envelope).await.ok()?;
    js_sys::JSON::parse(&text).ok()
}

/// Checks `passphrase` against the vault; its key.
pub async fn key_of(record: &VaultRecord, passphrase: &Secret) -> Result<Vec<u8>, Text> {
    let salt = URL_SAFE_NO_PAD.decode(&record.salt).map_err(|_| Text::new("errVaultDamaged"))?;
    let key =
        crypto::derive(passphrase.expose(), &salt, record.iterations).await.map_err(failed)?;
    let check = Envelope::parse(&record.check).ok_or_else(|| Text::new("errVaultDamaged"))?;
    match crypto::open(&key, &check).await {
        Ok(text) if text == CHECK_TEXT => Ok(key),
        _ => Err(Text::new("errVaultWrongPassphrase")),
    }
}

pub fn storage(error: gemipanel_browser::BrowserError) -> Text {
    Text::new("errStorage").arg(error.message())
}

pub fn failed(error: gemipanel_browser::BrowserError) -> Text {
    Text::new("errVaultFailed").arg(error.message())
}
