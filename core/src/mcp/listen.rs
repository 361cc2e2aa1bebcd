//! Change notifications under protocol 2026-07-28: `subscriptions/listen`.
//!
//! A stateless server cannot push outside a request, so the client POSTs a long-lived
//! `subscriptions/listen` naming the notifications it wants; the SSE reply first acknowledges
//! the subset the server honours, then carries those notifications (each stamped with the
//! subscription id, the request's JSON-RPC id) until the client drops the stream or the server
//! ends it with a `resultType: "complete"` response. Handshake-era sessions get their changes on
//! reply streams instead (see `standalone`); for them `listen` answers "not supported".
//!
//! `Subscription` decides what each message means (no I/O, unit-tested); `Client::listen` reads
//! the stream; `Client::keep_listening` reopens it with `Reopen`'s backoff.

use super::client::Client;
use super::error::{Error, Kind};
use super::reply::ReplyDecoder;
use super::transport::{HttpRequest, HttpTransport, Method, ResponseBody, Timer, TransportError};
use crate::backoff::Backoff;
use crate::jsonrpc::{code, Id, Message, Request, Response};
use crate::sync::{first, CancelToken, Either};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::time::Duration;

const METHOD: &str = "subscriptions/listen";
const SUBSCRIPTION_ID: &str = "/_meta/io.modelcontextprotocol~1subscriptionId";

/// Which change notifications a subscription carries.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListenFilter {
    #[serde(default, skip_serializing_if = "is_false")]
    pub tools_list_changed: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub prompts_list_changed: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub resources_list_changed: bool,
    /// URIs whose `notifications/resources/updated` the client wants.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_subscriptions: Vec<String>,
}

fn is_false(on: &bool) -> bool {
    !on
}

impl ListenFilter {
    /// The list changes of tools only.
    pub fn tools() -> Self {
        ListenFilter { tools_list_changed: true, ..ListenFilter::default() }
    }

    /// What an acknowledgment grants, never more than was asked for; an acknowledgment that
    /// cannot be read grants nothing.
    fn granted(acknowledged: Option<&Value>, requested: &ListenFilter) -> Self {
        let granted: ListenFilter =
            acknowledged.and_then(|a| serde_json::from_value(a.clone()).ok()).unwrap_or_default();
        ListenFilter {
            tools_list_changed: requested.tools_list_changed && granted.tools_list_changed,
            prompts_list_changed: requested.prompts_list_changed && granted.prompts_list_changed,
            resources_list_changed: requested.resources_list_changed
                && granted.resources_list_changed,
            resource_subscriptions: requested
                .resource_subscriptions
                .iter()
                .filter(|uri| granted.resource_subscriptions.contains(uri))
                .cloned()
                .collect(),
        }
    }

    pub fn is_empty(&self) -> bool {
        !self.tools_list_changed
            && !self.prompts_list_changed
            && !self.resources_list_changed
            && self.resource_subscriptions.is_empty()
    }
}

/// What a subscription delivers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ListenEvent {
    /// The server honours this part of the filter (possibly nothing).
    Acknowledged(ListenFilter),
    /// From `keep_listening`: acknowledged again after the stream had ended. Changes made
    /// meanwhile were not announced, so lists should be fetched again.
    Reopened(ListenFilter),
    ToolsListChanged,
    PromptsListChanged,
    ResourcesListChanged,
    /// A subscribed resource changed.
    ResourceUpdated(String),
}

/// How an acknowledged subscription ended without an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListenEnd {
    /// The server closed it on purpose (its `resultType: "complete"` response).
    Completed,
    /// The stream stopped without that response: an unexpected drop, worth reopening.
    Dropped,
}

enum Step {
    Nothing,
    Event(ListenEvent),
    Done(Result<ListenEnd, Kind>),
}

/// The meaning of each message on one subscription's stream.
struct Subscription {
    request_id: Id,
    /// The request id as it appears in `_meta`.
    stamp: Value,
    requested: ListenFilter,
    acknowledged: Option<ListenFilter>,
}

impl Subscription {
    fn new(request_id: Id, requested: ListenFilter) -> Self {
        let stamp = serde_json::json!(request_id);
        Subscription { request_id, stamp, requested, acknowledged: None }
    }

