//! A simulated network for `core::oauth::SignIn`: recorded documents served by URL, an
//! authorization page that approves at once (or misbehaves on purpose), and a log of every
//! request the machine made.

#![allow(dead_code)] // Each test file uses a different part.

use gemipanel_core::mcp::{HttpRequest, Method};
use gemipanel_core::oauth::{
    Action, ClientOptions, Error, Randomness, Response, SignIn, SignInConfig, SignedIn,
    SignedRequest,
};
use std::collections::HashMap;
use std::path::Path;

pub const NOW_MS: u64 = 1_800_000_000_000;
pub const REDIRECT_URI: &str = "http://127.0.0.1:9/oauth/callback";

/// A fixture file under `core/tests/data/oauth/`.
pub fn fixture(path: &str) -> String {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/oauth").join(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

#[derive(Clone)]
pub struct Route {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Route {
    pub fn json(body: impl Into<String>) -> Route {
        Route { status: 200, headers: Vec::new(), body: body.into().into_bytes() }
    }

    pub fn status(status: u16, body: impl Into<String>) -> Route {
        Route { status, headers: Vec::new(), body: body.into().into_bytes() }
    }

    pub fn redirect(to: &str) -> Route {
        Route { status: 302, headers: vec![("Location".into(), to.into())], body: Vec::new() }
    }
}

/// What the authorization page does with a request.
#[derive(Clone, Debug)]
pub enum Page {
    /// Redirects back with a code, the request's state and this `iss` (`None`: no `iss`).
    Approve { iss: Option<String> },
    /// Redirects back with this `error` (and `iss`).
    Deny { error: String, iss: Option<String> },
    /// Redirects back with another state.
    WrongState,
    /// Redirects somewhere else entirely.
    Elsewhere(String),
    /// The person closes the window.
    Close,
}

pub struct World {
    pub routes: HashMap<String, Route>,
    pub page: Page,
    pub requests: Vec<HttpRequest>,
    /// The signed requests, as the machine asked for them (the driver's signatures not added).
    pub signed: Vec<SignedRequest>,
    pub opened: Vec<String>,
    /// Replaces text in every served document (to move recorded hosts).
    pub replacements: Vec<(String, String)>,
}

impl World {
    pub fn new(page: Page) -> World {
        World {
            routes: HashMap::new(),
            page,
            requests: Vec::new(),
            signed: Vec::new(),
            opened: Vec::new(),
            replacements: Vec::new(),
        }
    }

    pub fn serve(&mut self, method: Method, url: &str, route: Route) -> &mut Self {
        self.routes.insert(format!("{} {url}", method.as_str()), route);
        self
    }

    pub fn get(&mut self, url: &str, route: Route) -> &mut Self {
        self.serve(Method::Get, url, route)
    }

    pub fn post(&mut self, url: &str, route: Route) -> &mut Self {
        self.serve(Method::Post, url, route)
    }

    /// Moves every served document from one host to another.
    pub fn replace(&mut self, from: &str, to: &str) -> &mut Self {
        self.replacements.push((from.into(), to.into()));
        self
    }

    fn moved(&self, text: &str) -> String {
        self.replacements.iter().fold(text.to_owned(), |t, (from, to)| t.replace(from, to))
    }

    pub fn answer(&mut self, request: HttpRequest) -> Response {
        let key = format!("{} {}", request.method.as_str(), request.url);
        self.requests.push(request);
        let route = self.routes.get(&key).cloned().unwrap_or_else(|| Route::status(404, ""));
        let body = match std::str::from_utf8(&route.body) {
            Ok(text) => self.moved(text).into_bytes(),
            Err(_) => route.body,
        };
        Response { status: route.status, headers: route.headers, body }
    }

    fn authorize(&mut self, url: &str) -> Option<String> {
        self.opened.push(url.to_owned());
        let parsed = url::Url::parse(url).ok()?;
        let param =
            |name: &str| parsed.query_pairs().find(|(n, _)| n == name).map(|(_, v)| v.into_owned());
        let mut back = url::Url::parse(&param("redirect_uri")?).ok()?;
        let state = param("state").unwrap_or_default();
        {
            let mut query = back.query_pairs_mut();
            match &self.page {
                Page::Approve { iss } => {
                    query.append_pair("code", "code-1").append_pair("state", &state);
                    if let Some(iss) = iss {
                        query.append_pair("iss", iss);
                    }
                }
                Page::Deny { error, iss } => {
                    query.append_pair("error", error).append_pair("state", &state);
                    if let Some(iss) = iss {
                        query.append_pair("iss", iss);
                    }
                }
                Page::WrongState => {
                    query.append_pair("code", "code-1").append_pair("state", "forged");
                }
                Page::Elsewhere(_) | Page::Close => {}
            }
        }
        match &self.page {
            Page::Elsewhere(to) => Some(to.clone()),
            Page::Close => None,
            _ => Some(back.into()),
        }
    }

    /// Runs a sign-in to its end.
    pub fn sign_in(&mut self, config: SignInConfig) -> Result<SignedIn, Error> {
        let random = Randomness { code_verifier: [7; 32], state: [9; 16] };
        let mut flow = SignIn::new(config, random);
        for _ in 0..50 {
            match flow.poll() {
                Some(Action::Send(request)) => {
                    let response = self.answer(request);
                    flow.handle_response(NOW_MS, response);
                }
                Some(Action::SendSigned(signed)) => {
                    self.signed.push((*signed).clone());
                    let response = self.answer(signed.request);
                    flow.handle_response(NOW_MS, response);
                }
                Some(Action::IssuerFound(issuer)) => panic!("a sign-in found only {issuer}"),
                Some(Action::OpenAuthorizationPage(url)) => match self.authorize(&url) {
                    Some(landed) => flow.handle_redirect(&landed),
                    None => flow.cancel(),
                },
                Some(Action::Finished(outcome)) => return outcome.map(|b| *b),
                None => panic!("the flow waits for nothing"),
            }
        }
        panic!("the flow did not end within 50 steps");
    }

    /// The requests made, as `METHOD url`.
    pub fn trail(&self) -> Vec<String> {
        self.requests.iter().map(|r| format!("{} {}", r.method.as_str(), r.url)).collect()
    }

    /// The form parameters of the last request to `url`.
    pub fn form_sent_to(&self, url: &str) -> Vec<(String, String)> {
        let request = self.requests.iter().rev().find(|r| r.url == url).expect("a request");
        url::form_urlencoded::parse(request.body.as_deref().unwrap_or_default().as_bytes())
            .into_owned()
            .collect()
    }
}

pub fn config(server_url: &str, challenge: Option<&str>) -> SignInConfig {
    SignInConfig {
        server_url: server_url.into(),
        challenge: challenge.map(str::to_owned),
        redirect_uri: REDIRECT_URI.into(),
        client_name: "GemiPanel".into(),
        client: ClientOptions::default(),
        registered_clients: Vec::new(),
        previous: None,
        dpop: None,
        idp_session: None,
        purpose: Default::default(),
    }
}

/// The query parameters of a URL.
pub fn query_of(url: &str) -> HashMap<String, String> {
    url::Url::parse(url).expect("a URL").query_pairs().into_owned().collect()
}

/// The TypeScript SDK example as recorded, optionally moved to public https hosts.
pub fn sdk_example(page: Page, public: bool) -> (World, String, String) {
    let (mcp, auth) = if public {
        ("https://mcp.example.com", "https://auth.example.com")
    } else {
        ("http://localhost:3000", "http://localhost:3001")
    };
    let mut world = World::new(page);
    world
        .replace("http://localhost:3000", mcp)
        .replace("http://localhost:3001", auth)
        .get(
            &format!("{mcp}/.well-known/oauth-protected-resource/mcp"),
            Route::json(fixture("sdk-example/protected-resource.json")),
        )
        .get(
            &format!("{auth}/.well-known/oauth-authorization-server"),
            Route::json(fixture("sdk-example/authorization-server.json")),
        )
        .post(
            &format!("{auth}/register"),
            Route { status: 201, ..Route::json(fixture("sdk-example/registration.json")) },
        )
        .post(&format!("{auth}/token"), Route::json(fixture("sdk-example/token.json")));
    let challenge =
        fixture("sdk-example/www-authenticate.txt").replace("http://localhost:3000", mcp);
    (world, format!("{mcp}/mcp"), challenge)
}
