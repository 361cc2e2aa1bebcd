//! The MCP client over Streamable HTTP, and over the deprecated HTTP+SSE transport (`legacy`).
//!
//! One `Client` per server. Methods take `&self` so a single-threaded host can run calls in
//! parallel; state lives in `Cell`/`RefCell` and is never borrowed across an `.await`.

use super::authorization::Authorization;
use super::cache::Freshness;
use super::elicitation;
use super::error::{Error, Kind};
use super::exchange::progress_token;
use super::legacy::Channel;
use super::param_headers::{self, ParamHeader};
use super::session::{is_supported, SessionState};
use super::standalone::Slot;
use super::transport::{HttpRequest, HttpTransport, Method, Timer};
use super::types::*;
use crate::jsonrpc::{code, ErrorObject, Id, Request};
use crate::sync::{first, CancelToken, Either, SingleFlight};
use crate::text::Text;
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
    /// The prompt list changed: fetch it again.
    PromptsListChanged,
    /// A resource subscribed to changed (`notifications/resources/updated`).
    ResourceUpdated {
        uri: String,
    },
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
pub(super) const MAX_INPUT_ROUNDS: usize = 8;
/// How many times a broken SSE reply is resumed with `Last-Event-ID`.
pub(super) const MAX_RESUMPTIONS: usize = 5;
/// The wait before resuming when the server named no `retry`.
pub(super) const DEFAULT_RETRY: Duration = Duration::from_millis(1000);
/// Error bodies are read only this far: enough for a message.
pub(super) const ERROR_BODY_LIMIT: usize = 64 * 1024;
/// Bounds on one listing (tools, resources): pages, and bytes of all pages together.
pub const MAX_LIST_PAGES: usize = 100;
pub const MAX_LIST_BYTES: usize = 16 * 1024 * 1024;

/// How a paged list ended when the server did not end it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ListCut {
    /// A cursor came back that was already asked for: the pages would cycle.
    CursorRepeated,
    /// [`MAX_LIST_PAGES`] pages and the server still had a next one.
    PageCap,
}

impl ListCut {
    /// A note for the list's unreadable entries, so the person sees that tools may be missing.
    pub(super) fn note(self, method: &str) -> InvalidTool {
        let reason = match self {
            ListCut::CursorRepeated => Text::new("errListCursorRepeated").arg(method),
            ListCut::PageCap => Text::new("errListPageCap").arg(method).arg(MAX_LIST_PAGES),
        };
        InvalidTool { name: None, reason }
    }
}

pub struct Client<T: HttpTransport> {
    pub(super) transport: T,
    pub(super) config: ServerConfig,
    pub(super) session: RefCell<Option<SessionState>>,
    pub(super) server: RefCell<Option<ServerDescription>>,
    pub(super) next_id: Cell<i64>,
    pub(super) tools_changed: Cell<bool>,
    /// The session's standalone SSE stream (see `standalone`).
    pub(super) standalone: RefCell<Slot<T::Body>>,
    /// Per tool, the parameters 2026-07-28 mirrors into headers (from the last tool list).
    /// A list, not a `HashMap`: looked up once per call, and a map type of its own was ~1 KB
    /// of the worker's wasm.
    pub(super) param_headers: RefCell<Vec<(String, Vec<ParamHeader>)>>,
    /// The GET stream of a server on the deprecated HTTP+SSE transport (see `legacy`).
    pub(super) legacy: Channel<T::Body>,
    /// Opening or renewing the session: concurrent first requests open one, not several.
    pub(super) connecting: SingleFlight<Result<SessionState, Error>>,
    /// How a call asks the watcher of the standalone stream for it (see `watch`).
    pub(super) watching: RefCell<Option<super::watch::Handoff>>,
    /// Standalone streams opened so far.
    pub(super) streams_opened: Cell<u64>,
}

/// What one POST produced.
pub(super) struct Reply {
    pub(super) result: Value,
    pub(super) session_id: Option<String>,
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
            watching: RefCell::new(None),
            streams_opened: Cell::new(0),
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
    pub(super) async fn renew(&self, expired: &SessionState) -> Result<SessionState, Error> {
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
        let (freshness, cut) = self
            .paginate("tools/list", |page: ListToolsResult| {
                let next = page.next_cursor.clone();
                let (tools, invalid) = page.split();
                list.tools.extend(tools);
                list.invalid.extend(invalid);
                next
            })
            .await?;
        list.freshness = freshness;
        list.invalid.extend(cut.map(|cut| cut.note("tools/list")));
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
                    broken.push(InvalidTool { name: Some(tool.name.clone()), reason: e });
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
        // A cut list of resources is what there is to offer: no place for a note yet.
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
        let sent =
            first(self.send(request), self.transport.sleep(self.config.notification_timeout)).await;
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
    /// the list. Says why when the list ended before the server said it was complete.
    pub(super) async fn paginate<P: DeserializeOwned>(
        &self,
        method: &str,
        mut take: impl FnMut(P) -> Option<String>,
    ) -> Result<(Freshness, Option<ListCut>), Error> {
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
                None => return Ok((freshness, None)),
                Some(next) if seen.contains(&next) => {
                    return Ok((freshness, Some(ListCut::CursorRepeated)))
                }
                Some(next) => {
                    seen.push(next.clone());
                    cursor = Some(next);
                }
            }
        }
        Ok((freshness, Some(ListCut::PageCap)))
    }

    pub(super) fn decode<R: DeserializeOwned>(
        &self,
        method: &str,
        value: Value,
    ) -> Result<R, Error> {
        crate::decode::from_value("the result", value).map_err(|e| {
            self.error(Kind::Protocol(Text::new("errMcpResultShape").arg(e))).with_method(method)
        })
    }

    /// Sends one request with the whole protocol around it: connecting, timeouts, cancellation,
    /// session renewal and 2026-07-28 input rounds.
    pub(super) async fn request(
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

    pub(super) async fn request_with_renewal(
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

    pub(super) async fn request_in_session(
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
        Err(self.error(Kind::Protocol(Text::new("errMcpInputRounds").arg(MAX_INPUT_ROUNDS))))
    }

    pub(super) async fn answer_input_requests(
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
                    return Err(self.error(Kind::Protocol(
                        Text::new("errMcpCannotAnswer").arg(method).arg(&e.message),
                    )))
                }
            };
        }
        Ok(responses)
    }

    /// The answer to a server-to-client request, whichever era it came in.
    pub(super) async fn answer_server_request(
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
}

/// The size of a value as JSON text, for the bounds on lists.
fn json_size(value: &Value) -> usize {
    serde_json::to_vec(value).map_or(usize::MAX, |text| text.len())
}