    fn on_message(&mut self, message: Message) -> Step {
        let notification = match message {
            Message::Response(Response { id: Some(id), outcome }) if id == self.request_id => {
                return Step::Done(match outcome {
                    Ok(_) => Ok(ListenEnd::Completed),
                    Err(e) => Err(Kind::Rpc(Box::new(e))),
                });
            }
            Message::Response(Response { id: None, outcome: Err(e) }) => {
                return Step::Done(Err(Kind::Rpc(Box::new(e))));
            }
            Message::Notification(n) => n,
            _ => return Step::Nothing,
        };
        let params = notification.params.unwrap_or(Value::Null);
        // Everything on the stream names its subscription; what names another is not ours.
        if params.pointer(SUBSCRIPTION_ID) != Some(&self.stamp) {
            return Step::Nothing;
        }
        match (notification.method.as_str(), &self.acknowledged) {
            ("notifications/subscriptions/acknowledged", None) => {
                let granted = ListenFilter::granted(params.get("notifications"), &self.requested);
                self.acknowledged = Some(granted.clone());
                Step::Event(ListenEvent::Acknowledged(granted))
            }
            // Nothing counts before the acknowledgment, nor what was not granted.
            ("notifications/tools/list_changed", Some(f)) if f.tools_list_changed => {
                Step::Event(ListenEvent::ToolsListChanged)
            }
            ("notifications/prompts/list_changed", Some(f)) if f.prompts_list_changed => {
                Step::Event(ListenEvent::PromptsListChanged)
            }
            ("notifications/resources/list_changed", Some(f)) if f.resources_list_changed => {
                Step::Event(ListenEvent::ResourcesListChanged)
            }
            ("notifications/resources/updated", Some(f)) => {
                match params.get("uri").and_then(Value::as_str) {
                    Some(uri) if f.resource_subscriptions.iter().any(|s| s == uri) => {
                        Step::Event(ListenEvent::ResourceUpdated(uri.to_owned()))
                    }
                    _ => Step::Nothing,
                }
            }
            _ => Step::Nothing,
        }
    }

    /// The stream stopped without a response.
    fn stream_stopped(&self, broke: Option<TransportError>) -> Result<ListenEnd, Kind> {
        match (&self.acknowledged, broke) {
            (Some(_), _) => Ok(ListenEnd::Dropped),
            (None, Some(e)) => Err(Kind::Transport(e)),
            (None, None) => Err(Kind::StreamEnded),
        }
    }
}

