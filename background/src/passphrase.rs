//! The passphrase requests (`Request::SetPassphrase`, `RemovePassphrase`, `Unlock`): what
//! changes the key of every stored secret at once, under the settings' turn. The key itself and
//! the envelopes are `vault`'s.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use gemipanel_browser::chrome;
use gemipanel_browser::messaging::to_js;
use gemipanel_browser::vault as crypto;
use gemipanel_core::messages::Event;
use gemipanel_core::oauth::Credentials;
use gemipanel_core::settings::Secret;
use gemipanel_core::text::Text;
use gemipanel_core::vault::{Envelope, VaultRecord, CHECK_TEXT, ITERATIONS, RECORD_KEY};
use wasm_bindgen::JsValue;

use crate::vault::{
    failed, forget_record, keep_key, key_of, open_json_with, record, seal_json_with,
    seal_settings_with, storage, SIGN_IN_KEYS,
};
use crate::{ports, store};

/// Opens the secrets for this browser session; the pages then get the settings again.
pub async fn unlock(passphrase: &Secret) -> Result<(), Text> {
    let record = record().await.ok_or_else(|| Text::new("errVaultNone"))?;
    let key = key_of(&record, passphrase).await?;
    keep_key(Some(key)).await?;
    settings_changed().await;
    Ok(())
}

/// Seals every stored secret under `passphrase` (replacing the one set, which `current` must
/// be), or with `None` stores them as they are again (`current` the one set).
pub async fn rekey(passphrase: Option<&Secret>, current: Option<&Secret>) -> Result<(), Text> {
    if passphrase.is_some_and(|p| p.expose().chars().count() < 8) {
        return Err(Text::new("errVaultShortPassphrase"));
    }
    // No edit in between: the document and the sign-in documents change in one write.
    let _turn = store::hold().await;
    let old_key = match record().await {
        Some(record) => Some(
            key_of(&record, current.ok_or_else(|| Text::new("errVaultWrongPassphrase"))?).await?,
        ),
        None if passphrase.is_none() => return Err(Text::new("errVaultNone")),
        None => None,
    };
    if old_key.is_some() {
        keep_key(old_key.clone()).await?;
    }
    let settings = store::read_for_rewrite().await?;
    let new = match passphrase {
        Some(passphrase) => {
            let salt: [u8; 16] = chrome::random_bytes().map_err(failed)?;
            let key =
                crypto::derive(passphrase.expose(), &salt, ITERATIONS).await.map_err(failed)?;
            let check = crypto::seal(&key, CHECK_TEXT).await.map_err(failed)?.to_text();
            let record = VaultRecord {
                version: 1,
                salt: URL_SAFE_NO_PAD.encode(salt),
                iterations: ITERATIONS,
                check,
            };
            Some((key, record))
        }
        None => None,
    };
    // Everything as it is to be stored under the new key (or none), written at once.
    let mut entries: Vec<(String, JsValue)> = Vec::new();
    let document = match &new {
        Some((key, _)) => seal_settings_with(&settings, key).await?,
        None => settings.clone(),
    };
    entries.push((store::KEY.to_owned(), to_js(&document).map_err(failed)?));
    let mut sign_in =
        chrome::local_get_prefixed(Credentials::STORAGE_PREFIX).await.map_err(storage)?;
    for key in SIGN_IN_KEYS {
        let value = chrome::local_get(key).await.map_err(storage)?;
        if !value.is_undefined() {
            sign_in.push((key.to_owned(), value));
        }
    }
    for (name, value) in sign_in.into_iter().filter(|(_, v)| !v.is_null()) {
        let opened = match (value.as_string().and_then(|t| Envelope::parse(&t)), &old_key) {
            (Some(envelope), Some(old)) => match open_json_with(&envelope, old).await {
                Some(opened) => opened,
                None => continue,
            },
            _ => value,
        };
        let stored = match &new {
            Some((key, _)) => seal_json_with(&opened, key).await?,
            None => opened,
        };
        entries.push((name, stored));
    }
    match &new {
        Some((_, record)) => entries.push((RECORD_KEY.to_owned(), to_js(record).map_err(failed)?)),
        None => entries.push((RECORD_KEY.to_owned(), JsValue::NULL)),
    }
    let refs: Vec<(&str, &JsValue)> = entries.iter().map(|(k, v)| (k.as_str(), v)).collect();
    forget_record();
    chrome::local_set_all(&refs).await.map_err(storage)?;
    if new.is_none() {
        let _ = chrome::local_remove(RECORD_KEY).await;
    }
    forget_record();
    keep_key(new.map(|(key, _)| key)).await?;
    store::forget_cached();
    Ok(())
}

async fn settings_changed() {
    store::forget_cached();
    if let Ok(settings) = store::read().await {
        ports::broadcast(Event::SettingsChanged { settings: settings.for_pages() });
    }
}
