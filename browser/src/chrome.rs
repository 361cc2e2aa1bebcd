//! Bindings to the `chrome.*` extension APIs this project uses, and nothing more.

use js_sys::{Function, Object, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::chrome_options::{
    Command, ConnectInfo, ContextMenuItem, HeaderInfo, Permissions, Rule, RuleAction,
    RuleCondition, SidePanelOpen, UpdateRuleOptions, WebAuthFlowDetails, Window,
};
use crate::messaging::{from_object, to_object};
use crate::BrowserError;

#[wasm_bindgen]
extern "C" {
    /// A `chrome.runtime.Port`.
    #[derive(Debug, Clone)]
    pub type Port;

    #[wasm_bindgen(method, catch, js_name = postMessage)]
    fn post_message_js(this: &Port, message: &JsValue) -> Result<(), JsValue>;
    #[wasm_bindgen(method, getter, js_name = onMessage)]
    fn on_message_event(this: &Port) -> ChromeEvent;
    #[wasm_bindgen(method, getter, js_name = onDisconnect)]
    fn on_disconnect_event(this: &Port) -> ChromeEvent;
    #[wasm_bindgen(method)]
    pub fn disconnect(this: &Port);

    /// A `chrome.events.Event`.
    type ChromeEvent;
    #[wasm_bindgen(method, js_name = addListener)]
    fn add_listener(this: &ChromeEvent, listener: &Function);

    #[wasm_bindgen(catch, js_namespace = ["chrome", "runtime"], js_name = sendMessage)]
    fn runtime_send_message(message: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "runtime"], js_name = connect)]
    fn runtime_connect(info: &JsValue) -> Result<Port, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "runtime"], js_name = connectNative)]
    fn runtime_connect_native(application: &str) -> Result<Port, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "runtime"], js_name = getManifest)]
    fn runtime_get_manifest() -> Result<Object, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "storage", "local"], js_name = get)]
    fn storage_local_get(keys: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "storage", "local"], js_name = getKeys)]
    fn storage_local_get_keys() -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "storage", "local"], js_name = set)]
    fn storage_local_set(items: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "storage", "local", "onChanged"], js_name = addListener)]
    fn storage_local_on_changed(listener: &Function) -> Result<(), JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "storage", "sync"], js_name = get)]
    fn storage_sync_get(keys: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "storage", "sync"], js_name = set)]
    fn storage_sync_set(items: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "storage", "sync", "onChanged"], js_name = addListener)]
    fn storage_sync_on_changed(listener: &Function) -> Result<(), JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "storage", "local"], js_name = remove)]
    fn storage_local_remove(keys: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "storage", "session"], js_name = get)]
    fn storage_session_get(keys: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "storage", "session"], js_name = set)]
    fn storage_session_set(items: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "storage", "session", "onChanged"], js_name = addListener)]
    fn storage_session_on_changed(listener: &Function) -> Result<(), JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "contextMenus"], js_name = removeAll)]
    fn context_menus_remove_all() -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "contextMenus"], js_name = create)]
    fn context_menus_create(properties: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "storage", "session"], js_name = remove)]
    fn storage_session_remove(keys: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "storage", "local"], js_name = clear)]
    fn storage_local_clear() -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "storage", "session"], js_name = clear)]
    fn storage_session_clear() -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "permissions"], js_name = contains)]
    fn permissions_contains(permissions: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = crypto, js_name = getRandomValues)]
    fn crypto_get_random_values(array: &js_sys::Uint8Array) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "i18n"], js_name = getMessage)]
    fn i18n_get_message(name: &str, substitutions: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "i18n"], js_name = getUILanguage)]
    fn i18n_get_ui_language() -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "identity"], js_name = getRedirectURL)]
    fn identity_get_redirect_url(path: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "identity"], js_name = launchWebAuthFlow)]
    fn identity_launch_web_auth_flow(details: &JsValue) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "declarativeNetRequest"], js_name = updateSessionRules)]
    fn dnr_update_session_rules(options: &JsValue) -> Result<Promise, JsValue>;
}

