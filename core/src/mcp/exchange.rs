//! One HTTP exchange: a POST and its reply, JSON or SSE, resumed with `Last-Event-ID` when an
//! SSE reply breaks; the server's requests and notifications met on the way; plain messages
//! (notifications, responses) that expect no reply.

use super::client::*;
use super::error::{Error, Kind};
use super::headers::encode_value;
use super::param_headers;
use super::reply::{DecodeError, ReplyDecoder};
use super::session::SessionState;
use super::transport::{
    HttpRequest, HttpResponse, HttpTransport, Method, ResponseBody, Timer, TransportError,
};
use crate::jsonrpc::{Id, Message, Notification, Request, Response};
use crate::sync::{first, Either};
use serde_json::{json, Map, Value};
use std::time::Duration;

impl<T: HttpTransport + Timer> Client<T>
where
    T::Body: 'static,
{
    // ---- one HTTP exchange -------------------------------------------------------------------

    /// POSTs one request and reads its reply, JSON or SSE, until the response to it arrives.
    pub(super) async fn exchange(
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
        let response = self.send(http).await.map_err(|e| self.error(Kind::Transport(e)))?;
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

    /// Reads replies until the response with `id`, resuming a broken SSE stream when it can.
    pub(super) async fn read_reply(
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
                        let messages = decoder.feed(chunk).map_err(|e| self.decode_error(e))?;
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
    pub(super) async fn resume(
        &self,
        session: &SessionState,
        last_event_id: &str,
    ) -> Result<HttpResponse<T::Body>, Error> {
        let mut headers = self.stream_get_headers(session);
        headers.push(("Last-Event-ID".into(), last_event_id.into()));
        let request =
            HttpRequest { method: Method::Get, url: self.config.url.clone(), headers, body: None };
        let response = self.send(request).await.map_err(|e| self.error(Kind::Transport(e)))?;
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

    pub(super) fn handle_notification(&self, notification: Notification, handler: &dyn Handler) {
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
            "notifications/prompts/list_changed" => CallEvent::PromptsListChanged,
            "notifications/resources/updated" => match params.get("uri").and_then(Value::as_str) {
                Some(uri) => CallEvent::ResourceUpdated { uri: uri.to_owned() },
                None => return,
            },
            "notifications/message" => CallEvent::Log {
                level: params.get("level").and_then(Value::as_str).unwrap_or("info").to_owned(),
                data: params.get("data").cloned().unwrap_or(Value::Null),
            },
            _ => return,
        };
        handler.on_event(event);
    }

    // ---- notifications and plain messages ----------------------------------------------------

    pub(super) async fn notify(
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

    pub(super) async fn notify_cancelled(&self, id: &Id, reason: &str) {
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
        let response = self.send(http).await.map_err(|e| self.error(Kind::Transport(e)))?;
        if (200..300).contains(&response.status) {
            Ok(())
        } else {
            Err(self.error(self.http_error(response).await))
        }
    }

    // ---- helpers -----------------------------------------------------------------------------

    /// Sends one request as the sign-in says: a token bound to a key (DPoP) goes with a fresh
    /// proof, and a server that answers asking for a (new) nonce gets the request once more
    /// with a proof using it (RFC 9449 §9). Every request of the client leaves through here.
    pub(super) async fn send(
        &self,
        request: HttpRequest,
    ) -> Result<HttpResponse<T::Body>, TransportError> {
        let proof = self.config.authorization.proof();
        // The token the request carries, read off its header: the one the proof must name.
        let token = request
            .header("Authorization")
            .and_then(|value| value.strip_prefix("DPoP "))
            .map(str::to_owned);
        let (Some(proof), Some(token)) = (proof, token) else {
            return self.transport.send(request).await;
        };
        let mut retried = false;
        loop {
            let mut attempt = request.clone();
            let header = proof
                .proof(attempt.method, &attempt.url, &token)
                .await
                .map_err(|e| TransportError::io(format!("no DPoP proof could be made: {e}")))?;
            attempt.headers.push(("DPoP".into(), header));
            let response = self.transport.send(attempt).await?;
            let again = proof.answered(&request.url, response.status, &response.headers);
            if again && !retried {
                retried = true;
                continue;
            }
            return Ok(response);
        }
    }

    pub(super) fn fresh_id(&self) -> Id {
        let n = self.next_id.get();
        self.next_id.set(n + 1);
        Id::Number(n)
    }

    pub(super) fn base_headers(&self) -> Vec<(String, String)> {
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
    pub(super) fn stream_get_headers(&self, session: &SessionState) -> Vec<(String, String)> {
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

/// The `progressToken` of a tool call: progress notifications name the call they belong to.
pub(super) fn progress_token(id: &Id) -> String {
    format!("progress-{id}")
}

#[cfg(test)]
mod tests {
    #[test]
    fn unknown_session_replies_are_found_as_a_substring_search_would() {
        use super::{is_unknown_session_reply, Kind};
        use crate::jsonrpc::ErrorObject;
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
