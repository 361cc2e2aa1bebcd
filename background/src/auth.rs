//! Signing in to MCP servers: core's [`Authorizer`] with the browser as its host (fetch without
//! redirects, `chrome.identity.launchWebAuthFlow`, `chrome.storage.local`).
//!
//! Tokens stay here: under `oauth_credentials:<server id>` (one server's credentials),
//! `oauth_clients` (clients registered per issuer, reused by every server behind it) and
//! `oauth_idp_sessions` (sign-ins at enterprise identity providers). A server's DPoP key is a
//! non-extractable `CryptoKey` in IndexedDB (`gemipanel_browser::keys`). No message to a page
//! carries any of them; pages see [`SignedInView`] (issuer and scopes).
//!
//! Sign-in's POSTs (token, registration, revocation) leave without an `Origin` header, through
//! a session rule for the one URL (`core::oauth::origin_rule`): authorization servers that
//! check the origin of browser requests would refuse the extension's.

use std::rc::Rc;
use std::time::Duration;

use gemipanel_browser::chrome;
use gemipanel_browser::http::{self, now_ms};
use gemipanel_browser::keys::{self, DpopKey};
use gemipanel_browser::messaging::{from_js, to_js};
use gemipanel_browser::timers;
use gemipanel_core::mcp::{HttpRequest, Method, ResponseBody};
use gemipanel_core::messages::{SignInOutcome, SignedInView};
use gemipanel_core::oauth::authorizer::{AuthorizerHost, Failure};
use gemipanel_core::oauth::dpop::ProofSigner;
use gemipanel_core::oauth::drive::OAuthHost;
use gemipanel_core::oauth::enterprise::IdpSession;
use gemipanel_core::oauth::origin_rule::OriginRule;
use gemipanel_core::oauth::{
    self, Credentials, Randomness, RegisteredClient, Response, MAX_DOCUMENT_BYTES,
};
use gemipanel_core::settings::{Server, ServerId};
use gemipanel_core::sync::{within, FifoLock};
use gemipanel_core::tool_cache::CachedTools;
use gemipanel_core::web_url;
use wasm_bindgen::JsValue;

use crate::worker::{self, SignInState};

pub use gemipanel_core::oauth::authorizer::{authorized, Authorizer, Interaction};

/// The longest one exchange with an authorization server may take.
const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(30);

const CLIENTS_KEY: &str = "oauth_clients";
const IDP_SESSIONS_KEY: &str = "oauth_idp_sessions";

fn credentials_key(id: &ServerId) -> String {
    Credentials::storage_key(id)
}

/// Whether the orphans of this browser session were looked for (`chrome.storage.session`).
const ORPHANS_CHECKED_KEY: &str = "oauth_orphans_checked";

/// Runs `f` on sign-in's part of the worker's state.
fn state<R>(f: impl FnOnce(&SignInState) -> R) -> R {
    worker::with(|w| f(&w.sign_in))
}

fn clients_lock() -> Rc<FifoLock> {
    state(|s| s.clients_lock.clone())
}

/// `chrome.identity.getRedirectURL("oauth")`, where the authorization server sends the browser
/// back to; the sign-in window closes when it gets there.
pub fn redirect_uri() -> String {
    chrome::redirect_url("oauth").unwrap_or_default()
}

/// The credentials kept for `id`, if any (and readable).
pub async fn stored_credentials(id: &ServerId) -> Option<Credentials> {
    let raw = chrome::local_get(&credentials_key(id)).await.ok()?;
    // `null`: blanked with the server's removal, not yet taken away.
    if raw.is_undefined() || raw.is_null() {
        return None;
    }
    // Sealed under the person's passphrase: none while it is not entered.
    let raw = crate::vault::open_json(raw).await?;
    match from_js(raw) {
        Ok(credentials) => Some(credentials),
        Err(e) => {
            // Unreadable credentials are as good as none: the person signs in again.
            web_sys::console::warn_1(&format!("stored sign-in of {id} unreadable: {e}").into());
            None
        }
    }
}