impl<T: HttpTransport + Timer> Client<T>
where
    T::Body: 'static,
{
    /// Whether a subscription could carry changes: a stateless session whose server advertises
    /// `listChanged` of tools, prompts or resources, or resource updates (`subscribe`), or was
    /// not asked in this process (a resumed session).
    pub fn may_announce_changes(&self) -> bool {
        let announces = |s: super::ServerDescription| {
            let on = |kind: &str, what: &str| {
                s.capabilities.get(kind).and_then(|t| t.get(what)) == Some(&Value::Bool(true))
            };
            on("tools", "listChanged")
                || on("prompts", "listChanged")
                || on("resources", "listChanged")
                || on("resources", "subscribe")
        };
        self.session().is_some_and(|s| s.is_modern()) && self.server().is_none_or(announces)
    }

    /// What a subscription of this server can carry of `wanted`: the parts its capabilities
    /// advertise (all of it for a server not asked in this process).
    pub fn listen_filter(&self, wanted: &ListenFilter) -> ListenFilter {
        let Some(server) = self.server() else { return wanted.clone() };
        let on = |kind: &str, what: &str| {
            server.capabilities.get(kind).and_then(|t| t.get(what)) == Some(&Value::Bool(true))
        };
        ListenFilter {
            tools_list_changed: wanted.tools_list_changed && on("tools", "listChanged"),
            prompts_list_changed: wanted.prompts_list_changed && on("prompts", "listChanged"),
            resources_list_changed: wanted.resources_list_changed && on("resources", "listChanged"),
            resource_subscriptions: match on("resources", "subscribe") {
                true => wanted.resource_subscriptions.clone(),
                false => Vec::new(),
            },
        }
    }

    /// Opens a `subscriptions/listen` stream and hands its events to `on_event` until the server
    /// ends it (`Completed`) or the stream stops (`Dropped`). Dropping the future closes the
    /// stream, which is how a client cancels. The reply's head must arrive within the request
    /// timeout; each message is bounded by the reply size cap. Handshake-era sessions: an error
    /// with `is_unsupported()`.
    pub async fn listen(
        &self,
        filter: ListenFilter,
        mut on_event: impl FnMut(ListenEvent),
    ) -> Result<ListenEnd, Error> {
        self.listen_once(filter, &mut on_event).await.map_err(|e| e.with_method(METHOD))
    }

    // `dyn`: each caller's closure would otherwise make a copy of the whole stream reading in
    // the worker's wasm (it has two: list changes and resource updates).
    async fn listen_once(
        &self,
        filter: ListenFilter,
        on_event: &mut dyn FnMut(ListenEvent),
    ) -> Result<ListenEnd, Error> {
        let session = self.connect().await?;
        if !session.is_modern() {
            return Err(self.error(Kind::Unsupported(crate::text::Text::new("errMcpNoListen"))));
        }
        let id = self.fresh_id();
        let mut params = Map::new();
        params.insert("_meta".into(), Value::Object(self.modern_meta()));
        params.insert("notifications".into(), serde_json::json!(&filter));
        let request =
            Request { id: id.clone(), method: METHOD.into(), params: Some(params.into()) };
        let mut headers = self.session_headers(&session);
        headers.push(("Mcp-Method".into(), METHOD.into()));
        let http = HttpRequest {
            method: Method::Post,
            url: self.config.url.clone(),
            headers,
            body: Some(Message::Request(request).to_json()),
        };
        let timeout = self.config.request_timeout;
        let mut response = match first(self.send(http), self.transport.sleep(timeout)).await {
            Either::Left(sent) => sent.map_err(|e| self.error(Kind::Transport(e)))?,
            Either::Right(()) => return Err(self.error(Kind::Timeout(timeout))),
        };
        if !(200..300).contains(&response.status) {
            return Err(self.error(self.http_error(response).await));
        }
        let content_type = response.header("Content-Type").map(str::to_owned);
        let mut decoder =
            ReplyDecoder::for_content_type(content_type.as_deref(), self.config.max_reply_bytes)
                .map_err(|e| self.decode_error(e))?;
        let mut subscription = Subscription::new(id, filter);
        loop {
            let (messages, stopped) = match response.body.next_chunk().await {
                Ok(Some(chunk)) => (decoder.feed(chunk), None),
                Ok(None) => (decoder.finish(), Some(None)),
                Err(e) => (Ok(Vec::new()), Some(Some(e))),
            };
            for message in messages.map_err(|e| self.decode_error(e))? {
                match subscription.on_message(message) {
                    Step::Nothing => {}
                    Step::Event(event) => on_event(event),
                    Step::Done(end) => return end.map_err(|kind| self.error(kind)),
                }
            }
            if decoder.is_stream() {
                // The SSE parser bounds each event; a JSON body stays bounded as a whole.
                decoder.restart_count();
            }
            if let Some(broke) = stopped {
                return subscription.stream_stopped(broke).map_err(|kind| self.error(kind));
            }
        }
    }

    /// Keeps a subscription open until `stop` fires, reopening it after it ended (see
    /// [`Reopen`]). `now_ms` is the host's clock. Returns `Ok` when stopped or when the server
    /// honours none of `filter`, and the error that made reopening pointless otherwise.
    pub async fn keep_listening(
        &self,
        filter: ListenFilter,
        mut on_event: impl FnMut(ListenEvent),
        stop: &CancelToken,
        now_ms: impl Fn() -> u64,
    ) -> Result<(), Error> {
        self.keep_listening_dyn(filter, &mut on_event, stop, &now_ms).await
    }

    async fn keep_listening_dyn(
        &self,
        filter: ListenFilter,
        on_event: &mut dyn FnMut(ListenEvent),
        stop: &CancelToken,
        now_ms: &dyn Fn() -> u64,
    ) -> Result<(), Error> {
        let mut reopen = Reopen::default();
        let mut acknowledged_before = false;
        loop {
            let started = now_ms();
            let mut acknowledged = None;
            let listening = self.listen(filter.clone(), |event| {
                let event = match event {
                    ListenEvent::Acknowledged(granted) => {
                        acknowledged = Some(granted.clone());
                        if acknowledged_before {
                            ListenEvent::Reopened(granted)
                        } else {
                            ListenEvent::Acknowledged(granted)
                        }
                    }
                    other => other,
                };
                on_event(event);
            });
            let outcome = match first(listening, stop.cancelled()).await {
                Either::Left(outcome) => outcome,
                Either::Right(()) => return Ok(()),
            };
            acknowledged_before |= acknowledged.is_some();
            let lasted = now_ms().saturating_sub(started);
            let Some(wait) = reopen.after(&outcome, acknowledged, lasted) else {
                return outcome.map(drop);
            };
            if let Either::Right(()) = first(self.transport.sleep(wait), stop.cancelled()).await {
                return Ok(());
            }
        }
    }
}