/// `chrome.runtime.id`.
pub fn extension_id() -> Option<String> {
    let get = |target: &JsValue, key: &str| js_sys::Reflect::get(target, &key.into()).ok();
    let chrome = get(&js_sys::global(), "chrome")?;
    get(&get(&chrome, "runtime")?, "id")?.as_string()
}

/// Installs a `declarativeNetRequest` session rule that removes the `Origin` header from this
/// extension's own requests (not a tab's) to the URL `rule` matches; see
/// `core::oauth::origin_rule`. A rule with the same id is replaced.
pub async fn remove_origin_header(
    rule: &gemipanel_core::oauth::origin_rule::OriginRule,
) -> Result<(), BrowserError> {
    let doing = "adding a network rule";
    let id = extension_id().ok_or_else(|| BrowserError::new("the extension has no id"))?;
    let options = to_object(&UpdateRuleOptions {
        remove_rule_ids: [rule.id],
        add_rules: [Rule {
            id: rule.id,
            priority: 1,
            action: RuleAction {
                kind: "modifyHeaders",
                request_headers: [HeaderInfo { header: "origin", operation: "remove" }],
            },
            condition: RuleCondition {
                regex_filter: &rule.regex,
                resource_types: ["xmlhttprequest"],
                // Requests from no tab: the service worker's.
                tab_ids: [-1],
                initiator_domains: [&id],
            },
        }],
    })?;
    let promise =
        dnr_update_session_rules(&options).map_err(|e| BrowserError::from_js(doing, e))?;
    let _: JsValue = JsFuture::from(promise).await.map_err(|e| BrowserError::from_js(doing, e))?;
    Ok(())
}

/// `chrome.identity.getRedirectURL(path)`: `https://<extension id>.chromiumapp.org/<path>`.
pub fn redirect_url(path: &str) -> Result<String, BrowserError> {
    identity_get_redirect_url(path)
        .map_err(|e| BrowserError::from_js("reading the sign-in address", e))?
        .as_string()
        .ok_or_else(|| BrowserError::new("the browser gave no sign-in address"))
}

/// `chrome.identity.launchWebAuthFlow({url, interactive: true})`: the browser's own sign-in
/// window; resolves to the URL the authorization server sent it back to. `Err` when the person
/// closed the window (or the flow could not start).
pub async fn launch_web_auth_flow(url: &str) -> Result<String, BrowserError> {
    let details = to_object(&WebAuthFlowDetails { url, interactive: true })?;
    let promise = identity_launch_web_auth_flow(&details)
        .map_err(|e| BrowserError::from_js("opening the sign-in window", e))?;
    let answer: JsValue =
        JsFuture::from(promise).await.map_err(|e| BrowserError::from_js("signing in", e))?;
    answer.as_string().ok_or_else(|| BrowserError::new("the sign-in window returned nothing"))
}

impl Port {
    pub fn post(&self, message: &JsValue) -> Result<(), BrowserError> {
        self.post_message_js(message).map_err(|e| BrowserError::from_js("posting to the port", e))
    }

    /// Registers `listener` for messages; the closure lives as long as the page.
    pub fn on_message(&self, listener: impl FnMut(JsValue) + 'static) {
        let closure = Closure::<dyn FnMut(JsValue)>::new(listener);
        self.on_message_event().add_listener(closure.as_ref().unchecked_ref());
        closure.forget();
    }

    pub fn on_disconnect(&self, listener: impl FnMut() + 'static) {
        let closure = Closure::<dyn FnMut()>::new(listener);
        self.on_disconnect_event().add_listener(closure.as_ref().unchecked_ref());
        closure.forget();
    }

    /// Whether two handles are the same port object.
    pub fn is(&self, other: &Port) -> bool {
        Object::is(self, other)
    }
}

/// `chrome.runtime.connect({name})`.
pub fn connect(name: &str) -> Result<Port, BrowserError> {
    let info = to_object(&ConnectInfo { name })?;
    runtime_connect(&info).map_err(|e| BrowserError::from_js("connecting to the worker", e))
}