/// What is left of a removed server's sign-in goes: its tokens are revoked where the
/// authorization server offers RFC 7009 revocation (`credentials`, read before the removal
/// blanked them), its DPoP key is deleted and the blank is taken away. Revocation is a
/// courtesy: the tokens are already gone from storage whatever it answers.
pub async fn forget(id: &str, credentials: Option<Credentials>) {
    if let Some(credentials) = credentials {
        let host =
            Host { server_id: ServerId::parse(id).unwrap_or_else(|| ServerId::generate([0; 16])) };
        for result in oauth::drive::revoke(&host, &credentials).await {
            if let Err(e) = result {
                web_sys::console::warn_1(
                    &format!("revocation of a removed server's tokens: {e:?}").into(),
                );
            }
        }
    }
    if let Err(e) = DpopKey::delete(id).await {
        web_sys::console::warn_1(&format!("the DPoP key of {id} was not deleted: {e}").into());
    }
    let _ = chrome::local_remove(&format!("{}{id}", Credentials::STORAGE_PREFIX)).await;
}

/// Once a browser session, after the worker started: what is kept for servers no longer in
/// the settings (credentials, DPoP keys, tool lists), left by a removal that did not finish or
/// an older version, goes as a removal's would. Never while the settings cannot be read: then
/// every server would look gone.
pub async fn clean_orphans() {
    for id in orphans_to_clean().await {
        let kept = chrome::local_get(&format!("{}{id}", Credentials::STORAGE_PREFIX)).await;
        let kept: Option<Credentials> =
            kept.ok().filter(|v| v.is_object()).and_then(|v| from_js(v).ok());
        forget(&id, kept).await;
        let _ = chrome::local_remove(&format!("{}{id}", CachedTools::STORAGE_PREFIX)).await;
    }
}

/// The ids of the servers something is kept for that are no longer in the settings, marking
/// the browser session as checked when anything was kept at all. It holds the settings' turn,
/// as Delete everything does: it runs wholly before or wholly after one, so it never marks
/// storage that was just emptied. With nothing kept for any server (a first install, after
/// Delete everything) nothing is marked: finding that out again costs two key listings.
async fn orphans_to_clean() -> Vec<String> {
    let _turn = crate::store::hold().await;
    if chrome::session_get(ORPHANS_CHECKED_KEY).await.is_ok_and(|v| !v.is_undefined()) {
        return Vec::new();
    }
    let Ok(keys) = chrome::local_keys().await else { return Vec::new() };
    let dpop_ids = DpopKey::ids().await.unwrap_or_default();
    let kept_for: Vec<&str> = keys
        .iter()
        .filter_map(|key| {
            key.strip_prefix(Credentials::STORAGE_PREFIX)
                .or_else(|| key.strip_prefix(CachedTools::STORAGE_PREFIX))
        })
        .chain(dpop_ids.iter().map(String::as_str))
        .collect();
    if kept_for.is_empty() || crate::store::problem().await.is_some() {
        return Vec::new();
    }
    let Ok(settings) = crate::store::read_for_rewrite().await else { return Vec::new() };
    let _ = chrome::session_set(ORPHANS_CHECKED_KEY, &JsValue::TRUE).await;
    settings.orphans(kept_for)
}

/// The browser side of one server's sign-in.
pub struct Host {
    pub server_id: ServerId,
}

/// Makes sure POSTs to `url` leave without an `Origin` header (see the top of the module). A
/// browser without `declarativeNetRequest` sends it as before; the server's refusal then says
/// what happened (`oauth::Error::OriginRefused`).
async fn without_origin(url: &str) {
    if state(|s| s.without_origin.borrow().iter().any(|u| u == url)) {
        return;
    }
    match chrome::remove_origin_header(&OriginRule::for_url(url)).await {
        Ok(()) => state(|s| s.without_origin.borrow_mut().push(url.to_owned())),
        Err(e) => {
            web_sys::console::warn_1(&format!("requests to {url} keep their Origin: {e}").into())
        }
    }
}

