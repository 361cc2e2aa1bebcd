//! The deprecated HTTP+SSE transport of protocol 2024-11-05: the client's last fallback.
//!
//! A server of that era takes no POST at its URL. The client GETs the URL instead and keeps the
//! SSE stream open; its `endpoint` event names where to POST every message. All the server says
//! (responses, notifications, its own requests) then arrives on that one stream, so requests
//! running in parallel share one reader: whichever waiting request is polled reads the stream and
//! hands each message to the request it belongs to (by id, or by progress token). The pending read
//! lives in the [`Channel`], not in a request's future, so a request that ends or is cancelled
//! loses nothing of the others'. A stream that ends fails every waiting request; the next request
//! opens a new stream (a new endpoint, a new `initialize`).

use super::client::{Client, Handler};
use super::error::{Error, Kind};
use super::exchange::progress_token;
use super::negotiate::unnegotiated;
use super::session::SessionState;
use super::transport::{HttpRequest, HttpTransport, Method, ResponseBody, Timer, TransportError};
use crate::jsonrpc::{Id, Message, Request, Response};
use crate::sse;
use crate::text::Text;
use crate::web_url::{self, WebUrl};
use serde_json::Value;
use std::cell::RefCell;
use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

/// The POST of a request over HTTP+SSE, until its 202 arrives.
type Posting<'a> = Option<Pin<Box<dyn Future<Output = Result<(), Error>> + 'a>>>;

type Read<B> = Pin<Box<dyn Future<Output = (B, Result<Option<Vec<u8>>, TransportError>)>>>;

fn read_next<B: ResponseBody + 'static>(mut body: B) -> Read<B> {
    Box::pin(async move {
        let chunk = body.next_chunk().await;
        (body, chunk)
    })
}

/// The message endpoint named by the `endpoint` event, resolved against the server URL. Another
/// origin is refused: the server's URL is the one the person chose to trust (and send headers to).
pub(crate) fn resolve_endpoint(server_url: &str, data: &str) -> Result<String, Text> {
    let base = web_url::parse(server_url).ok_or_else(|| Text::new("errUrlUnparsable"))?;
    let endpoint = web_url::join(base.as_str(), data.trim())
        .ok_or_else(|| Text::new("errMcpEndpointInvalid"))?;
    if origin(&endpoint) != origin(&base) {
        let host = endpoint.host_str().unwrap_or_default().to_owned();
        return Err(Text::new("errMcpEndpointElsewhere").arg(host));
    }
    Ok(endpoint.into())
}

/// Compared part by part. Both parsers drop a scheme's default port, so `port` compares as the
/// origin's port does.
fn origin(url: &WebUrl) -> (&str, &str, Option<u16>) {
    (&url.scheme, &url.hostname, url.port)
}

/// The stream of one client and the requests waiting on it.
pub(crate) struct Channel<B>(RefCell<State<B>>);

struct State<B> {
    link: Option<Link<B>>,
    /// A request is opening the stream; others wait for it instead of opening a second one.
    connecting: bool,
    waiting_to_connect: Vec<Waker>,
    waiters: Vec<Waiter>,
    /// Server messages no waiting request claims, for whichever request runs next.
    unclaimed: Vec<Message>,
}

struct Link<B> {
    endpoint: String,
    read: Read<B>,
    parser: sse::Parser,
}

struct Waiter {
    id: Id,
    /// Tool calls get the server's requests: their handler can ask the person.
    is_call: bool,
    outcome: Option<Result<Value, Kind>>,
    inbox: Vec<Message>,
    waker: Option<Waker>,
}

enum Step {
    Done(Result<Value, Kind>),
    /// A server message this request handles before it goes on waiting.
    Handle(Message),
}