/// `chrome.runtime.connectNative(host)`: a port to a native-messaging host. A host that is not
/// installed or not allowed shows only later, as the port's disconnect (see [`last_error`]).
pub fn connect_native(host: &str) -> Result<Port, BrowserError> {
    runtime_connect_native(host).map_err(|e| BrowserError::from_js("connecting to the bridge", e))
}

/// `chrome.runtime.lastError.message`, as read inside an extension callback (`onDisconnect`).
pub fn last_error() -> Option<String> {
    let get = |object: &JsValue, key: &str| js_sys::Reflect::get(object, &key.into()).ok();
    let chrome = get(&js_sys::global(), "chrome")?;
    let error = get(&get(&chrome, "runtime")?, "lastError")?;
    get(&error, "message")?.as_string()
}

/// `chrome.runtime.sendMessage(message)`, resolved to the answer.
pub async fn send_message(message: &JsValue) -> Result<JsValue, BrowserError> {
    let promise = runtime_send_message(message)
        .map_err(|e| BrowserError::from_js("sending to the worker", e))?;
    let answer: JsValue = JsFuture::from(promise)
        .await
        .map_err(|e| BrowserError::from_js("waiting for the worker", e))?;
    Ok(answer)
}

/// `version` from the extension's manifest.
pub fn extension_version() -> String {
    runtime_get_manifest()
        .ok()
        .and_then(|m| js_sys::Reflect::get(&m, &"version".into()).ok())
        .and_then(|v| v.as_string())
        .unwrap_or_default()
}

/// Reads one key of `chrome.storage.local`; `undefined` when absent.
pub async fn local_get(key: &str) -> Result<JsValue, BrowserError> {
    let promise =
        storage_local_get(&key.into()).map_err(|e| BrowserError::from_js("reading storage", e))?;
    let items: JsValue =
        JsFuture::from(promise).await.map_err(|e| BrowserError::from_js("reading storage", e))?;
    js_sys::Reflect::get(&items, &key.into())
        .map_err(|e| BrowserError::from_js("reading storage", e))
}

/// The names of every key of `chrome.storage.local`, without reading their values.
pub async fn local_keys() -> Result<Vec<String>, BrowserError> {
    let fail = |e| BrowserError::from_js("listing storage", e);
    let keys = JsFuture::from(storage_local_get_keys().map_err(fail)?).await.map_err(fail)?;
    Ok(js_sys::Array::from(&keys).iter().filter_map(|key| key.as_string()).collect())
}

/// Every key of `chrome.storage.local` whose name starts with `prefix`, with its value.
pub async fn local_get_prefixed(prefix: &str) -> Result<Vec<(String, JsValue)>, BrowserError> {
    get_prefixed(storage_local_get(&JsValue::NULL), prefix, "reading storage").await
}

/// Every key of `chrome.storage.sync` whose name starts with `prefix`, with its value.
pub async fn sync_get_prefixed(prefix: &str) -> Result<Vec<(String, JsValue)>, BrowserError> {
    get_prefixed(storage_sync_get(&JsValue::NULL), prefix, "reading synced storage").await
}

/// The items of a storage area's `get(null)` whose key starts with `prefix`.
async fn get_prefixed(
    get: Result<Promise, JsValue>,
    prefix: &str,
    doing: &'static str,
) -> Result<Vec<(String, JsValue)>, BrowserError> {
    let fail = |e| BrowserError::from_js(doing, e);
    let items: JsValue = JsFuture::from(get.map_err(fail)?).await.map_err(fail)?;
    let items: Object = items.unchecked_into();
    Ok(Object::entries(&items)
        .iter()
        .filter_map(|entry| {
            let entry: js_sys::Array = entry.unchecked_into();
            let key = entry.get(0).as_string()?;
            key.starts_with(prefix).then(|| (key, entry.get(1)))
        })
        .collect())
}