impl OAuthHost for Host {
    async fn send(&self, request: HttpRequest) -> Result<Response, String> {
        if request.method == Method::Post {
            without_origin(&request.url).await;
        }
        let exchange = async {
            let mut response = http::send(request).await.map_err(|e| e.to_string())?;
            let mut body = Vec::new();
            while let Some(chunk) = response.body.next_chunk().await.map_err(|e| e.to_string())? {
                body.extend_from_slice(&chunk);
                if body.len() > MAX_DOCUMENT_BYTES {
                    // One byte past the cap is enough for core to refuse it.
                    body.truncate(MAX_DOCUMENT_BYTES + 1);
                    break;
                }
            }
            Ok(Response { status: response.status, headers: response.headers, body })
        };
        within(exchange, timers::sleep(EXCHANGE_TIMEOUT))
            .await
            .unwrap_or_else(|| Err(format!("no answer within {} s", EXCHANGE_TIMEOUT.as_secs())))
    }

    async fn authorize(&self, url: &str) -> Option<String> {
        match chrome::launch_web_auth_flow(url).await {
            Ok(landed) => Some(landed),
            Err(e) => {
                // Closing the window is the common case; the flow reports it as cancelled.
                web_sys::console::info_1(&format!("sign-in window: {e}").into());
                None
            }
        }
    }

    fn now_ms(&self) -> u64 {
        now_ms()
    }

    fn random_id(&self) -> Option<[u8; 16]> {
        chrome::random_bytes().ok()
    }

    async fn sign_with_key(&self, pkcs8: &[u8], input: &[u8]) -> Result<Vec<u8>, String> {
        keys::sign_with_pkcs8(pkcs8, input).await.map_err(|e| e.to_string())
    }
}

impl AuthorizerHost for Host {
    fn randomness(&self) -> Option<Randomness> {
        Some(Randomness {
            code_verifier: chrome::random_bytes().ok()?,
            state: chrome::random_bytes().ok()?,
        })
    }

    async fn registered_clients(&self) -> Vec<RegisteredClient> {
        read_clients().await
    }

    async fn keep_client(&self, client: &RegisteredClient) {
        let lock = clients_lock();
        let _turn = lock.lock().await;
        let mut clients = read_clients().await;
        clients.retain(|c| c.issuer != client.issuer);
        clients.push(client.clone());
        if let Err(e) = write(CLIENTS_KEY, &clients).await {
            web_sys::console::warn_1(&format!("the registered client was not kept: {e}").into());
        }
    }

    async fn keep_credentials(&self, credentials: Option<&Credentials>) {
        let key = credentials_key(&self.server_id);
        let result = match credentials {
            Some(credentials) => write(&key, credentials).await,
            None => chrome::local_remove(&key).await.map_err(|e| e.to_string()),
        };
        if let Err(e) = result {
            web_sys::console::warn_1(&format!("the sign-in was not kept: {e}").into());
        }
    }

    async fn proof_signer(&self) -> Option<Rc<dyn ProofSigner>> {
        match DpopKey::get(self.server_id.as_str(), true).await {
            Ok(key) => key.map(|k| Rc::new(k) as Rc<dyn ProofSigner>),
            Err(e) => {
                // Without a key the tokens are bearer tokens, as before DPoP.
                web_sys::console::warn_1(&format!("no DPoP key: {e}").into());
                None
            }
        }
    }

    async fn idp_sessions(&self) -> Vec<IdpSession> {
        read_list(IDP_SESSIONS_KEY).await
    }