impl<B: ResponseBody + 'static> Channel<B> {
    pub fn new() -> Self {
        Channel(RefCell::new(State {
            link: None,
            connecting: false,
            waiting_to_connect: Vec::new(),
            waiters: Vec::new(),
            unclaimed: Vec::new(),
        }))
    }

    pub fn endpoint(&self) -> Option<String> {
        self.0.borrow().link.as_ref().map(|l| l.endpoint.clone())
    }

    /// Drops the stream; every waiting request fails.
    pub fn close(&self) {
        self.0.borrow_mut().fail(Kind::StreamEnded);
    }

    /// Whether a stream is open, once no other request is opening one.
    async fn is_open(&self) -> bool {
        poll_fn(|cx| {
            let mut state = self.0.borrow_mut();
            if state.connecting {
                state.waiting_to_connect.push(cx.waker().clone());
                return Poll::Pending;
            }
            // A waiting request reads the stream itself; an idle one may have ended unseen.
            if state.waiters.is_empty() {
                state.read_ready(cx);
            }
            Poll::Ready(state.link.is_some())
        })
        .await
    }

    fn open(&self, endpoint: String, body: B, parser: sse::Parser, rest: Vec<sse::Event>) {
        let mut state = self.0.borrow_mut();
        state.link = Some(Link { endpoint, read: read_next(body), parser });
        if let Err(kind) = state.dispatch(rest) {
            state.fail(kind);
        }
    }

    fn wait_for(&self, id: Id, is_call: bool) -> Waiting<'_, B> {
        let waiter =
            Waiter { id: id.clone(), is_call, outcome: None, inbox: Vec::new(), waker: None };
        self.0.borrow_mut().waiters.push(waiter);
        Waiting { channel: self, id }
    }

    /// What the request `id` does next: handle a message, or finish. Reads the stream meanwhile.
    fn poll_step(&self, id: &Id, cx: &mut Context<'_>) -> Poll<Step> {
        let mut state = self.0.borrow_mut();
        let state = &mut *state;
        // Reading first leaves a read in flight when the request returns, so the death of a
        // stream that then sits idle is known before the next request is sent.
        state.read_ready(cx);
        let Some(waiter) = state.waiters.iter_mut().find(|w| &w.id == id) else {
            return Poll::Ready(Step::Done(Err(Kind::StreamEnded)));
        };
        // Progress sent before the result is shown before the call ends.
        if let Some(message) = first_of(&mut waiter.inbox) {
            return Poll::Ready(Step::Handle(message));
        }
        if let Some(outcome) = waiter.outcome.take() {
            return Poll::Ready(Step::Done(outcome));
        }
        if let Some(message) = first_of(&mut state.unclaimed) {
            return Poll::Ready(Step::Handle(message));
        }
        waiter.waker = Some(cx.waker().clone());
        match state.link {
            Some(_) => Poll::Pending,
            None => Poll::Ready(Step::Done(Err(Kind::StreamEnded))),
        }
    }
}

impl<B: ResponseBody + 'static> State<B> {
    /// Reads what the stream has ready without waiting for more. A stream that ended while no
    /// request was waiting is noticed here, before a request is POSTed into a session the
    /// server has already forgotten.
    fn read_ready(&mut self, cx: &mut Context<'_>) {
        while let Some(link) = self.link.as_mut() {
            let Poll::Ready((body, chunk)) = link.read.as_mut().poll(cx) else { return };
            self.take(body, chunk);
        }
    }

    /// Dispatches a chunk the stream gave and reads on, or fails everyone when it broke.
    fn take(&mut self, body: B, chunk: Result<Option<Vec<u8>>, TransportError>) {
        let Some(link) = self.link.as_mut() else { return };
        let failure = match chunk {
            Ok(Some(bytes)) => {
                link.read = read_next(body);
                let mut events = Vec::new();
                let fed = link.parser.feed(&bytes, &mut events);
                // Gone before the events are parsed (see `ReplyDecoder::feed`).
                drop(bytes);
                let dispatched = self.dispatch(events);
                match fed {
                    // Whose reply was too large cannot be known: all fail, none hangs.
                    Err(sse::Error::EventTooLarge { limit }) => Some(Kind::TooLarge { limit }),
                    Ok(()) => dispatched.err(),
                }
            }
            Ok(None) => Some(Kind::StreamEnded),
            Err(e) => Some(Kind::Transport(e)),
        };
        if let Some(kind) = failure {
            self.fail(kind);
        }
    }
}

impl<B> State<B> {
    fn dispatch(&mut self, events: Vec<sse::Event>) -> Result<(), Kind> {
        for event in events {
            if event.event != "message" || event.data.is_empty() {
                continue;
            }
            let message = Message::parse(event.data.as_bytes())
                .map_err(|e| Kind::Malformed(format!("an SSE event: {e}")))?;
            self.route(message);
        }
        Ok(())
    }

    fn route(&mut self, message: Message) {
        let target = match &message {
            // A response nobody waits for answers a request given up on (cancelled, timed out).
            Message::Response(Response { id: Some(id), .. }) => {
                self.waiters.iter().position(|w| &w.id == id)
            }
            // An error the server could not attribute: any waiting request may have caused it.
            Message::Response(Response { id: None, outcome }) => {
                if let Err(e) = outcome {
                    self.each_waiter(|| Kind::Rpc(Box::new(e.clone())));
                }
                return;
            }
            Message::Notification(n) if n.method == "notifications/progress" => {
                let token = n.params.as_ref().and_then(|p| p.get("progressToken"));
                let token = token.and_then(Value::as_str);
                self.waiters.iter().position(|w| token == Some(progress_token(&w.id).as_str()))
            }
            // Questions go to a running tool call: the old transport does not say which one
            // caused them, and only a call's handler can ask the person.
            _ => match self.waiters.iter().position(|w| w.is_call) {
                Some(i) => Some(i),
                None => {
                    self.unclaimed.push(message);
                    self.waiters.iter_mut().for_each(wake);
                    return;
                }
            },
        };
        let Some(waiter) = target.and_then(|i| self.waiters.get_mut(i)) else { return };
        match message {
            Message::Response(Response { outcome, .. }) => {
                waiter.outcome = Some(outcome.map_err(|e| Kind::Rpc(Box::new(e))))
            }
            other => waiter.inbox.push(other),
        }
        wake(waiter);
    }