/// When to open a subscription again after it ended: with a doubling wait (1 s up to 5 min)
/// while attempts keep failing, back to 1 s after one that lasted a minute; never when the
/// server cannot or will not deliver (old protocol, no `subscriptions/listen`, sign-in needed,
/// nothing of the filter honoured).
#[derive(Debug, Default)]
pub struct Reopen {
    failures: u32,
}

const WAITS: Backoff = Backoff { first: Duration::from_secs(1), max: Duration::from_secs(5 * 60) };
const STABLE_MS: u64 = 60_000;

impl Reopen {
    pub fn after(
        &mut self,
        outcome: &Result<ListenEnd, Error>,
        acknowledged: Option<ListenFilter>,
        lasted_ms: u64,
    ) -> Option<Duration> {
        if acknowledged.as_ref().is_some_and(ListenFilter::is_empty) {
            return None;
        }
        if let Err(e) = outcome {
            let pointless = e.is_unsupported()
                || e.is_auth_required()
                || e.is_not_mcp_server()
                || matches!(e.status(), Some(403..=405))
                || e.rpc_error().is_some_and(|rpc| {
                    matches!(rpc.code, code::METHOD_NOT_FOUND | code::INVALID_PARAMS)
                });
            if pointless {
                return None;
            }
        }
        if acknowledged.is_some() && lasted_ms >= STABLE_MS {
            self.failures = 0;
        }
        let wait = WAITS.delay(self.failures);
        self.failures = self.failures.saturating_add(1);
        Some(wait)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonrpc::{ErrorObject, Notification};
    use serde_json::json;

    fn note(method: &str, params: Value) -> Message {
        Message::Notification(Notification { method: method.into(), params: Some(params) })
    }

    fn stamped(id: i64, mut params: Value) -> Value {
        params["_meta"] = json!({"io.modelcontextprotocol/subscriptionId": id});
        params
    }

    fn both() -> ListenFilter {
        ListenFilter {
            tools_list_changed: true,
            resources_list_changed: true,
            ..ListenFilter::default()
        }
    }

    fn event(step: Step) -> Option<ListenEvent> {
        match step {
            Step::Event(e) => Some(e),
            _ => None,
        }
    }

    #[test]
    fn the_filter_is_sent_as_the_spec_names_it() {
        assert_eq!(json!(both()), json!({"toolsListChanged": true, "resourcesListChanged": true}));
        assert_eq!(json!(ListenFilter::default()), json!({}));
    }

    #[test]
    fn notifications_count_only_after_the_acknowledgment_and_only_when_granted() {
        let mut sub = Subscription::new(Id::Number(7), both());
        let tools = note("notifications/tools/list_changed", stamped(7, json!({})));
        assert!(event(sub.on_message(tools.clone())).is_none(), "before the ack");
        // The server honours a subset, and cannot grant what was not asked for.
        let ack = note(
            "notifications/subscriptions/acknowledged",
            stamped(
                7,
                json!({"notifications": {"toolsListChanged": true, "promptsListChanged": true}}),
            ),
        );
        let granted = ListenFilter::tools();
        assert_eq!(event(sub.on_message(ack)), Some(ListenEvent::Acknowledged(granted)));
        assert_eq!(event(sub.on_message(tools)), Some(ListenEvent::ToolsListChanged));
        let resources = note("notifications/resources/list_changed", stamped(7, json!({})));
        assert!(event(sub.on_message(resources)).is_none(), "not granted");
        let other = note("notifications/tools/list_changed", stamped(8, json!({})));
        assert!(event(sub.on_message(other)).is_none(), "another subscription's");
        let unstamped = note("notifications/tools/list_changed", json!({}));
        assert!(event(sub.on_message(unstamped)).is_none());
    }

    #[test]
    fn resource_updates_count_only_for_the_uris_granted() {
        let wanted = ListenFilter {
            prompts_list_changed: true,
            resource_subscriptions: vec!["file:///a".into(), "file:///b".into()],
            ..ListenFilter::default()
        };
        assert_eq!(
            json!(&wanted),
            json!({"promptsListChanged": true, "resourceSubscriptions": ["file:///a", "file:///b"]})
        );
        let mut sub = Subscription::new(Id::Number(2), wanted);
        let ack = note(
            "notifications/subscriptions/acknowledged",
            stamped(
                2,
                json!({"notifications": {"promptsListChanged": true,
                    "resourceSubscriptions": ["file:///b", "file:///c"]}}),
            ),
        );
        let granted = ListenFilter {
            prompts_list_changed: true,
            resource_subscriptions: vec!["file:///b".into()],
            ..ListenFilter::default()
        };
        assert_eq!(event(sub.on_message(ack)), Some(ListenEvent::Acknowledged(granted)));
        let updated =
            |uri: &str| note("notifications/resources/updated", stamped(2, json!({"uri": uri})));
        assert_eq!(
            event(sub.on_message(updated("file:///b"))),
            Some(ListenEvent::ResourceUpdated("file:///b".into()))
        );
        assert!(event(sub.on_message(updated("file:///a"))).is_none(), "not granted");
        assert!(event(sub.on_message(updated("file:///c"))).is_none(), "not asked for");
        let prompts = note("notifications/prompts/list_changed", stamped(2, json!({})));
        assert_eq!(event(sub.on_message(prompts)), Some(ListenEvent::PromptsListChanged));
    }

    #[test]
    fn a_response_ends_the_subscription_gracefully_or_with_its_error() {
        let mut sub = Subscription::new(Id::Number(3), both());
        let other = Message::Response(Response { id: Some(Id::Number(4)), outcome: Ok(json!({})) });
        assert!(matches!(sub.on_message(other), Step::Nothing));
        let done = Message::Response(Response {
            id: Some(Id::Number(3)),
            outcome: Ok(json!({"resultType": "complete"})),
        });
        assert!(matches!(sub.on_message(done), Step::Done(Ok(ListenEnd::Completed))));
        let refused = Message::Response(Response {
            id: Some(Id::Number(3)),
            outcome: Err(ErrorObject::new(-32603, "Subscription limit reached")),
        });
        assert!(matches!(sub.on_message(refused), Step::Done(Err(Kind::Rpc(_)))));
    }

    #[test]
    fn a_stream_that_stops_is_a_drop_after_the_ack_and_an_error_before() {
        let mut sub = Subscription::new(Id::String("s".into()), both());
        assert!(matches!(sub.stream_stopped(None), Err(Kind::StreamEnded)));
        let ack = note(
            "notifications/subscriptions/acknowledged",
            json!({"_meta": {"io.modelcontextprotocol/subscriptionId": "s"}, "notifications": {}}),
        );
        assert_eq!(
            event(sub.on_message(ack)),
            Some(ListenEvent::Acknowledged(ListenFilter::default()))
        );
        let broke = Some(TransportError::io("reset"));
        assert!(matches!(sub.stream_stopped(broke), Ok(ListenEnd::Dropped)));
    }

    fn failed(kind: Kind) -> Result<ListenEnd, Error> {
        Err(Error::new(kind, "http://127.0.0.1/mcp"))
    }

    #[test]
    fn reopening_backs_off_while_failing_and_recovers_after_a_stable_stream() {
        let mut reopen = Reopen::default();
        let down = failed(Kind::Transport(TransportError::connect("refused")));
        let waits: Vec<u64> = (0..11)
            .map(|_| reopen.after(&down, None, 5).map(|d| d.as_millis() as u64).unwrap_or(0))
            .collect();
        assert_eq!(
            waits,
            [
                1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 256_000, 300_000,
                300_000
            ]
        );
        // A stream that was acknowledged and lasted a minute resets the wait.
        let granted = Some(both());
        let wait = reopen.after(&Ok(ListenEnd::Dropped), granted.clone(), STABLE_MS);
        assert_eq!(wait, Some(Duration::from_millis(1_000)));
        // One that was acknowledged but dropped at once does not: no tight loop.
        let wait = reopen.after(&Ok(ListenEnd::Completed), granted, 10);
        assert_eq!(wait, Some(Duration::from_millis(2_000)));
    }

    #[test]
    fn reopening_stops_when_the_server_cannot_deliver() {
        let mut reopen = Reopen::default();
        assert_eq!(reopen.after(&Ok(ListenEnd::Completed), Some(ListenFilter::default()), 0), None);
        assert_eq!(
            reopen.after(&failed(Kind::Unsupported(crate::text::Text::new("x"))), None, 0),
            None
        );
        let missing = ErrorObject::new(code::METHOD_NOT_FOUND, "Method not found");
        assert_eq!(reopen.after(&failed(Kind::Rpc(Box::new(missing))), None, 0), None);
        let sign_in = Kind::Http { status: 401, message: None, www_authenticate: None, rpc: None };
        assert_eq!(reopen.after(&failed(sign_in), None, 0), None);
        let busy = ErrorObject::new(-32603, "Subscription limit reached");
        assert!(reopen.after(&failed(Kind::Rpc(Box::new(busy))), None, 0).is_some());
        let flaky = Kind::Http { status: 503, message: None, www_authenticate: None, rpc: None };
        assert!(reopen.after(&failed(flaky), None, 0).is_some());
    }
}
