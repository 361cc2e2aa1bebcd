//! The `oidc-provider` fixture (`fixtures/oidc/server.mjs`) from the Rust side.
//!
//! * [`DevPages`]: a headless person in front of the provider's development login and consent
//!   pages. It follows the authorization server's redirects with a cookie jar (its session
//!   outlives one sign-in, as a browser's does), fills the first form of each page and stops at
//!   the first redirect that leaves the server: the redirect URI with the answer.
//! * [`Admin`]: the fixture's test endpoints (what it saw, revoke every grant, expire every access
//!   token) and the provider's own RFC 7662 introspection, which says whether a token is alive.

use reqwest::{header, Url};
use scraper::{ElementRef, Html, Selector};
use serde::Deserialize;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Redirects and pages one sign-in may go through before the driver gives up.
const MAX_STEPS: usize = 12;
/// An authorization page larger than this is not one of the provider's.
const MAX_PAGE_BYTES: usize = 256 * 1024;

/// A page the person was shown, as read off it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// The form's `prompt` field: `login` or `consent`.
    pub prompt: String,
    /// The visible text of the page's card (title, what is asked, the buttons).
    pub text: String,
}

/// The headless person who signs in and approves.
#[derive(Clone)]
pub struct DevPages {
    browser: reqwest::Client,
    login: String,
    password: String,
    seen: Arc<Mutex<Vec<Page>>>,
}

impl DevPages {
    /// Signs in as `login` (the dev pages accept any login with any password).
    pub fn new(login: &str) -> DevPages {
        let browser = reqwest::Client::builder()
            .cookie_store(true)
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(15))
            .build()
            .unwrap_or_default();
        DevPages {
            browser,
            login: login.to_owned(),
            password: "any password".into(),
            seen: Arc::default(),
        }
    }

    /// Every page shown so far, oldest first.
    pub fn seen(&self) -> Vec<Page> {
        self.seen.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The prompts shown so far (`["login", "consent"]`).
    pub fn prompts(&self) -> Vec<String> {
        self.seen().into_iter().map(|p| p.prompt).collect()
    }

    /// Opens the authorization page and goes through it; the URL the server finally sends the
    /// browser to outside itself (the redirect URI with `code`, `state` and `iss`).
    pub async fn complete(&self, url: &str) -> Result<String, String> {
        let start = Url::parse(url).map_err(|e| e.to_string())?;
        let server = start.origin();
        let mut next = self.browser.get(start.clone());
        let mut at = start;
        for _ in 0..MAX_STEPS {
            let response = next.send().await.map_err(|e| format!("{at}: {e}"))?;
            let status = response.status();
            if status.is_redirection() {
                let location = response
                    .headers()
                    .get(header::LOCATION)
                    .and_then(|v| v.to_str().ok())
                    .ok_or_else(|| format!("{at} answered {status} without a Location"))?;
                let target = at.join(location).map_err(|e| e.to_string())?;
                if target.origin() != server {
                    return Ok(target.into());
                }
                next = self.browser.get(target.clone());
                at = target;
                continue;
            }
            let body = read_capped(response).await?;
            if !status.is_success() {
                return Err(format!("{at} answered {status}: {}", clip(&body)));
            }
            let form = Form::read(&body, &at)?;
            self.seen.lock().unwrap_or_else(|e| e.into_inner()).push(form.page.clone());
            let fields = form.filled(&self.login, &self.password);
            next = self.browser.post(form.action.clone()).form(&fields);
            at = form.action;
        }
        Err(format!("no redirect back after {MAX_STEPS} pages and redirects"))
    }
}

async fn read_capped(mut response: reqwest::Response) -> Result<String, String> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| e.to_string())? {
        body.extend_from_slice(&chunk);
        if body.len() > MAX_PAGE_BYTES {
            return Err(format!("the authorization page is larger than {MAX_PAGE_BYTES} bytes"));
        }
    }
    Ok(String::from_utf8_lossy(&body).into_owned())
}

fn clip(text: &str) -> String {
    text.chars().take(500).collect()
}

/// The first form of a page, with what a person would see around it.
struct Form {
    action: Url,
    /// `(name, type, value)` of each named input.
    inputs: Vec<(String, String, String)>,
    page: Page,
}

impl Form {
    fn read(html: &str, at: &Url) -> Result<Form, String> {
        let document = Html::parse_document(html);
        let form = document
            .select(&selector("form"))
            .next()
            .ok_or_else(|| format!("{at} shows no form: {}", clip(html)))?;
        let method = form.value().attr("method").unwrap_or("get");
        if !method.eq_ignore_ascii_case("post") {
            return Err(format!("{at}: a form with method {method}"));
        }
        let action =
            at.join(form.value().attr("action").unwrap_or("")).map_err(|e| e.to_string())?;
        let inputs: Vec<(String, String, String)> = form
            .select(&selector("input[name]"))
            .map(|input| {
                let attr = |name| input.value().attr(name).unwrap_or("").to_owned();
                (attr("name"), attr("type"), attr("value"))
            })
            .collect();
        let prompt = inputs
            .iter()
            .find(|(name, kind, _)| name == "prompt" && kind == "hidden")
            .map(|(_, _, value)| value.clone())
            .unwrap_or_default();
        let card = document.select(&selector(".login-card")).next();
        let text = card.map(visible_text).unwrap_or_default();
        Ok(Form { action, inputs, page: Page { prompt, text } })
    }