    /// The stream is gone: every waiting request fails with `kind`, the next one reconnects.
    fn fail(&mut self, kind: Kind) {
        self.link = None;
        self.unclaimed.clear();
        for waiter in &mut self.waiters {
            waiter.inbox.clear();
        }
        self.each_waiter(|| copy_of(&kind));
    }

    fn each_waiter(&mut self, kind: impl Fn() -> Kind) {
        for waiter in &mut self.waiters {
            waiter.outcome.get_or_insert_with(|| Err(kind()));
            wake(waiter);
        }
    }
}

/// Queues are a few messages long: a `Vec` costs less wasm than a `VecDeque`.
fn first_of(queue: &mut Vec<Message>) -> Option<Message> {
    (!queue.is_empty()).then(|| queue.remove(0))
}

fn wake(waiter: &mut Waiter) {
    if let Some(waker) = waiter.waker.take() {
        waker.wake();
    }
}

/// `Kind` is not `Clone` (it is not ours to change); these are the kinds a stream fails with.
fn copy_of(kind: &Kind) -> Kind {
    match kind {
        Kind::Transport(e) => Kind::Transport(e.clone()),
        Kind::TooLarge { limit } => Kind::TooLarge { limit: *limit },
        Kind::Malformed(what) => Kind::Malformed(what.clone()),
        _ => Kind::StreamEnded,
    }
}

/// A request's place among the waiters, given up when its future ends or is dropped.
struct Waiting<'a, B> {
    channel: &'a Channel<B>,
    id: Id,
}

impl<B> Drop for Waiting<'_, B> {
    fn drop(&mut self) {
        let mut state = self.channel.0.borrow_mut();
        // A cancelled call's unanswered questions go with it: the server is told it is cancelled.
        state.waiters.retain(|w| w.id != self.id);
        // The pending read may hold only this request's waker: another must take over reading.
        state.waiters.iter_mut().for_each(wake);
    }
}

/// The one request opening the stream; when it fails or is dropped, the half-open stream goes.
struct Connecting<'a, B> {
    channel: &'a Channel<B>,
    done: bool,
}

impl<B> Drop for Connecting<'_, B> {
    fn drop(&mut self) {
        let mut state = self.channel.0.borrow_mut();
        state.connecting = false;
        if !self.done {
            state.fail(Kind::StreamEnded);
        }
        state.waiting_to_connect.drain(..).for_each(Waker::wake);
    }
}