    async fn keep_idp_session(&self, session: &IdpSession) {
        let lock = clients_lock();
        let _turn = lock.lock().await;
        let mut sessions: Vec<IdpSession> = read_list(IDP_SESSIONS_KEY).await;
        sessions.retain(|s| !(s.issuer == session.issuer && s.client_id == session.client_id));
        sessions.push(session.clone());
        if let Err(e) = write(IDP_SESSIONS_KEY, &sessions).await {
            web_sys::console::warn_1(
                &format!("the identity provider's sign-in was not kept: {e}").into(),
            );
        }
    }
}

/// The DPoP key a server's kept credentials are bound to, if they are and it is there.
pub async fn kept_signer(
    id: &ServerId,
    credentials: Option<&Credentials>,
) -> Option<Rc<dyn ProofSigner>> {
    credentials.filter(|c| c.is_bound())?;
    match DpopKey::get(id.as_str(), false).await {
        Ok(key) => key.map(|k| Rc::new(k) as Rc<dyn ProofSigner>),
        Err(_) => None,
    }
}

async fn read_clients() -> Vec<RegisteredClient> {
    read_list(CLIENTS_KEY).await
}

async fn read_list<T: serde::de::DeserializeOwned>(key: &str) -> Vec<T> {
    match chrome::local_get(key).await {
        Ok(raw) if !raw.is_undefined() => match crate::vault::open_json(raw).await {
            Some(raw) => from_js(raw).unwrap_or_default(),
            None => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// Writes a sign-in document, sealed under the person's passphrase when one is set.
async fn write<T: serde::Serialize>(key: &str, value: &T) -> Result<(), String> {
    let value = to_js(value).map_err(|e| e.to_string())?;
    let value = crate::vault::seal_json(value).await.map_err(|e| e.to_string())?;
    chrome::local_set(key, &value).await.map_err(|e| e.to_string())
}

/// The authorization server `url` names now, for the form to bind a client to; `None` when
/// it cannot be found (or reached: the server's host permission may not cover it).
pub async fn find_issuer(url: &str, challenge: Option<String>) -> Option<String> {
    let host = Host { server_id: ServerId::generate([0; 16]) };
    oauth::drive::find_issuer(&host, url, challenge).await.ok()
}

/// The sign-in window's turn: a second Sign in waits for the first to end.
pub async fn sign_in_turn() -> impl Drop {
    let lock = state(|s| s.window_lock.clone());
    lock.lock().await
}

/// Signs `server` in with its client's authorizer `auth` (the person clicked Sign in), while
/// [`sign_in_turn`] is held.
pub async fn sign_in(server: &Server, auth: &Authorizer) -> SignInOutcome {
    let host = Host { server_id: server.id.clone() };
    match auth.sign_in(&host).await {
        Ok(credentials) => SignInOutcome::SignedIn { signed_in: SignedInView::from(&credentials) },
        Err(oauth::Error::Cancelled) => SignInOutcome::Cancelled,
        Err(error) => match unreachable_origin(&error).await {
            Some(origin) => SignInOutcome::NeedsPermission { origin },
            None => SignInOutcome::Failed { error: Failure::OAuth(error).text(&server.name) },
        },
    }
}

/// The origin of an authorization server the browser would not let us reach: Chrome reports a
/// missing host permission like a refused connection.
async fn unreachable_origin(error: &oauth::Error) -> Option<String> {
    let oauth::Error::Unreachable { url, .. } = error else { return None };
    let pattern = web_url::origin_pattern(url)?;
    match chrome::has_host_permission(&pattern).await {
        Ok(false) => Some(web_url::pattern_origin(&pattern)),
        _ => None,
    }
}

/// Signs `server` out of its client's authorizer `auth`: revokes where offered and forgets the
/// tokens either way.
pub async fn sign_out(server: &Server, auth: &Authorizer) {
    let host = Host { server_id: server.id.clone() };
    for result in auth.sign_out(&host).await {
        if let Err(e) = result {
            // Debug, not Display: the worker has no use for the English texts otherwise.
            web_sys::console::warn_1(&format!("revocation at sign-out: {e:?}").into());
        }
    }
}