/// Writes several keys of `chrome.storage.sync` in one write (refused whole over its quotas).
pub async fn sync_set_all(entries: &[(String, JsValue)]) -> Result<(), BrowserError> {
    let fail = |e| BrowserError::from_js("writing synced storage", e);
    let items = Object::new();
    for (key, value) in entries {
        js_sys::Reflect::set(&items, &key.into(), value).map_err(fail)?;
    }
    let _: JsValue = JsFuture::from(storage_sync_set(&items).map_err(fail)?).await.map_err(fail)?;
    Ok(())
}

/// Calls `listener` with each key of `chrome.storage.sync` that changed (here or on another
/// computer).
pub fn on_sync_storage_changed(listener: impl FnMut(&str) + 'static) -> Result<(), BrowserError> {
    on_storage_changed(storage_sync_on_changed, "watching synced storage", listener)
}

/// Calls `listener` with each key of `chrome.storage.local` that anyone (this context or
/// another) changed.
pub fn on_local_storage_changed(listener: impl FnMut(&str) + 'static) -> Result<(), BrowserError> {
    on_storage_changed(storage_local_on_changed, "watching storage", listener)
}

/// Adds `listener`, called with each changed key, to a storage area's `onChanged` (`add`).
fn on_storage_changed(
    add: fn(&Function) -> Result<(), JsValue>,
    doing: &'static str,
    mut listener: impl FnMut(&str) + 'static,
) -> Result<(), BrowserError> {
    let closure = Closure::<dyn FnMut(JsValue)>::new(move |changes: JsValue| {
        let changes: Object = changes.unchecked_into();
        for key in Object::keys(&changes).iter().filter_map(|k| k.as_string()) {
            listener(&key);
        }
    });
    add(closure.as_ref().unchecked_ref()).map_err(|e| BrowserError::from_js(doing, e))?;
    closure.forget();
    Ok(())
}

/// Writes one key of `chrome.storage.local`.
pub async fn local_set(key: &str, value: &JsValue) -> Result<(), BrowserError> {
    local_set_all(&[(key, value)]).await
}

/// Writes several keys of `chrome.storage.local` in one write: all of them or none.
pub async fn local_set_all(entries: &[(&str, &JsValue)]) -> Result<(), BrowserError> {
    let items = Object::new();
    for (key, value) in entries {
        js_sys::Reflect::set(&items, &(*key).into(), value)
            .map_err(|e| BrowserError::from_js("writing storage", e))?;
    }
    let promise =
        storage_local_set(&items).map_err(|e| BrowserError::from_js("writing storage", e))?;
    let _: JsValue =
        JsFuture::from(promise).await.map_err(|e| BrowserError::from_js("writing storage", e))?;
    Ok(())
}

/// Removes one key of `chrome.storage.local`.
/// Removes several keys of `chrome.storage.local` in one call.
pub async fn local_remove_all(keys: &[String]) -> Result<(), BrowserError> {
    let array: js_sys::Array = keys.iter().map(|k| JsValue::from_str(k)).collect();
    let promise = storage_local_remove(&array.into())
        .map_err(|e| BrowserError::from_js("writing storage", e))?;
    let _: JsValue =
        JsFuture::from(promise).await.map_err(|e| BrowserError::from_js("writing storage", e))?;
    Ok(())
}

pub async fn local_remove(key: &str) -> Result<(), BrowserError> {
    let promise = storage_local_remove(&key.into())
        .map_err(|e| BrowserError::from_js("writing storage", e))?;
    let _: JsValue =
        JsFuture::from(promise).await.map_err(|e| BrowserError::from_js("writing storage", e))?;
    Ok(())
}

/// Empties `chrome.storage.local` and then `chrome.storage.session` (Delete everything).
pub async fn clear_storage() -> Result<(), BrowserError> {
    let doing = "emptying storage";
    for clearing in [storage_local_clear(), storage_session_clear()] {
        let promise = clearing.map_err(|e| BrowserError::from_js(doing, e))?;
        let _: JsValue =
            JsFuture::from(promise).await.map_err(|e| BrowserError::from_js(doing, e))?;
    }
    Ok(())
}