impl<T: HttpTransport + Timer> Client<T>
where
    T::Body: 'static,
{
    /// The fallback after the `initialize` POST failed with `post_error` (a 4xx).
    pub(super) async fn connect_sse(&self, post_error: Error) -> Result<SessionState, Error> {
        self.open_stream(Some(post_error)).await?;
        self.session().ok_or_else(|| self.error(Kind::StreamEnded))
    }

    /// Sends a request over the stream, opening one first when there is none.
    pub(super) async fn request_over_sse(
        &self,
        session: &SessionState,
        request: Request,
        handler: &dyn Handler,
    ) -> Result<Value, Error> {
        self.open_stream(None).await?;
        match self.exchange_sse(session, request.clone(), handler).await {
            // The server forgot the stream's session (it restarted, say) and has not run the
            // request: once more, on a new stream.
            Err(e) if e.status() == Some(404) => {
                self.open_stream(None).await?;
                let session = self.session().unwrap_or_else(|| session.clone());
                self.exchange_sse(&session, request, handler).await
            }
            other => other,
        }
    }

    /// Unless a stream is open: GET, `endpoint` event, `initialize`. With a `post_error`, a URL
    /// that opens no SSE stream fails with that error (it says more).
    async fn open_stream(&self, post_error: Option<Error>) -> Result<(), Error> {
        if self.legacy.is_open().await {
            return Ok(());
        }
        self.legacy.0.borrow_mut().connecting = true;
        let mut connecting = Connecting { channel: &self.legacy, done: false };
        let reopening = post_error.is_none();
        if let Err(e) = self.get_stream(post_error).await {
            // The URL no longer opens a stream (a stale saved session, a changed server): the
            // next request negotiates afresh.
            if reopening && e.status().is_some() {
                self.session.replace(None);
            }
            return Err(e);
        }
        let initialize = self.initialize_request();
        let result = self
            .exchange_sse(&unnegotiated(true), initialize, &())
            .await
            .map_err(|e| e.with_method("initialize"))?;
        self.finish_initialize(result, None, true).await?;
        connecting.done = true;
        Ok(())
    }

    async fn get_stream(&self, post_error: Option<Error>) -> Result<(), Error> {
        let mut headers = self.configured_headers();
        headers.push(("Accept".into(), "text/event-stream".into()));
        let request =
            HttpRequest { method: Method::Get, url: self.config.url.clone(), headers, body: None };
        let response = match (self.send(request).await, post_error) {
            (Ok(r), _) if (200..300).contains(&r.status) && is_event_stream(&r) => r,
            // Not a server of the old transport either: the POST's error says more.
            (_, Some(post_error)) => return Err(post_error),
            (Err(e), None) => return Err(self.error(Kind::Transport(e))),
            (Ok(r), None) if (200..300).contains(&r.status) => {
                let content_type = r.header("Content-Type").unwrap_or("no content type").into();
                return Err(self.error(Kind::NotMcpServer { content_type }));
            }
            (Ok(r), None) => return Err(self.error(self.http_error(r).await)),
        };
        let limit = self.config.max_reply_bytes;
        let mut parser = sse::Parser::new(limit);
        let mut body = response.body;
        loop {
            let chunk = match body.next_chunk().await {
                Ok(Some(chunk)) => chunk,
                Ok(None) => {
                    let what = Text::new("errMcpNoEndpoint");
                    return Err(self.error(Kind::Protocol(what)));
                }
                Err(e) => return Err(self.error(Kind::Transport(e))),
            };
            let mut events = Vec::new();
            parser.feed(&chunk, &mut events).map_err(|_| self.error(Kind::TooLarge { limit }))?;
            if let Some(at) = events.iter().position(|e| e.event == "endpoint") {
                let endpoint = resolve_endpoint(&self.config.url, &events[at].data)
                    .map_err(|what| self.error(Kind::Protocol(what)))?;
                let rest = events.split_off(at + 1);
                self.legacy.open(endpoint, body, parser, rest);
                return Ok(());
            }
        }
    }

    /// POSTs `request` to the endpoint and waits for its response on the stream, handling the
    /// server's messages for it meanwhile. The response may come before the POST's own 202.
    async fn exchange_sse(
        &self,
        session: &SessionState,
        request: Request,
        handler: &dyn Handler,
    ) -> Result<Value, Error> {
        let id = request.id.clone();
        let _waiting = self.legacy.wait_for(id.clone(), request.method == "tools/call");
        // Boxed: the handler-generic future then holds a pointer, not the whole POST.
        let mut post: Posting<'_> =
            Some(Box::pin(self.post_message(session, Message::Request(request))));
        let none = Id::String(String::new());
        loop {
            let message = poll_fn(|cx| self.poll_exchange(&mut post, &id, cx));
            match message.await? {
                Step::Done(outcome) => return outcome.map_err(|kind| self.error(kind)),
                Step::Handle(message) => {
                    let _ = self.handle_messages(session, vec![message], &none, handler).await;
                }
            }
        }
    }

    /// The handler-free part of [`exchange_sse`](Self::exchange_sse), kept out of line so it
    /// exists once in the wasm, not once per handler type.
    #[inline(never)]
    fn poll_exchange(
        &self,
        post: &mut Posting<'_>,
        id: &Id,
        cx: &mut Context<'_>,
    ) -> Poll<Result<Step, Error>> {
        if let Some(pending) = post {
            if let Poll::Ready(sent) = pending.as_mut().poll(cx) {
                *post = None;
                if let Err(e) = sent {
                    // The server forgot the stream's session: the next request opens a new one.
                    if e.status() == Some(404) {
                        self.legacy.close();
                    }
                    return Poll::Ready(Err(e));
                }
            }
        }
        self.legacy.poll_step(id, cx).map(Ok)
    }
}

fn is_event_stream<B>(response: &super::transport::HttpResponse<B>) -> bool {
    let content_type = response.header("Content-Type").unwrap_or_default();
    content_type.trim_start().to_ascii_lowercase().starts_with("text/event-stream")
}

#[cfg(test)]
mod tests {
    //! A scripted old-transport server in memory and an executor that polls a task only when it
    //! was woken, so a lost wake-up shows as a stuck test instead of passing by busy polling.

    use super::*;
    use crate::mcp::transport::HttpResponse;
    use crate::mcp::{CallEvent, CallHandler, ElicitRequest, ElicitResult, ServerConfig};
    use serde_json::json;
    use std::cell::Cell;
    use std::collections::VecDeque;
    use std::rc::Rc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::task::Wake;