    /// The fields as a person submits them: the login and password typed in, the rest as given.
    fn filled(&self, login: &str, password: &str) -> Vec<(String, String)> {
        self.inputs
            .iter()
            .map(|(name, kind, value)| {
                let value = match (name.as_str(), kind.as_str()) {
                    ("login", _) => login,
                    (_, "password") => password,
                    _ => value,
                };
                (name.clone(), value.to_owned())
            })
            .collect()
    }
}

fn selector(css: &str) -> Selector {
    // Only ever called with the constant selectors above.
    Selector::parse(css).unwrap_or_else(|e| panic!("selector {css}: {e}"))
}

fn visible_text(element: ElementRef) -> String {
    element.text().flat_map(str::split_whitespace).collect::<Vec<_>>().join(" ")
}

/// Something the fixture saw (its `/admin/events`), oldest first. Never carries a token.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", rename_all_fields = "camelCase")]
pub enum Event {
    /// A dynamic client registration (RFC 7591).
    Registration {
        status: u16,
        error: Option<String>,
        application_type: Option<String>,
        redirect_uris: Option<Vec<String>>,
        token_endpoint_auth_method: Option<String>,
    },
    /// A request to the authorization endpoint.
    Authorization {
        status: u16,
        client_id: Option<String>,
        redirect_uri: Option<String>,
        scope: Option<String>,
        resource: Option<String>,
        code_challenge_method: Option<String>,
        has_code_challenge: bool,
        has_state: bool,
    },
    /// A request to the token endpoint.
    Token {
        status: u16,
        error: Option<String>,
        grant_type: Option<String>,
        resource: Option<String>,
        has_code_verifier: bool,
        scope: Option<String>,
        expires_in: Option<u64>,
        refresh_token_issued: bool,
        /// `Bearer`, or `DPoP` for a token bound to the proof's key.
        token_type: Option<String>,
        /// The request carried a DPoP proof.
        had_proof: bool,
        /// The request's `Origin`, when it had one.
        origin: Option<String>,
    },
    /// RFC 7009 revocation.
    Revocation {
        status: u16,
        error: Option<String>,
        token_type_hint: Option<String>,
        origin: Option<String>,
    },
    /// A request to the MCP server.
    Mcp {
        status: u16,
        method: Option<String>,
        tool: Option<String>,
        had_token: bool,
        /// The `Authorization` scheme: `Bearer` or `DPoP`.
        scheme: Option<String>,
        /// `ok` for a good DPoP proof, else why it was refused.
        dpop: Option<String>,
        sub: Option<String>,
        scopes: Option<Vec<String>>,
        www_authenticate: Option<String>,
    },
    /// A refresh token was used up by rotation.
    RefreshTokenConsumed {
        grant_id: String,
    },
    GrantRevoked {
        grant_id: String,
    },
    /// A grant request refused (its OAuth error).
    GrantError {
        error: Option<String>,
    },
    AutoApproved,
    AdminRevoke {
        grants: usize,
    },
    AdminExpire,
    #[serde(other)]
    Other,
}

impl Event {
    pub fn is_token(&self, grant: &str) -> bool {
        matches!(self, Event::Token { grant_type: Some(g), .. } if g == grant)
    }
}

/// RFC 7662's answer, as much as the tests read of it.
#[derive(Debug, Deserialize)]
struct Introspection {
    active: bool,
}

#[derive(Debug, Deserialize)]
struct Revoked {
    revoked: usize,
}

/// The fixture's test endpoints and the provider's introspection.
pub struct Admin {
    http: reqwest::Client,
    mcp_origin: String,
    issuer: String,
}

impl Admin {
    /// `mcp_url`: the MCP server's URL (the admin endpoints share its port).
    pub fn new(mcp_url: &str, issuer: &str) -> Admin {
        let origin = Url::parse(mcp_url).map(|u| u.origin().ascii_serialization());
        Admin {
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(15))
                .build()
                .unwrap_or_default(),
            mcp_origin: origin.unwrap_or_default(),
            issuer: issuer.to_owned(),
        }
    }

    pub async fn events(&self) -> Vec<Event> {
        let url = format!("{}/admin/events", self.mcp_origin);
        let response = self.http.get(&url).send().await.expect("the fixture answers");
        let body = response.bytes().await.expect("its events");
        serde_json::from_slice(&body).expect("events the tests know")
    }

    /// Revokes every grant at the provider; how many there were.
    pub async fn revoke_all(&self) -> usize {
        let url = format!("{}/admin/revoke", self.mcp_origin);
        let response = self.http.post(&url).send().await.expect("the fixture answers");
        let body = response.bytes().await.expect("its answer");
        serde_json::from_slice::<Revoked>(&body).expect("{revoked}").revoked
    }

    /// Every access token issued so far counts as expired at the MCP server.
    pub async fn expire_access_tokens(&self) {
        let url = format!("{}/admin/expire", self.mcp_origin);
        let response = self.http.post(&url).send().await.expect("the fixture answers");
        assert!(response.status().is_success(), "expire: {}", response.status());
    }

    /// Whether the provider still honours `token` (RFC 7662, as the public client `client_id`).
    /// Opaque tokens only: oidc-provider refuses to introspect its JWT access tokens.
    pub async fn is_active(&self, token: &str, client_id: &str) -> bool {
        let url = format!("{}/token/introspection", self.issuer);
        let form = [("token", token), ("client_id", client_id)];
        let response = self.http.post(&url).form(&form).send().await.expect("introspection");
        let status = response.status();
        let body = response.bytes().await.expect("its answer");
        assert!(status.is_success(), "introspection: {status} {}", String::from_utf8_lossy(&body));
        serde_json::from_slice::<Introspection>(&body).expect("{active}").active
    }
}