/// Reads one key of `chrome.storage.session` (kept while the browser runs, across worker
/// restarts); `undefined` when absent.
pub async fn session_get(key: &str) -> Result<JsValue, BrowserError> {
    let doing = "reading session storage";
    let promise = storage_session_get(&key.into()).map_err(|e| BrowserError::from_js(doing, e))?;
    let items: JsValue =
        JsFuture::from(promise).await.map_err(|e| BrowserError::from_js(doing, e))?;
    js_sys::Reflect::get(&items, &key.into()).map_err(|e| BrowserError::from_js(doing, e))
}

/// Writes one key of `chrome.storage.session`.
pub async fn session_set(key: &str, value: &JsValue) -> Result<(), BrowserError> {
    let doing = "writing session storage";
    let items = Object::new();
    js_sys::Reflect::set(&items, &key.into(), value)
        .map_err(|e| BrowserError::from_js(doing, e))?;
    let promise = storage_session_set(&items).map_err(|e| BrowserError::from_js(doing, e))?;
    let _: JsValue = JsFuture::from(promise).await.map_err(|e| BrowserError::from_js(doing, e))?;
    Ok(())
}

/// Removes one key of `chrome.storage.session`.
pub async fn session_remove(key: &str) -> Result<(), BrowserError> {
    let doing = "writing session storage";
    let promise =
        storage_session_remove(&key.into()).map_err(|e| BrowserError::from_js(doing, e))?;
    let _: JsValue = JsFuture::from(promise).await.map_err(|e| BrowserError::from_js(doing, e))?;
    Ok(())
}

/// Calls `listener` with each key of `chrome.storage.session` that anyone changed.
pub fn on_session_storage_changed(
    listener: impl FnMut(&str) + 'static,
) -> Result<(), BrowserError> {
    on_storage_changed(storage_session_on_changed, "watching session storage", listener)
}

/// Replaces the extension's context menu items with `items`: (id, title, context).
pub async fn set_context_menu(items: &[(&str, String, &str)]) -> Result<(), BrowserError> {
    let doing = "registering the context menu";
    let cleared = context_menus_remove_all().map_err(|e| BrowserError::from_js(doing, e))?;
    let _: JsValue = JsFuture::from(cleared).await.map_err(|e| BrowserError::from_js(doing, e))?;
    for (id, title, context) in items {
        let properties = to_object(&ContextMenuItem { id, title, contexts: [context] })?;
        context_menus_create(&properties).map_err(|e| BrowserError::from_js(doing, e))?;
    }
    Ok(())
}

/// Whether the extension may fetch from `origin_pattern` (e.g. `https://example.com/*`).
pub async fn has_host_permission(origin_pattern: &str) -> Result<bool, BrowserError> {
    let doing = "checking site access";
    let query =
        to_object(&Permissions { origins: &[origin_pattern.to_owned()], ..Default::default() })?;
    let promise = permissions_contains(&query).map_err(|e| BrowserError::from_js(doing, e))?;
    let granted = JsFuture::from(promise).await.map_err(|e| BrowserError::from_js(doing, e))?;
    Ok(granted.as_bool() == Some(true))
}

/// Whether the extension holds the API permission `name` (an optional one, say).
pub async fn has_permission(name: &str) -> bool {
    let Ok(query) = to_object(&Permissions { permissions: &[name], ..Default::default() }) else {
        return false;
    };
    let Ok(promise) = permissions_contains(&query) else { return false };
    JsFuture::from(promise).await.ok().and_then(|v| v.as_bool()).unwrap_or(false)
}

/// The optional permission local servers need: the bridge is reached through
/// `chrome.runtime.connectNative`, which Chrome defines only while it is granted.
pub const NATIVE_MESSAGING: &str = "nativeMessaging";

