//! The MCP client over Streamable HTTP, and over the deprecated HTTP+SSE transport (`legacy`).
//!
//! One `Client` per server. Methods take `&self` so a single-threaded host can run calls in
//! parallel; state lives in `Cell`/`RefCell` and is never borrowed across an `.await`.

use super::authorization::Authorization;
use super::cache::Freshness;
use super::elicitation;
use super::error::{Error, Kind};
use super::headers::encode_value;
use super::legacy::Channel;
use super::param_headers::{self, ParamHeader};
use super::reply::{DecodeError, ReplyDecoder};
use super::session::{is_supported, SessionState, LEGACY_VERSIONS, MODERN_VERSION};
use super::standalone::{Lease, Slot, Standalone};
use super::transport::{HttpRequest, HttpResponse, HttpTransport, Method, ResponseBody, Timer};
use super::types::*;
use crate::jsonrpc::{code, ErrorObject, Id, Message, Notification, Request, Response};
use crate::sync::{first, CancelToken, Either, SingleFlight};
use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};
use std::cell::{Cell, RefCell};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

/// A server's tools, what could not be read of its list, and how long the list may be reused.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolList {
    pub tools: Vec<Tool>,
    pub invalid: Vec<InvalidTool>,
    pub freshness: Freshness,
}

/// How to reach one server and how long to wait for it.
#[derive(Clone)]
pub struct ServerConfig {
    pub url: String,
    /// Sent with every request (API keys, `Authorization`). Never shown in `Debug`.
    pub headers: Vec<(String, String)>,
    pub request_timeout: Duration,
    pub notification_timeout: Duration,
    pub max_reply_bytes: usize,
    pub client_info: Implementation,
    /// The OAuth access token, sent as `Authorization` with every request once set.
    pub authorization: Authorization,
}

impl ServerConfig {
    pub fn new(url: impl Into<String>) -> Self {
        ServerConfig {
            url: url.into(),
            headers: Vec::new(),
            request_timeout: Duration::from_secs(30),
            notification_timeout: Duration::from_secs(10),
            max_reply_bytes: 10 * 1024 * 1024,
            client_info: Implementation::new("GemiPanel", env!("CARGO_PKG_VERSION")),
            authorization: Authorization::default(),
        }
    }
}

impl fmt::Debug for ServerConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("ServerConfig")
            .field("url", &super::redact_url(&self.url))
            .field("header_names", &names)
            .field("request_timeout", &self.request_timeout)
            .field("notification_timeout", &self.notification_timeout)
            .field("max_reply_bytes", &self.max_reply_bytes)
            .field("authorization", &self.authorization)
            .finish()
    }
}

/// Something the server said while a request was running.
#[derive(Clone, Debug, PartialEq)]
pub enum CallEvent {
    Progress(Progress),
    /// The tool list changed: fetch it again.
    ToolsListChanged,
    ResourcesListChanged,
    /// `notifications/message`.
    Log {
        level: String,
        data: Value,
    },
}

/// Whoever made a call: sees its events and answers the server's questions.
///
/// `()` is the handler of nobody: it ignores events and declines every elicitation.
#[allow(async_fn_in_trait)] // `?Send` on purpose: the browser host is single-threaded.
pub trait CallHandler {
    fn on_event(&self, _event: CallEvent) {}

    /// The server asks the person something. Form defaults are applied to the answer afterwards.
    async fn elicit(&self, _request: ElicitRequest) -> ElicitResult {
        ElicitResult::decline()
    }
}

impl CallHandler for () {}

/// A [`CallHandler`] behind a pointer. The request machinery takes `&dyn Handler` so it is
/// compiled once, not once per handler type (each copy cost the worker ~15 KB of wasm).
pub(super) trait Handler {
    fn on_event(&self, event: CallEvent);
    fn elicit(&self, request: ElicitRequest) -> Pin<Box<dyn Future<Output = ElicitResult> + '_>>;
}

impl<H: CallHandler> Handler for H {
    fn on_event(&self, event: CallEvent) {
        CallHandler::on_event(self, event)
    }

    fn elicit(&self, request: ElicitRequest) -> Pin<Box<dyn Future<Output = ElicitResult> + '_>> {
        Box::pin(CallHandler::elicit(self, request))
    }
}

/// How many times a 2026-07-28 server may answer `input_required` for one call.
const MAX_INPUT_ROUNDS: usize = 8;
/// How many times a broken SSE reply is resumed with `Last-Event-ID`.
const MAX_RESUMPTIONS: usize = 5;
/// The wait before resuming when the server named no `retry`.
const DEFAULT_RETRY: Duration = Duration::from_millis(1000);
/// Error bodies are read only this far: enough for a message.
const ERROR_BODY_LIMIT: usize = 64 * 1024;
/// Bounds on one listing (tools, resources): pages, and bytes of all pages together.
pub const MAX_LIST_PAGES: usize = 100;
pub const MAX_LIST_BYTES: usize = 16 * 1024 * 1024;

pub struct Client<T: HttpTransport> {
    pub(super) transport: T,
    pub(super) config: ServerConfig,
    pub(super) session: RefCell<Option<SessionState>>,
    server: RefCell<Option<ServerDescription>>,
    next_id: Cell<i64>,
    tools_changed: Cell<bool>,
    /// The session's standalone SSE stream (see `standalone`).
    standalone: RefCell<Slot<T::Body>>,
    /// Per tool, the parameters 2026-07-28 mirrors into headers (from the last tool list).
    /// A list, not a `HashMap`: looked up once per call, and a map type of its own was ~1 KB
    /// of the worker's wasm.
    param_headers: RefCell<Vec<(String, Vec<ParamHeader>)>>,
    /// The GET stream of a server on the deprecated HTTP+SSE transport (see `legacy`).
    pub(super) legacy: Channel<T::Body>,
    /// Opening or renewing the session: concurrent first requests open one, not several.
    connecting: SingleFlight<Result<SessionState, Error>>,
}