    const URL: &str = "http://127.0.0.1:9/sse";

    #[test]
    fn endpoints_resolve_against_the_server_url_and_stay_on_its_origin() {
        let ok = |data| resolve_endpoint(URL, data);
        assert_eq!(ok("/message?sessionId=a1").unwrap(), "http://127.0.0.1:9/message?sessionId=a1");
        assert_eq!(ok(" messages/?s=1\n").unwrap(), "http://127.0.0.1:9/messages/?s=1");
        assert_eq!(ok("http://127.0.0.1:9/m").unwrap(), "http://127.0.0.1:9/m");
        for foreign in ["https://evil.example/m", "//evil.example/m", "http://127.0.0.1:10/m"] {
            let refused = ok(foreign).expect_err(foreign);
            assert!(refused.to_string().contains("another origin"), "{refused}");
        }
        assert!(ok("http://[::1").is_err());
        assert!(resolve_endpoint("not a url", "/m").is_err());
    }

    #[derive(Default)]
    struct Pipe {
        chunks: VecDeque<Vec<u8>>,
        ended: bool,
        waker: Option<Waker>,
    }

    struct PipeBody(Rc<RefCell<Pipe>>);

    impl ResponseBody for PipeBody {
        async fn next_chunk(&mut self) -> Result<Option<Vec<u8>>, TransportError> {
            poll_fn(|cx| {
                let mut pipe = self.0.borrow_mut();
                if let Some(chunk) = pipe.chunks.pop_front() {
                    Poll::Ready(Ok(Some(chunk)))
                } else if pipe.ended {
                    Poll::Ready(Ok(None))
                } else {
                    pipe.waker = Some(cx.waker().clone());
                    Poll::Pending
                }
            })
            .await
        }
    }

    /// What the fake server does with a POSTed message: events to push onto the current stream.
    type Script = Box<dyn FnMut(&Value, &Fake) -> Vec<Value>>;

    #[derive(Clone)]
    struct Fake(Rc<FakeState>);

    struct FakeState {
        streams: RefCell<Vec<Rc<RefCell<Pipe>>>>,
        posts: RefCell<Vec<(String, Value)>>,
        endpoint: RefCell<String>,
        script: RefCell<Script>,
        /// The id of the call a script is in the middle of.
        held: RefCell<Value>,
        /// Sessions up to this stream number are forgotten, as by a restarted server.
        forgotten: Cell<usize>,
    }

    impl Fake {
        fn new(script: impl FnMut(&Value, &Fake) -> Vec<Value> + 'static) -> Fake {
            Fake(Rc::new(FakeState {
                streams: RefCell::default(),
                posts: RefCell::default(),
                endpoint: RefCell::new("/message?sessionId=".into()),
                script: RefCell::new(Box::new(script)),
                held: RefCell::default(),
                forgotten: Cell::new(0),
            }))
        }

        /// Forgets every session so far: their POSTs get a 404, their streams stay open.
        fn restart(&self) {
            self.0.forgotten.set(self.0.streams.borrow().len());
        }

        fn push(&self, message: &Value) {
            let streams = self.0.streams.borrow();
            let mut pipe = streams.last().expect("a stream").borrow_mut();
            pipe.chunks.push_back(format!("event: message\ndata: {message}\n\n").into_bytes());
            pipe.waker.take().into_iter().for_each(Waker::wake);
        }

        fn end_stream(&self) {
            let streams = self.0.streams.borrow();
            let mut pipe = streams.last().expect("a stream").borrow_mut();
            pipe.ended = true;
            pipe.waker.take().into_iter().for_each(Waker::wake);
        }

        fn posted(&self, method: &str) -> Vec<String> {
            let posts = self.0.posts.borrow();
            posts.iter().filter(|(_, m)| m["method"] == method).map(|(u, _)| u.clone()).collect()
        }
    }

    fn reply(status: u16, content_type: &str, pipe: Pipe) -> HttpResponse<PipeBody> {
        let headers = vec![("Content-Type".to_owned(), content_type.to_owned())];
        HttpResponse { status, headers, body: PipeBody(Rc::new(RefCell::new(pipe))) }
    }

    fn empty() -> Pipe {
        Pipe { ended: true, ..Pipe::default() }
    }

    impl HttpTransport for Fake {
        type Body = PipeBody;