/// Whether `chrome.runtime.connectNative` exists here (the permission is granted), checked
/// before calling it: without it the call is a `TypeError` that says nothing to a person.
pub fn can_connect_native() -> bool {
    let get = |object: &JsValue, key: &str| js_sys::Reflect::get(object, &key.into()).ok();
    get(&js_sys::global(), "chrome")
        .and_then(|chrome| get(&chrome, "runtime"))
        .and_then(|runtime| get(&runtime, "connectNative"))
        .is_some_and(|f| f.is_function())
}

/// `N` bytes from `crypto.getRandomValues`.
pub fn random_bytes<const N: usize>() -> Result<[u8; N], BrowserError> {
    let array = js_sys::Uint8Array::new_with_length(N as u32);
    crypto_get_random_values(&array)
        .map_err(|e| BrowserError::from_js("drawing random bytes", e))?;
    let mut bytes = [0u8; N];
    array.copy_to(&mut bytes);
    Ok(bytes)
}

/// A localized string from `_locales`, with `$1`… substitutions; the key itself when missing,
/// so a forgotten translation is visible instead of blank.
pub fn message(key: &str, substitutions: &[&str]) -> String {
    let subs: js_sys::Array = substitutions.iter().map(|s| JsValue::from_str(s)).collect();
    match i18n_get_message(key, &subs) {
        Ok(text) => match text.as_string() {
            Some(text) if !text.is_empty() => text,
            _ => key.to_owned(),
        },
        Err(_) => key.to_owned(),
    }
}

/// Words one of core's texts (`core::text`) in the UI language; a key the locale files lack
/// falls back to core's English.
pub fn word(text: &gemipanel_core::text::Text) -> String {
    text.word(&|key, args| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let worded = message(key, &args);
        if worded == key {
            gemipanel_core::text::english(
                key,
                &args.iter().map(|a| a.to_string()).collect::<Vec<_>>(),
            )
        } else {
            Some(worded)
        }
    })
}

/// `message` for a sentence about `count` things, in the plural form the UI language uses
/// (`Intl.PluralRules`): the key with the category appended (`<key>One`, `<key>Few`, …) when the
/// locale files define it, else the key itself (the `other` form).
pub fn counted_message(key: &str, count: usize, substitutions: &[&str]) -> String {
    let category = plural_category(count);
    let mut chars = category.chars();
    let suffix: String = match chars.next() {
        Some(first) if category != "other" => first.to_uppercase().chain(chars).collect(),
        _ => String::new(),
    };
    if !suffix.is_empty() {
        let variant = message(&format!("{key}{suffix}"), substitutions);
        if variant != format!("{key}{suffix}") {
            return variant;
        }
    }
    message(key, substitutions)
}

/// The browser's UI language (`en-US`, `ja`), which picks the `_locales` folder.
pub fn ui_language() -> String {
    i18n_get_ui_language().ok().and_then(|l| l.as_string()).unwrap_or_else(|| "en".into())
}

/// `new Intl.PluralRules(<UI language>).select(count)`: "one", "other", …
fn plural_category(count: usize) -> String {
    let locales = js_sys::Array::of1(&JsValue::from_str(&ui_language()));
    let rules = js_sys::Intl::PluralRules::new(&locales, &js_sys::Object::new());
    rules.select(count as f64).as_string().unwrap_or_else(|| "other".into())
}

/// A number in the person's locale (`Intl.NumberFormat`), with at most two decimals: "1,234.5".
pub fn number(value: f64) -> String {
    let locales = js_sys::Array::of1(&JsValue::from_str(&ui_language()));
    let options = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&options, &"maximumFractionDigits".into(), &2.into());
    let format = js_sys::Intl::NumberFormat::new(&locales, &options).format();
    format.call1(&JsValue::NULL, &value.into()).ok().and_then(|s| s.as_string()).unwrap_or_default()
}

// --- The popup's calls: side panel, windows, host permissions, commands. ---

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = ["chrome", "sidePanel"], js_name = open)]
    fn side_panel_open(options: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "windows"], js_name = getCurrent)]
    fn windows_get_current() -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "permissions"], js_name = request)]
    fn permissions_request(permissions: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "commands"], js_name = getAll)]
    fn commands_get_all() -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabs"], js_name = create)]
    fn tabs_create(properties: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "runtime"], js_name = getURL)]
    fn runtime_get_url(path: &str) -> Result<JsValue, JsValue>;
}