/// What one POST produced.
struct Reply {
    result: Value,
    session_id: Option<String>,
}

// `'static` bodies: the standalone stream keeps its pending read between calls.
impl<T: HttpTransport + Timer> Client<T>
where
    T::Body: 'static,
{
    pub fn new(transport: T, config: ServerConfig) -> Self {
        Client {
            transport,
            config,
            session: RefCell::new(None),
            server: RefCell::new(None),
            next_id: Cell::new(1),
            tools_changed: Cell::new(false),
            standalone: RefCell::new(Slot::Closed),
            param_headers: RefCell::default(),
            legacy: Channel::new(),
            connecting: SingleFlight::default(),
        }
    }

    /// A client resuming a session saved with [`session`](Self::session).
    pub fn with_session(transport: T, config: ServerConfig, session: SessionState) -> Self {
        Client::resuming(transport, config, Some(session))
    }

    /// [`with_session`](Self::with_session) when `session` is given, else [`new`](Self::new):
    /// one constructor for callers that may or may not have a saved session (the worker's wasm
    /// then holds one inlined copy of `new` instead of two, -0.35 KB gzip).
    pub fn resuming(transport: T, config: ServerConfig, session: Option<SessionState>) -> Self {
        let client = Client::new(transport, config);
        if let Some(session) = session.filter(|s| is_supported(&s.protocol_version)) {
            *client.session.borrow_mut() = Some(session);
        }
        client
    }

    pub fn config(&self) -> &ServerConfig {
        &self.config
    }

    /// The state to persist; `None` before the first connection.
    pub fn session(&self) -> Option<SessionState> {
        self.session.borrow().clone()
    }

    /// What the server said about itself, once connected in this process.
    pub fn server(&self) -> Option<ServerDescription> {
        self.server.borrow().clone()
    }

    /// True once after the server announced a changed tool list.
    pub fn take_tools_list_changed(&self) -> bool {
        self.tools_changed.replace(false)
    }

    /// Negotiates the protocol if that has not happened yet. Callers that arrive while it is
    /// under way share its outcome.
    pub async fn connect(&self) -> Result<SessionState, Error> {
        if let Some(session) = self.session() {
            return Ok(session);
        }
        self.connecting
            .run(|| async {
                if let Some(session) = self.session() {
                    return Ok(session);
                }
                let timeout = self.config.request_timeout;
                match first(self.negotiate(), self.transport.sleep(timeout)).await {
                    Either::Left(result) => result,
                    Either::Right(()) => Err(self.error(Kind::Timeout(timeout))),
                }
            })
            .await
    }

    /// A new session in place of `expired`, which the server forgot; once, however many
    /// requests found it expired.
    async fn renew(&self, expired: &SessionState) -> Result<SessionState, Error> {
        self.connecting
            .run(|| async {
                if let Some(current) = self.session().filter(|s| s != expired) {
                    return Ok(current);
                }
                self.session.replace(None);
                self.initialize().await
            })
            .await
    }

    pub async fn ping(&self) -> Result<(), Error> {
        // 2026-07-28 removed `ping`; `server/discover` is the cheap request every server answers.
        let method = if self.connect().await?.is_modern() { "server/discover" } else { "ping" };
        self.request(method, Map::new(), &(), None).await.map(drop)
    }

    /// Every tool, following `nextCursor` pages.
    pub async fn list_tools(&self) -> Result<Vec<Tool>, Error> {
        self.list_tools_cacheable().await.map(|list| list.tools)
    }

    /// Every tool, what could not be read, and how long the list may be reused (2026-07-28
    /// `ttlMs`, see `cache`).
    pub async fn list_tools_cacheable(&self) -> Result<ToolList, Error> {
        let mut list = ToolList::default();
        list.freshness = self
            .paginate("tools/list", |page: ListToolsResult| {
                let next = page.next_cursor.clone();
                let (tools, invalid) = page.split();
                list.tools.extend(tools);
                list.invalid.extend(invalid);
                next
            })
            .await?;
        self.tools_changed.set(false);
        if self.session().is_some_and(|s| s.is_modern()) {
            // SEP-2243: a tool with broken `x-mcp-header` annotations is left out, not fatal.
            let mut declared = Vec::new();
            let mut broken = Vec::new();
            list.tools.retain(|tool| match param_headers::declared(&tool.input_schema) {
                Ok(headers) => {
                    declared.push((tool.name.clone(), headers));
                    true
                }
                Err(e) => {
                    broken
                        .push(InvalidTool { name: Some(tool.name.clone()), reason: e.to_string() });
                    false
                }
            });
            list.invalid.append(&mut broken);
            *self.param_headers.borrow_mut() = declared;
        }
        Ok(list)
    }

    /// Every resource, following `nextCursor` pages.
    pub async fn list_resources(&self) -> Result<Vec<Resource>, Error> {
        let mut resources = Vec::new();
        self.paginate("resources/list", |page: ListResourcesResult| {
            resources.extend(page.resources);
            page.next_cursor
        })
        .await?;
        Ok(resources)
    }

    pub async fn read_resource<H: CallHandler>(
        &self,
        uri: &str,
        handler: &H,
    ) -> Result<ReadResourceResult, Error> {
        let mut params = Map::new();
        params.insert("uri".into(), uri.into());
        let result = self.request("resources/read", params, handler, None).await?;
        self.decode("resources/read", result)
    }

    /// Calls a tool. Progress and questions go to `handler`; `cancel` abandons the call.
    pub async fn call_tool<H: CallHandler>(
        &self,
        name: &str,
        arguments: Value,
        handler: &H,
        cancel: Option<&CancelToken>,
    ) -> Result<CallToolResult, Error> {
        let mut params = Map::new();
        params.insert("name".into(), name.into());
        params.insert("arguments".into(), arguments);
        let result = self.request("tools/call", params, handler, cancel).await?;
        self.decode("tools/call", result)
    }

    /// Ends a handshake-era session (HTTP DELETE); stateless sessions have nothing to end.
    pub async fn close(&self) -> Result<(), Error> {
        self.standalone.replace(Slot::Closed);
        // An HTTP+SSE session ends when its stream closes; it has no session id to DELETE.
        self.legacy.close();
        let Some(session) = self.session.borrow_mut().take() else {
            return Ok(());
        };
        let Some(session_id) = session.session_id.clone() else {
            return Ok(());
        };
        let mut headers = self.base_headers();
        headers.push(("Mcp-Session-Id".into(), session_id));
        if session.sends_version_header() {
            headers.push(("MCP-Protocol-Version".into(), session.protocol_version.clone()));
        }
        let request = HttpRequest {
            method: Method::Delete,
            url: self.config.url.clone(),
            headers,
            body: None,
        };
        let sent = first(
            self.transport.send(request),
            self.transport.sleep(self.config.notification_timeout),
        )
        .await;
        match sent {
            // 405: the server does not let clients end sessions; that is allowed.
            Either::Left(Ok(r)) if r.status < 300 || r.status == 404 || r.status == 405 => Ok(()),
            Either::Left(Ok(r)) => Err(self.error(self.http_error(r).await)),
            Either::Left(Err(e)) => Err(self.error(Kind::Transport(e))),
            Either::Right(()) => Err(self.error(Kind::Timeout(self.config.notification_timeout))),
        }
    }

    /// Requests every page of a list, handing each to `take`, which returns the next cursor.
    /// Bounded, so that a hostile server cannot keep the worker here: at most
    /// [`MAX_LIST_PAGES`] pages and [`MAX_LIST_BYTES`] in all, and a cursor seen before ends
    /// the list.
    async fn paginate<P: DeserializeOwned>(
        &self,
        method: &str,
        mut take: impl FnMut(P) -> Option<String>,
    ) -> Result<Freshness, Error> {
        let mut freshness = Freshness::UntilChanged;
        let mut cursor: Option<String> = None;
        let mut seen: Vec<String> = Vec::new();
        let mut bytes = 0usize;
        for _ in 0..MAX_LIST_PAGES {
            let mut params = Map::new();
            if let Some(c) = &cursor {
                params.insert("cursor".into(), c.as_str().into());
            }
            let result = self.request(method, params, &(), None).await?;
            bytes = bytes.saturating_add(json_size(&result));
            if bytes > MAX_LIST_BYTES {
                return Err(self
                    .error(Kind::TooLarge { limit: MAX_LIST_BYTES })
                    .with_method(method));
            }
            if self.session().is_some_and(|s| s.is_modern()) {
                freshness = freshness.and(Freshness::from_ttl(result.get("ttlMs")));
            }
            let page = self.decode(method, result)?;
            match take(page) {
                Some(next) if !seen.contains(&next) => {
                    seen.push(next.clone());
                    cursor = Some(next);
                }
                _ => return Ok(freshness),
            }
        }
        Ok(freshness)
    }

    fn decode<R: DeserializeOwned>(&self, method: &str, value: Value) -> Result<R, Error> {
        crate::decode::from_value("the result", value).map_err(|e| {
            self.error(Kind::Protocol(format!("unexpected result shape: {e}"))).with_method(method)
        })
    }

    /// Sends one request with the whole protocol around it: connecting, timeouts, cancellation,
    /// session renewal and 2026-07-28 input rounds.
    async fn request(
        &self,
        method: &str,
        params: Map<String, Value>,
        handler: &dyn Handler,
        cancel: Option<&CancelToken>,
    ) -> Result<Value, Error> {
        let id = self.fresh_id();
        let timeout = self.config.request_timeout;
        let work = self.request_with_renewal(method, params, handler, &id);
        let cancelled = async {
            match cancel {
                Some(token) => token.cancelled().await,
                None => std::future::pending().await,
            }
        };
        let outcome = first(work, first(self.transport.sleep(timeout), cancelled)).await;
        let failure = match outcome {
            Either::Left(result) => return result.map_err(|e| e.with_method(method)),
            Either::Right(Either::Left(())) => Kind::Timeout(timeout),
            Either::Right(Either::Right(())) => Kind::Cancelled,
        };
        // A handshake-era server is told; a stateless one sees the stream close (dropped above).
        let reason =
            if matches!(failure, Kind::Cancelled) { "cancelled by the user" } else { "timed out" };
        self.notify_cancelled(&id, reason).await;
        Err(self.error(failure).with_method(method))
    }

    async fn request_with_renewal(
        &self,
        method: &str,
        params: Map<String, Value>,
        handler: &dyn Handler,
        id: &Id,
    ) -> Result<Value, Error> {
        let session = self.connect().await?;
        match self.request_in_session(&session, method, params.clone(), handler, id).await {
            Err(e) if matches!(e.kind(), Kind::SessionExpired) && session.session_id.is_some() => {
                // The server forgot us (restart, expiry): one new session, one retry.
                let renewed = self.renew(&session).await?;
                self.request_in_session(&renewed, method, params, handler, id).await
            }
            other => other,
        }
    }

    async fn request_in_session(
        &self,
        session: &SessionState,
        method: &str,
        mut params: Map<String, Value>,
        handler: &dyn Handler,
        id: &Id,
    ) -> Result<Value, Error> {
        let mut meta = Map::new();
        if method == "tools/call" {
            meta.insert("progressToken".into(), Value::from(progress_token(id)));
        }
        if !session.is_modern() {
            if !meta.is_empty() {
                params.insert("_meta".into(), Value::Object(meta));
            }
            let request = Request {
                id: id.clone(),
                method: method.into(),
                params: Some(Value::Object(params)),
            };
            if session.sse_transport {
                return self.request_over_sse(session, request, handler).await;
            }
            if method == "tools/call" {
                return self.exchange_listening(session, request, handler).await.map(|r| r.result);
            }
            return self.exchange(session, request, handler).await.map(|r| r.result);
        }
        meta.extend(self.modern_meta());
        params.insert("_meta".into(), Value::Object(meta));
        let mut request_id = id.clone();
        for _ in 0..MAX_INPUT_ROUNDS {
            let request = Request {
                id: request_id.clone(),
                method: method.into(),
                params: Some(Value::Object(params.clone())),
            };
            let result = self.exchange(session, request, handler).await?.result;
            if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
                return Ok(result);
            }
            // Multi round-trip: answer the server's questions, then ask again with a new id.
            let responses = self.answer_input_requests(&result, handler).await?;
            params.insert("inputResponses".into(), Value::Object(responses));
            match result.get("requestState") {
                Some(state) => params.insert("requestState".into(), state.clone()),
                None => params.remove("requestState"),
            };
            request_id = self.fresh_id();
        }
        Err(self.error(Kind::Protocol(format!(
            "the server asked for input more than {MAX_INPUT_ROUNDS} times"
        ))))
    }

    async fn answer_input_requests(
        &self,
        result: &Value,
        handler: &dyn Handler,
    ) -> Result<Map<String, Value>, Error> {
        let mut responses = Map::new();
        let Some(requests) = result.get("inputRequests").and_then(Value::as_object) else {
            return Ok(responses);
        };
        for (key, request) in requests {
            let method = request.get("method").and_then(Value::as_str).unwrap_or_default();
            let params = request.get("params").cloned().unwrap_or(Value::Null);
            match self.answer_server_request(method, &params, handler).await {
                Ok(answer) => responses.insert(key.clone(), answer),
                Err(e) => {
                    return Err(self.error(Kind::Protocol(format!(
                        "the server asked for \"{method}\", which this client cannot answer: {}",
                        e.message
                    ))))
                }
            };
        }
        Ok(responses)
    }

    /// The answer to a server-to-client request, whichever era it came in.
    async fn answer_server_request(
        &self,
        method: &str,
        params: &Value,
        handler: &dyn Handler,
    ) -> Result<Value, ErrorObject> {
        match method {
            "ping" => Ok(json!({})),
            "elicitation/create" => {
                let request = elicitation::parse_request(params)
                    .map_err(|m| ErrorObject::new(code::INVALID_PARAMS, m))?;
                let answer = handler.elicit(request.clone()).await;
                let answer = elicitation::complete_with_defaults(&request, answer);
                Ok(serde_json::to_value(answer).unwrap_or_default())
            }
            other => Err(ErrorObject::new(
                code::METHOD_NOT_FOUND,
                format!("client does not support {other}"),
            )),
        }
    }

    fn client_info(&self) -> Value {
        serde_json::to_value(&self.config.client_info).unwrap_or_default()
    }

    pub(super) fn modern_meta(&self) -> Map<String, Value> {
        let mut meta = Map::new();
        meta.insert("io.modelcontextprotocol/protocolVersion".into(), MODERN_VERSION.into());
        meta.insert("io.modelcontextprotocol/clientInfo".into(), self.client_info());
        meta.insert("io.modelcontextprotocol/clientCapabilities".into(), client_capabilities());
        meta
    }

    // ---- connecting --------------------------------------------------------------------------

    /// Tries the stateless protocol first and falls back to the handshake as the spec says:
    /// a recognised 2026-07-28 error means a modern server, anything else from a 4xx a legacy one.
    async fn negotiate(&self) -> Result<SessionState, Error> {
        let modern = SessionState {
            protocol_version: MODERN_VERSION.into(),
            session_id: None,
            sse_transport: false,
        };
        let mut params = Map::new();
        params.insert("_meta".into(), Value::Object(self.modern_meta()));
        let mut retried = false;
        let outcome = loop {
            let probe = Request {
                id: self.fresh_id(),
                method: "server/discover".into(),
                params: Some(Value::Object(params.clone())),
            };
            let outcome = self.exchange(&modern, probe, &()).await;
            match &outcome {
                // Rejected, yet listed as supported: the spec says retry with a supported
                // version, and 2026-07-28 is ours. Once, so a confused server cannot loop us.
                Err(e) if !retried && rejects_yet_supports_modern(e) => retried = true,
                _ => break outcome,
            }
        };
        match outcome {
            Ok(reply) => {
                let discovered: DiscoverResult = self.decode("server/discover", reply.result)?;
                if discovered.supported_versions.iter().any(|v| v == MODERN_VERSION) {
                    *self.server.borrow_mut() = Some(ServerDescription {
                        protocol_version: MODERN_VERSION.into(),
                        server_info: discovered.meta.and_then(|m| m.server_info),
                        capabilities: discovered.capabilities,
                        instructions: discovered.instructions,
                    });
                    *self.session.borrow_mut() = Some(modern.clone());
                    return Ok(modern);
                }
                self.initialize_or_sse().await
            }
            Err(e) => match e.rpc_error().map(|r| r.code) {
                Some(code::UNSUPPORTED_PROTOCOL_VERSION) => {
                    let supported = string_list(
                        e.rpc_error()
                            .and_then(|r| r.data.as_ref())
                            .and_then(|d| d.get("supported")),
                    );
                    if supported.iter().any(|v| LEGACY_VERSIONS.contains(&v.as_str())) {
                        self.initialize_or_sse().await
                    } else {
                        let offered = supported.join(", ");
                        Err(self.error(Kind::UnsupportedVersion { offered }))
                    }
                }
                Some(code::HEADER_MISMATCH | code::MISSING_REQUIRED_CLIENT_CAPABILITY) => Err(e),
                _ if falls_back_to_handshake(&e) => self.initialize_or_sse().await,
                _ => Err(e),
            },
        }
    }

    /// The spec's backwards-compatibility rule: a server that refuses the `initialize` POST with
    /// a 4xx may run the deprecated HTTP+SSE transport, which a GET of the same URL reveals.
    async fn initialize_or_sse(&self) -> Result<SessionState, Error> {
        match self.initialize().await {
            Err(e) if e.status().is_some() && falls_back_to_handshake(&e) => {
                self.connect_sse(e).await
            }
            other => other,
        }
    }

    /// The handshake of 2025-11-25 and earlier: `initialize`, then `notifications/initialized`.
    async fn initialize(&self) -> Result<SessionState, Error> {
        // No version header on `initialize`: the version is what is being negotiated.
        let reply = self
            .exchange(&unnegotiated(false), self.initialize_request(), &())
            .await
            .map_err(|e| e.with_method("initialize"))?;
        self.finish_initialize(reply.result, reply.session_id, false).await
    }

    pub(super) fn initialize_request(&self) -> Request {
        // Built field by field: `json!` with values in it serialises each through serde again.
        let mut params = Map::new();
        params.insert("protocolVersion".into(), LEGACY_VERSIONS[0].into());
        params.insert("capabilities".into(), client_capabilities());
        params.insert("clientInfo".into(), self.client_info());
        Request { id: self.fresh_id(), method: "initialize".into(), params: Some(params.into()) }
    }

    /// Reads the `initialize` result, sends `notifications/initialized` and keeps the session.
    pub(super) async fn finish_initialize(
        &self,
        result: Value,
        session_id: Option<String>,
        sse_transport: bool,
    ) -> Result<SessionState, Error> {
        let description =
            ServerDescription::from(self.decode::<InitializeResult>("initialize", result)?);
        if !LEGACY_VERSIONS.contains(&description.protocol_version.as_str()) {
            let offered = description.protocol_version.clone();
            return Err(self.error(Kind::UnsupportedVersion { offered }).with_method("initialize"));
        }
        let session = SessionState {
            protocol_version: description.protocol_version.clone(),
            session_id,
            sse_transport,
        };
        *self.server.borrow_mut() = Some(description);
        self.notify(&session, "notifications/initialized", None)
            .await
            .map_err(|e| e.with_method("notifications/initialized"))?;
        *self.session.borrow_mut() = Some(session.clone());
        Ok(session)
    }

    // ---- one HTTP exchange -------------------------------------------------------------------

    /// POSTs one request and reads its reply, JSON or SSE, until the response to it arrives.
    async fn exchange(
        &self,
        session: &SessionState,
        request: Request,
        handler: &dyn Handler,
    ) -> Result<Reply, Error> {
        let mut headers = self.session_headers(session);
        if session.is_modern() {
            headers.push(("Mcp-Method".into(), request.method.clone()));
            let params = request.params.as_ref();
            let name = params.and_then(|p| p.get("name").or_else(|| p.get("uri")));
            if let (Some(name), "tools/call" | "resources/read" | "prompts/get") =
                (name.and_then(Value::as_str), request.method.as_str())
            {
                headers.push(("Mcp-Name".into(), encode_value(name)));
            }
            if let (Some(name), "tools/call") =
                (name.and_then(Value::as_str), request.method.as_str())
            {
                let arguments = params.and_then(|p| p.get("arguments")).unwrap_or(&Value::Null);
                let tools = self.param_headers.borrow();
                // A tool listed twice: its last entry counts, as when this was a map.
                if let Some((_, declared)) = tools.iter().rev().find(|(tool, _)| tool == name) {
                    headers.extend(param_headers::for_arguments(declared, arguments));
                }
            }
        }
        let id = request.id.clone();
        let http = HttpRequest {
            method: Method::Post,
            url: self.config.url.clone(),
            headers,
            body: Some(Message::Request(request).to_json()),
        };
        let response =
            self.transport.send(http).await.map_err(|e| self.error(Kind::Transport(e)))?;
        if response.status == 404 && session.session_id.is_some() {
            return Err(self.error(Kind::SessionExpired));
        }
        if !(200..300).contains(&response.status) {
            let kind = self.http_error(response).await;
            if session.session_id.is_some() && is_unknown_session_reply(&kind) {
                return Err(self.error(Kind::SessionExpired));
            }
            return Err(self.error(kind));
        }
        let session_id = response.header("Mcp-Session-Id").map(str::to_owned);
        let result = self.read_reply(session, response, &id, handler).await?;
        Ok(Reply { result, session_id })
    }

    /// A tool call of a handshake-era session also reads the session's standalone stream, where
    /// some servers send the call's questions (see `standalone`).
    async fn exchange_listening(
        &self,
        session: &SessionState,
        request: Request,
        handler: &dyn Handler,
    ) -> Result<Reply, Error> {
        let mut lease = self.lease_standalone(session).await;
        let Some(Slot::Open(stream)) = lease.as_mut().map(|l| &mut l.next) else {
            return self.exchange(session, request, handler).await;
        };
        let outcome = first(
            self.exchange(session, request, handler),
            self.read_standalone(session, stream, handler),
        )
        .await;
        if stream.is_ended() {
            if let Some(lease) = lease.as_mut() {
                lease.next = Slot::Closed;
            }
        }
        match outcome {
            Either::Left(reply) => reply,
            Either::Right(never) => match never {},
        }
    }

    /// Takes the open stream of this session, or opens one; `None` when there is none to read.
    async fn lease_standalone(&self, session: &SessionState) -> Option<Lease<'_, T::Body>> {
        let session_id = session.session_id.clone()?;
        match self.standalone.replace(Slot::InUse) {
            Slot::Open(stream) if stream.session_id == session_id => {
                return Some(Lease::new(&self.standalone, Slot::Open(stream)));
            }
            Slot::InUse => return None,
            Slot::Refused(id) if id == session_id => {
                self.standalone.replace(Slot::Refused(id));
                return None;
            }
            Slot::Open(_) | Slot::Refused(_) | Slot::Closed => {}
        }
        let mut lease = Lease::new(&self.standalone, Slot::Closed);
        let headers = self.stream_get_headers(session);
        let request =
            HttpRequest { method: Method::Get, url: self.config.url.clone(), headers, body: None };
        // Bounded like a notification: a server that never answers the GET delays the call
        // only this long, and then the call goes on without the stream.
        let sent = first(
            self.transport.send(request),
            self.transport.sleep(self.config.notification_timeout),
        )
        .await;
        match sent {
            Either::Left(Ok(response)) if (200..300).contains(&response.status) => {
                let content_type = response.header("Content-Type").map(str::to_owned);
                let decoder = ReplyDecoder::for_content_type(
                    content_type.as_deref(),
                    self.config.max_reply_bytes,
                );
                lease.next = match decoder {
                    Ok(decoder) if decoder.is_stream() => {
                        Slot::Open(Standalone::new(session_id, response.body, decoder))
                    }
                    // Anything but SSE: the server does not offer the stream after all.
                    _ => Slot::Refused(session_id),
                };
            }
            // 405 is how the spec says "no stream here". 409 (another GET of this session is
            // still open), 429 and 5xx may pass: those are tried again at the next call.
            Either::Left(Ok(response)) if !matches!(response.status, 409 | 429 | 500..) => {
                lease.next = Slot::Refused(session_id);
            }
            _ => {}
        }
        Some(lease)
    }

    /// Handles what arrives on the standalone stream until the call it runs beside ends (this
    /// future is then dropped; it never finishes by itself).
    async fn read_standalone(
        &self,
        session: &SessionState,
        stream: &mut Standalone<T::Body>,
        handler: &dyn Handler,
    ) -> std::convert::Infallible {
        while let Some(chunk) = stream.next_chunk().await {
            let Ok(messages) = stream.decoder.feed(&chunk) else {
                stream.end();
                break;
            };
            // Responses on this stream answer nothing of ours.
            let messages =
                messages.into_iter().filter(|m| !matches!(m, Message::Response(_))).collect();
            let none = Id::String(String::new());
            let _ = self.handle_messages(session, messages, &none, handler).await;
        }
        std::future::pending().await
    }

    /// Reads replies until the response with `id`, resuming a broken SSE stream when it can.
    async fn read_reply(
        &self,
        session: &SessionState,
        mut response: HttpResponse<T::Body>,
        id: &Id,
        handler: &dyn Handler,
    ) -> Result<Value, Error> {
        let mut resumptions = 0;
        let mut last_event_id: Option<String> = None;
        let mut retry: Option<u64> = None;
        loop {
            let content_type = response.header("Content-Type").map(str::to_owned);
            let mut decoder = ReplyDecoder::for_content_type(
                content_type.as_deref(),
                self.config.max_reply_bytes,
            )
            .map_err(|e| self.decode_error(e))?;
            let broke = loop {
                match response.body.next_chunk().await {
                    Ok(Some(chunk)) => {
                        let messages = decoder.feed(&chunk).map_err(|e| self.decode_error(e))?;
                        if let Some(done) =
                            self.handle_messages(session, messages, id, handler).await
                        {
                            return done;
                        }
                    }
                    Ok(None) => break None,
                    Err(e) => break Some(e),
                }
            };
            let messages = decoder.finish().map_err(|e| self.decode_error(e))?;
            if let Some(done) = self.handle_messages(session, messages, id, handler).await {
                return done;
            }
            let (event_id, event_retry) = decoder.resume_point();
            if let Some(event_id) = event_id {
                last_event_id = Some(event_id.to_owned());
            }
            retry = event_retry.or(retry);
            // Only handshake-era SSE replies can be resumed (2026-07-28 dropped `Last-Event-ID`).
            let resumable = decoder.is_stream() && !session.is_modern() && last_event_id.is_some();
            if !resumable || resumptions == MAX_RESUMPTIONS {
                return Err(match broke {
                    Some(e) => self.error(Kind::Transport(e)),
                    None => self.error(Kind::StreamEnded),
                });
            }
            resumptions += 1;
            let wait = retry.map_or(DEFAULT_RETRY, Duration::from_millis);
            self.transport.sleep(wait.min(self.config.request_timeout)).await;
            response = self.resume(session, last_event_id.as_deref().unwrap_or_default()).await?;
        }
    }

    /// GET with `Last-Event-ID`: the server replays what the broken stream missed.
    async fn resume(
        &self,
        session: &SessionState,
        last_event_id: &str,
    ) -> Result<HttpResponse<T::Body>, Error> {
        let mut headers = self.stream_get_headers(session);
        headers.push(("Last-Event-ID".into(), last_event_id.into()));
        let request =
            HttpRequest { method: Method::Get, url: self.config.url.clone(), headers, body: None };
        let response =
            self.transport.send(request).await.map_err(|e| self.error(Kind::Transport(e)))?;
        if response.status == 404 && session.session_id.is_some() {
            return Err(self.error(Kind::SessionExpired));
        }
        if !(200..300).contains(&response.status) {
            return Err(self.error(self.http_error(response).await));
        }
        Ok(response)
    }

    /// Handles messages from a reply; `Some` once the response to `id` is among them.
    pub(super) async fn handle_messages(
        &self,
        session: &SessionState,
        messages: Vec<Message>,
        id: &Id,
        handler: &dyn Handler,
    ) -> Option<Result<Value, Error>> {
        for message in messages {
            match message {
                Message::Response(Response { id: Some(rid), outcome }) if &rid == id => {
                    return Some(outcome.map_err(|e| self.error(Kind::Rpc(Box::new(e)))));
                }
                // An error the server could not attribute: on a reply to our POST it is ours.
                Message::Response(Response { id: None, outcome: Err(e) }) => {
                    return Some(Err(self.error(Kind::Rpc(Box::new(e)))));
                }
                Message::Response(_) => {}
                Message::Notification(n) => self.handle_notification(n, handler),
                Message::Request(r) => {
                    let outcome = self
                        .answer_server_request(
                            &r.method,
                            r.params.as_ref().unwrap_or(&Value::Null),
                            handler,
                        )
                        .await;
                    let answer = Message::Response(Response { id: Some(r.id), outcome });
                    // If the answer cannot be delivered the server times out on its side; our
                    // own request still ends through its timeout, so nothing hangs here.
                    let _ = self.post_message(session, answer).await;
                }
            }
        }
        None
    }

    fn handle_notification(&self, notification: Notification, handler: &dyn Handler) {
        let params = notification.params.unwrap_or(Value::Null);
        let event = match notification.method.as_str() {
            "notifications/progress" => match serde_json::from_value(params) {
                Ok(progress) => CallEvent::Progress(progress),
                Err(_) => return,
            },
            "notifications/tools/list_changed" => {
                self.tools_changed.set(true);
                CallEvent::ToolsListChanged
            }
            "notifications/resources/list_changed" => CallEvent::ResourcesListChanged,
            "notifications/message" => CallEvent::Log {
                level: params.get("level").and_then(Value::as_str).unwrap_or("info").to_owned(),
                data: params.get("data").cloned().unwrap_or(Value::Null),
            },
            _ => return,
        };
        handler.on_event(event);
    }

    // ---- notifications and plain messages ----------------------------------------------------

    async fn notify(
        &self,
        session: &SessionState,
        method: &str,
        params: Option<Value>,
    ) -> Result<(), Error> {
        let message = Message::Notification(Notification { method: method.into(), params });
        let sent = first(
            self.post_message(session, message),
            self.transport.sleep(self.config.notification_timeout),
        )
        .await;
        match sent {
            Either::Left(result) => result,
            Either::Right(()) => Err(self.error(Kind::Timeout(self.config.notification_timeout))),
        }
    }

    async fn notify_cancelled(&self, id: &Id, reason: &str) {
        let Some(session) = self.session() else { return };
        if session.is_modern() {
            return;
        }
        let mut params = Map::new();
        params.insert("requestId".into(), json!(id));
        params.insert("reason".into(), reason.into());
        let params = Value::Object(params);
        // Best effort: the call has already failed for the caller.
        let _ = self.notify(&session, "notifications/cancelled", Some(params)).await;
    }

    /// POSTs a notification or a response (or, over HTTP+SSE, any message); the server answers
    /// 202 without a body.
    pub(super) async fn post_message(
        &self,
        session: &SessionState,
        message: Message,
    ) -> Result<(), Error> {
        let url = if session.sse_transport {
            // No stream, no endpoint: what waits for an answer fails on the missing stream.
            let Some(endpoint) = self.legacy.endpoint() else { return Ok(()) };
            endpoint
        } else {
            self.config.url.clone()
        };
        let http = HttpRequest {
            method: Method::Post,
            url,
            headers: self.session_headers(session),
            body: Some(message.to_json()),
        };
        let response =
            self.transport.send(http).await.map_err(|e| self.error(Kind::Transport(e)))?;
        if (200..300).contains(&response.status) {
            Ok(())
        } else {
            Err(self.error(self.http_error(response).await))
        }
    }

    // ---- helpers -----------------------------------------------------------------------------

    pub(super) fn fresh_id(&self) -> Id {
        let n = self.next_id.get();
        self.next_id.set(n + 1);
        Id::Number(n)
    }

    fn base_headers(&self) -> Vec<(String, String)> {
        let mut headers = self.configured_headers();
        headers.push(("Accept".into(), "application/json, text/event-stream".into()));
        headers
    }

    /// The person's headers and, once signed in, the access token: on every request.
    pub(super) fn configured_headers(&self) -> Vec<(String, String)> {
        let mut headers = self.config.headers.clone();
        if let Some(value) = self.config.authorization.header_value() {
            headers.retain(|(name, _)| !name.eq_ignore_ascii_case("Authorization"));
            headers.push(("Authorization".into(), value));
        }
        headers
    }

    /// Headers of a GET that opens an SSE stream of `session` (the standalone stream, or a
    /// resumption): the session's headers, asking for an event stream and sending no body.
    fn stream_get_headers(&self, session: &SessionState) -> Vec<(String, String)> {
        let mut headers: Vec<(String, String)> = self
            .session_headers(session)
            .into_iter()
            .filter(|(name, _)| {
                !name.eq_ignore_ascii_case("Content-Type") && !name.eq_ignore_ascii_case("Accept")
            })
            .collect();
        headers.push(("Accept".into(), "text/event-stream".into()));
        headers
    }

    pub(super) fn session_headers(&self, session: &SessionState) -> Vec<(String, String)> {
        let mut headers = self.base_headers();
        headers.push(("Content-Type".into(), "application/json".into()));
        if session.sends_version_header() {
            headers.push(("MCP-Protocol-Version".into(), session.protocol_version.clone()));
        }
        if let Some(session_id) = &session.session_id {
            headers.push(("Mcp-Session-Id".into(), session_id.clone()));
        }
        headers
    }

    pub(super) fn error(&self, kind: Kind) -> Error {
        Error::new(kind, &self.config.url)
    }

    pub(super) fn decode_error(&self, error: DecodeError) -> Error {
        self.error(match error {
            DecodeError::NotMcp { content_type } => Kind::NotMcpServer { content_type },
            DecodeError::TooLarge { limit } => Kind::TooLarge { limit },
            DecodeError::Malformed(what) => Kind::Malformed(what),
        })
    }

    /// Reads the start of an error body for the server's own words.
    pub(super) async fn http_error(&self, mut response: HttpResponse<T::Body>) -> Kind {
        if (300..400).contains(&response.status) {
            return Kind::Redirected { status: Some(response.status) };
        }
        let www_authenticate = response.header("WWW-Authenticate").map(str::to_owned);
        let is_html = response
            .header("Content-Type")
            .is_some_and(|ct| ct.to_ascii_lowercase().starts_with("text/html"));
        let mut body = Vec::new();
        while body.len() < ERROR_BODY_LIMIT {
            match response.body.next_chunk().await {
                Ok(Some(chunk)) => body.extend_from_slice(&chunk),
                _ => break,
            }
        }
        let rpc = Message::parse(&body).ok().and_then(|m| match m {
            Message::Response(Response { outcome: Err(e), .. }) => Some(Box::new(e)),
            _ => None,
        });
        let message = match &rpc {
            Some(e) => Some(e.message.clone()),
            None if is_html || body.trim_ascii_start().starts_with(b"<") => {
                Some("an HTML page, not MCP".into())
            }
            None => {
                let text = crate::sse::lossy(&body);
                let text: String = text.trim().chars().take(200).collect();
                (!text.is_empty()).then_some(text)
            }
        };
        Kind::Http { status: response.status, message, www_authenticate, rpc }
    }
}