        async fn send(
            &self,
            request: HttpRequest,
        ) -> Result<HttpResponse<PipeBody>, TransportError> {
            match (request.method, request.url == URL) {
                // Streamable HTTP is refused, as by an old server's router.
                (Method::Post, true) => Ok(reply(405, "text/plain", empty())),
                (Method::Get, true) => {
                    let mut streams = self.0.streams.borrow_mut();
                    let endpoint = format!("{}{}", self.0.endpoint.borrow(), streams.len() + 1);
                    let first = format!("event: endpoint\ndata: {endpoint}\n\n").into_bytes();
                    let pipe = Pipe { chunks: VecDeque::from([first]), ..Pipe::default() };
                    let pipe = Rc::new(RefCell::new(pipe));
                    streams.push(pipe.clone());
                    let headers = vec![("Content-Type".into(), "text/event-stream".into())];
                    Ok(HttpResponse { status: 200, headers, body: PipeBody(pipe) })
                }
                (Method::Post, false) => {
                    let stream = request.url.rsplit('=').next().and_then(|n| n.parse().ok());
                    if stream.unwrap_or(0) <= self.0.forgotten.get() {
                        return Ok(reply(404, "text/plain", empty()));
                    }
                    let body = request.body.unwrap_or_default();
                    let message: Value =
                        serde_json::from_str(&body).expect("the client sends JSON");
                    self.0.posts.borrow_mut().push((request.url, message.clone()));
                    if message["method"] == "initialize" {
                        self.push(&json!({"jsonrpc": "2.0", "id": message["id"], "result": {
                            "protocolVersion": "2024-11-05",
                            "capabilities": {"tools": {}},
                            "serverInfo": {"name": "old", "version": "1"}
                        }}));
                    } else {
                        let out = (self.0.script.borrow_mut())(&message, self);
                        out.iter().for_each(|m| self.push(m));
                    }
                    Ok(reply(202, "text/plain", empty()))
                }
                _ => Ok(reply(404, "text/plain", empty())),
            }
        }
    }

    impl Timer for Fake {
        fn sleep(&self, _: std::time::Duration) -> impl Future<Output = ()> {
            std::future::pending()
        }
    }