/// Opens `url` in a new tab (`chrome.tabs.create`, no permission needed): a page of the
/// extension by its path (`welcome.html`), or a `chrome://` page, which a link cannot open.
pub async fn open_tab(url: &str) -> Result<(), BrowserError> {
    let doing = "opening a tab";
    let url = if url.contains("://") {
        url.to_owned()
    } else {
        runtime_get_url(url)
            .ok()
            .and_then(|u| u.as_string())
            .ok_or_else(|| BrowserError::new("opening a tab: no extension URL"))?
    };
    let properties = js_sys::Object::new();
    js_sys::Reflect::set(&properties, &"url".into(), &url.into())
        .map_err(|e| BrowserError::from_js(doing, e))?;
    let promise = tabs_create(&properties).map_err(|e| BrowserError::from_js(doing, e))?;
    let _: JsValue = JsFuture::from(promise).await.map_err(|e| BrowserError::from_js(doing, e))?;
    Ok(())
}

/// `chrome.sidePanel.open({windowId})`. Chrome only allows it during a user gesture, so the call
/// is made before this returns (call it straight from the click handler); the future only waits.
pub fn open_side_panel(
    window_id: i32,
) -> impl std::future::Future<Output = Result<(), BrowserError>> {
    let started = to_object(&SidePanelOpen { window_id }).and_then(|options| {
        side_panel_open(&options).map_err(|e| BrowserError::from_js("opening the side panel", e))
    });
    async move {
        let promise = started?;
        let _: JsValue = JsFuture::from(promise)
            .await
            .map_err(|e| BrowserError::from_js("opening the side panel", e))?;
        Ok(())
    }
}

/// The id of the window this page is shown in (`chrome.windows.getCurrent`).
pub async fn current_window_id() -> Result<i32, BrowserError> {
    let promise =
        windows_get_current().map_err(|e| BrowserError::from_js("finding the window", e))?;
    let window: JsValue = JsFuture::from(promise)
        .await
        .map_err(|e| BrowserError::from_js("finding the window", e))?;
    from_object::<Window>(window)?
        .id
        .ok_or_else(|| BrowserError::new("finding the window: it has no id"))
}

/// `chrome.permissions.request({origins})`: whether the person granted them. Like
/// [`open_side_panel`], the request is made before this returns, inside the user gesture.
pub fn request_origins(
    origins: &[String],
) -> impl std::future::Future<Output = Result<bool, BrowserError>> {
    request_permissions(&[], origins)
}

/// `chrome.permissions.request({permissions, origins})`: one prompt for optional API
/// permissions and sites together; whether the person granted all of them. Already granted,
/// it answers `true` without a prompt. Made before this returns, inside the user gesture.
pub fn request_permissions(
    permissions: &[&str],
    origins: &[String],
) -> impl std::future::Future<Output = Result<bool, BrowserError>> {
    let started = to_object(&Permissions { permissions, origins }).and_then(|request| {
        permissions_request(&request).map_err(|e| BrowserError::from_js("asking for permission", e))
    });
    async move {
        let promise = started?;
        let granted: JsValue = JsFuture::from(promise)
            .await
            .map_err(|e| BrowserError::from_js("asking for permission", e))?;
        Ok(granted.as_bool().unwrap_or(false))
    }
}

/// The keyboard shortcut the person has for the manifest command `name`, if any is set.
pub async fn command_shortcut(name: &str) -> Option<String> {
    let commands: JsValue = JsFuture::from(commands_get_all().ok()?).await.ok()?;
    let commands: Vec<Command> = from_object(commands).ok()?;
    commands
        .into_iter()
        .find(|command| command.name.as_deref() == Some(name))?
        .shortcut
        .filter(|s| !s.is_empty())
}