/// The `initialize` parameters fix the version; requests before that send no version header.
pub(super) fn unnegotiated(sse_transport: bool) -> SessionState {
    SessionState { protocol_version: "2025-03-26".into(), session_id: None, sse_transport }
}

/// The `progressToken` of a tool call: progress notifications name the call they belong to.
pub(super) fn progress_token(id: &Id) -> String {
    format!("progress-{id}")
}

/// A 4xx other than "sign in" answers the stateless probe of a handshake-era server, and so
/// does a JSON-RPC error that 2026-07-28 does not define (such as "method not found").
fn falls_back_to_handshake(error: &Error) -> bool {
    match error.status() {
        Some(401 | 403) => false,
        Some(status) => (400..500).contains(&status),
        None => matches!(error.kind(), Kind::Rpc(_)),
    }
}

/// An "unsupported protocol version" error whose `supported` list names 2026-07-28.
fn rejects_yet_supports_modern(error: &Error) -> bool {
    error.rpc_error().is_some_and(|rpc| {
        rpc.code == code::UNSUPPORTED_PROTOCOL_VERSION
            && string_list(rpc.data.as_ref().and_then(|d| d.get("supported")))
                .iter()
                .any(|v| v == MODERN_VERSION)
    })
}

/// The SDK's example routers (and so server-everything) answer an unknown session with 400
/// "No valid session ID provided" instead of the 404 the spec asks for; treat it the same.
fn is_unknown_session_reply(kind: &Kind) -> bool {
    match kind {
        Kind::Http { status: 400, rpc: Some(rpc), .. } => {
            // Compared bytewise: `str::contains` inlined the two-way searcher, ~0.8 KB of wasm.
            let mentions_session =
                rpc.message.as_bytes().windows(7).any(|w| w.eq_ignore_ascii_case(b"session"));
            rpc.code == -32000 && mentions_session
        }
        _ => false,
    }
}

fn string_list(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|items| items.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default()
}

/// Elicitation (form and URL). The MCP Apps extension is advertised once apps render.
fn client_capabilities() -> Value {
    json!({"elicitation": {"form": {}, "url": {}}})
}

/// The size of a value as JSON text, for the bounds on lists.
fn json_size(value: &Value) -> usize {
    serde_json::to_vec(value).map_or(usize::MAX, |text| text.len())
}

#[cfg(test)]
mod tests {
    #[test]
    fn unknown_session_replies_are_found_as_a_substring_search_would() {
        use super::{is_unknown_session_reply, ErrorObject, Kind};
        for message in [
            "No valid session ID provided",
            "Bad Request: SESSION not found",
            "unknown sEsSiOn",
            "session",
            "sessio",
            "",
            "s\u{e9}ssion",
            "sess\u{130}on",
            "Invalid request",
        ] {
            let kind = Kind::Http {
                status: 400,
                message: None,
                www_authenticate: None,
                rpc: Some(Box::new(ErrorObject::new(-32000, message))),
            };
            let expected = message.to_ascii_lowercase().contains("session");
            assert_eq!(is_unknown_session_reply(&kind), expected, "{message}");
        }
    }
}