    fn result(id: &Value, text: &str) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": text}]}})
    }

    fn progress(id: &Value, n: u32) -> Value {
        let token = format!("progress-{id}");
        let params = json!({"progressToken": token, "progress": n});
        json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": params})
    }

    struct Flag(AtomicBool);

    impl Wake for Flag {
        fn wake(self: Arc<Self>) {
            self.0.store(true, Ordering::SeqCst);
        }
    }

    /// Runs the tasks to completion, each polled only after its waker fired.
    fn run_all(mut tasks: Vec<Pin<Box<dyn Future<Output = ()> + '_>>>) {
        let flags: Vec<Arc<Flag>> =
            tasks.iter().map(|_| Arc::new(Flag(AtomicBool::new(true)))).collect();
        let mut done = vec![false; tasks.len()];
        for _ in 0..10_000 {
            let mut polled = false;
            for (i, task) in tasks.iter_mut().enumerate() {
                if done[i] || !flags[i].0.swap(false, Ordering::SeqCst) {
                    continue;
                }
                polled = true;
                let waker = Waker::from(flags[i].clone());
                done[i] = task.as_mut().poll(&mut Context::from_waker(&waker)).is_ready();
            }
            if done.iter().all(|d| *d) {
                return;
            }
            assert!(polled, "tasks {done:?} wait for a wake-up that never comes");
        }
        panic!("no end after 10,000 rounds");
    }

    #[derive(Default)]
    struct Events(RefCell<Vec<CallEvent>>);

    impl CallHandler for Events {
        fn on_event(&self, event: CallEvent) {
            self.0.borrow_mut().push(event);
        }

        async fn elicit(&self, _: ElicitRequest) -> ElicitResult {
            let mut content = serde_json::Map::new();
            content.insert("name".into(), json!("Ada"));
            ElicitResult::accept(content)
        }
    }

    fn progress_of(events: &Events) -> Vec<f64> {
        let events = events.0.borrow();
        let progress = events.iter().filter_map(|e| match e {
            CallEvent::Progress(p) => Some(p.progress),
            _ => None,
        });
        progress.collect()
    }

    /// Holds the first tool call; on the second, answers both in reverse order.
    fn answers_in_reverse() -> impl FnMut(&Value, &Fake) -> Vec<Value> {
        let mut held: Option<Value> = None;
        move |message, _| {
            if message["method"] != "tools/call" {
                return vec![];
            }
            let id = message["id"].clone();
            match held.take() {
                None => {
                    held = Some(id);
                    vec![]
                }
                Some(first) => vec![
                    progress(&id, 1),
                    result(&id, "second"),
                    progress(&first, 1),
                    progress(&first, 2),
                    result(&first, "first"),
                ],
            }
        }
    }

    #[test]
    fn parallel_calls_get_their_own_results_and_progress() {
        let fake = Fake::new(answers_in_reverse());
        let client = Client::new(fake.clone(), ServerConfig::new(URL));
        let session = RefCell::new(None);
        run_all(vec![Box::pin(async { *session.borrow_mut() = Some(client.connect().await) })]);
        let session = session.into_inner().expect("ran").expect("connects by the fallback");
        assert!(session.sse_transport && session.protocol_version == "2024-11-05");

        let (a, b) = (Events::default(), Events::default());
        let texts = RefCell::new(Vec::new());
        let call = |handler: &'static str, events| {
            let (client, texts) = (&client, &texts);
            Box::pin(async move {
                let r = client.call_tool("t", json!({}), events, None).await.expect("result");
                texts.borrow_mut().push((handler, r.text()));
            }) as Pin<Box<dyn Future<Output = ()> + '_>>
        };
        run_all(vec![call("a", &a), call("b", &b)]);
        let mut texts = texts.into_inner();
        texts.sort();
        assert_eq!(texts, vec![("a", "first".to_owned()), ("b", "second".to_owned())]);
        assert_eq!(progress_of(&a), vec![1.0, 2.0]);
        assert_eq!(progress_of(&b), vec![1.0]);
        let endpoint = "http://127.0.0.1:9/message?sessionId=1";
        assert_eq!(fake.posted("tools/call"), vec![endpoint, endpoint]);
        assert_eq!(fake.posted("notifications/initialized"), vec![endpoint]);
    }

    /// The call that last polled the stream ends first; the other must take over reading, or
    /// its result, arriving later, wakes nobody.
    #[test]
    fn a_call_that_ends_hands_the_reading_to_the_others() {
        let fake = Fake::new(|_, _| vec![]);
        let client = Client::new(fake.clone(), ServerConfig::new(URL));
        let texts = RefCell::new(Vec::new());
        let call = |name: &'static str| {
            let (client, texts) = (&client, &texts);
            Box::pin(async move {
                let r = client.call_tool(name, json!({}), &(), None).await.expect("result");
                texts.borrow_mut().push(r.text());
            }) as Pin<Box<dyn Future<Output = ()> + '_>>
        };
        let mut step = 0;
        let server = Box::pin(poll_fn(|cx| {
            let calls: Vec<Value> = fake.0.posts.borrow().iter().map(|(_, m)| m.clone()).collect();
            let calls: Vec<&Value> = calls.iter().filter(|m| m["method"] == "tools/call").collect();
            if calls.len() == 2 {
                // Both wait now; the one polled last holds the stream's waker.
                let (first, second) = (&calls[0]["id"], &calls[1]["id"]);
                match step {
                    0 => fake.push(&result(second, "second")),
                    1 => {}
                    _ => {
                        fake.push(&result(first, "first"));
                        return Poll::Ready(());
                    }
                }
                step += 1;
            }
            cx.waker().wake_by_ref();
            Poll::Pending
        }));
        run_all(vec![Box::pin(async { client.connect().await.map(drop).expect("connects") })]);
        run_all(vec![call("a"), call("b"), server]);
        assert_eq!(texts.into_inner(), vec!["second", "first"]);
    }

    #[test]
    fn a_lost_stream_fails_every_waiting_call_and_the_next_request_reconnects() {
        let mut calls = 0;
        let fake = Fake::new(move |message, fake| {
            if message["method"] == "tools/call" {
                calls += 1;
                if calls == 2 {
                    fake.end_stream();
                }
            }
            if message["method"] == "ping" {
                return vec![json!({"jsonrpc": "2.0", "id": message["id"], "result": {}})];
            }
            vec![]
        });
        let client = Client::new(fake.clone(), ServerConfig::new(URL));
        let errors = RefCell::new(Vec::new());
        let call = || {
            Box::pin(async {
                let e = client.call_tool("t", json!({}), &(), None).await.expect_err("lost");
                errors.borrow_mut().push(e.to_string());
            }) as Pin<Box<dyn Future<Output = ()> + '_>>
        };
        run_all(vec![call(), call()]);
        let errors = errors.into_inner();
        assert_eq!(errors.len(), 2);
        assert!(errors.iter().all(|e| e.contains("stream ended")), "{errors:?}");

        let pinged = RefCell::new(None);
        run_all(vec![Box::pin(async { *pinged.borrow_mut() = Some(client.ping().await) })]);
        pinged.into_inner().expect("ran").expect("ping over a new stream");
        assert_eq!(fake.0.streams.borrow().len(), 2, "one new GET");
        let initialized = fake.posted("initialize");
        assert_eq!(initialized[1], "http://127.0.0.1:9/message?sessionId=2");
        assert_eq!(fake.posted("ping"), vec!["http://127.0.0.1:9/message?sessionId=2"]);
    }

    fn pong(message: &Value, _: &Fake) -> Vec<Value> {
        match message["method"] == "ping" {
            true => vec![json!({"jsonrpc": "2.0", "id": message["id"], "result": {}})],
            false => vec![],
        }
    }

    fn ping(client: &Client<Fake>) -> Result<(), Error> {
        let pinged = RefCell::new(None);
        run_all(vec![Box::pin(async { *pinged.borrow_mut() = Some(client.ping().await) })]);
        pinged.into_inner().expect("ran")
    }

    #[test]
    fn a_stream_that_ended_while_idle_is_reopened_before_the_next_request() {
        let fake = Fake::new(pong);
        let client = Client::new(fake.clone(), ServerConfig::new(URL));
        ping(&client).expect("first ping");
        fake.end_stream();
        ping(&client).expect("ping over a new stream");
        assert_eq!(fake.0.streams.borrow().len(), 2, "one new GET");
        let posted = fake.posted("ping");
        assert_eq!(
            posted,
            ["http://127.0.0.1:9/message?sessionId=1", "http://127.0.0.1:9/message?sessionId=2"]
        );
    }

    #[test]
    fn a_session_the_server_forgot_is_replaced_and_the_request_sent_once_more() {
        let fake = Fake::new(pong);
        let client = Client::new(fake.clone(), ServerConfig::new(URL));
        ping(&client).expect("first ping");
        fake.restart();
        ping(&client).expect("ping over a new stream");
        assert_eq!(fake.0.streams.borrow().len(), 2, "one new GET");
        fake.restart();
        fake.end_stream();
        ping(&client).expect("a third stream");
        // Refused twice in a row: the error, not a loop.
        let stubborn = Fake::new(pong);
        let client = Client::new(stubborn.clone(), ServerConfig::new(URL));
        ping(&client).expect("first ping");
        stubborn.0.forgotten.set(usize::MAX);
        let err = ping(&client).expect_err("refused again");
        assert_eq!(err.status(), Some(404));
        assert_eq!(stubborn.0.streams.borrow().len(), 2, "one retry, on one new stream");
    }

    #[test]
    fn a_server_question_is_answered_by_the_running_call() {
        let fake = Fake::new(|message, fake| {
            if message["method"] == "tools/call" {
                let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
                let params = json!({"message": "Who?", "requestedSchema": schema});
                let ask = json!({"jsonrpc": "2.0", "id": "q1", "method": "elicitation/create",
                    "params": params});
                *fake.0.held.borrow_mut() = message["id"].clone();
                return vec![ask];
            }
            if message["id"] == "q1" {
                let call_id = fake.0.held.borrow().clone();
                let name = message["result"]["content"]["name"].as_str().unwrap_or("?");
                return vec![result(&call_id, &format!("hello {name}"))];
            }
            vec![]
        });
        let client = Client::new(fake, ServerConfig::new(URL));
        let text = RefCell::new(String::new());
        let events = Events::default();
        run_all(vec![Box::pin(async {
            let r = client.call_tool("t", json!({}), &events, None).await.expect("answered");
            *text.borrow_mut() = r.text();
        })]);
        assert_eq!(text.into_inner(), "hello Ada");
    }

    #[test]
    fn an_endpoint_on_another_origin_is_refused() {
        let fake = Fake::new(|_, _| vec![]);
        *fake.0.endpoint.borrow_mut() = "https://elsewhere.example/m?s=".into();
        let client = Client::new(fake.clone(), ServerConfig::new(URL));
        let outcome = RefCell::new(None);
        run_all(vec![Box::pin(async { *outcome.borrow_mut() = Some(client.connect().await) })]);
        let error = outcome.into_inner().expect("ran").expect_err("refused");
        assert!(error.to_string().contains("another origin"), "{error}");
        assert!(fake.posted("initialize").iter().all(|url| url.starts_with(URL)), "nothing sent");
    }

    #[test]
    fn a_url_that_opens_no_stream_keeps_the_post_error() {
        struct Refuses;
        impl HttpTransport for Refuses {
            type Body = PipeBody;
            async fn send(&self, _: HttpRequest) -> Result<HttpResponse<PipeBody>, TransportError> {
                Ok(reply(404, "text/html", empty()))
            }
        }
        impl Timer for Refuses {
            fn sleep(&self, _: std::time::Duration) -> impl Future<Output = ()> {
                std::future::pending()
            }
        }
        let client = Client::new(Refuses, ServerConfig::new(URL));
        let outcome = RefCell::new(None);
        run_all(vec![Box::pin(async { *outcome.borrow_mut() = Some(client.connect().await) })]);
        let error = outcome.into_inner().expect("ran").expect_err("no server");
        assert_eq!(error.status(), Some(404), "{error}");
        assert!(error.to_string().contains("(initialize)"), "{error}");
    }
}
