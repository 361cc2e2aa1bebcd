//! The browser driver of core's sans-IO [`Chat`]: streams its requests with `fetch` through
//! `core::sse`, runs its tool calls through the worker (asking first unless the server or tool
//! is trusted), keeps its retry timer, and turns its events into UI actions.
//!
//! Invariant: no `RefCell` borrow is held across an `await` or while dispatching.

use indexmap::{IndexMap, IndexSet};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use gemipanel_browser::gemini_http::{post_stream, Abort, Answer};
use gemipanel_browser::messaging::to_js_text;
use gemipanel_core::gemini::{
    prompts, Action as ChatAction, Chat, ChatConfig, ChatEvent, Error, ModelRequest, Notice, Part,
    ThinkingChoice, ToolCall, ToolOutcome, ToolsOff, Turn, FALLBACK_MODEL,
};
use gemipanel_core::json_pieces;
use gemipanel_core::messages::Request;
use gemipanel_core::page::context::{page_content_in, ContextPart};
use gemipanel_core::page::tab::Tab;
use gemipanel_core::settings::source::{BROWSER, PAGES};
use gemipanel_core::settings::{ServerId, Settings, ToolNames};
use gemipanel_core::sse;
use gemipanel_core::tools::confirm::{self, CallFacts, Verdict};
use gemipanel_core::tools::{ExposedTools, ToolRoute};
use serde::Deserialize;
use serde_json::Value;
use yew::Callback;

use crate::state::{Action, ErrorView};
use gemipanel_browser::chrome::{self, word};
use gemipanel_browser::port::WorkerPort;
use gemipanel_core::messages::Response;

/// What a turn is sent with, as chosen in the UI.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnSetup {
    pub model: String,
    /// What the model list says of its thinking, when the list has it.
    pub model_thinks: Option<bool>,
    pub thinking: ThinkingChoice,
    /// Tool sources on for the chat: server ids, and `browser`.
    pub servers: IndexSet<String>,
    pub google_search: bool,
    /// The page chip is on for this tab: the turn carries its page.
    pub page: Option<Tab>,
    /// Attached besides the page (a selection, an item of the context menu).
    pub attachments: Vec<Rc<ContextPart>>,
    /// Files from the person's computer.
    pub files: Vec<Rc<crate::files::PickedFile>>,
    /// The instructions for every chat, then the chat's own (`prompts::system_instruction`).
    pub system_instruction: Option<String>,
}

/// What a turn asks of the model.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Ask {
    /// The person's message.
    Message(String),
    /// A message sent again as it was, or with its text edited: a new version of the chat.
    Parts(Vec<Part>),
    /// Go on with a reply the output limit cut.
    Continue,
    /// A summary to start a new chat from.
    Summary,
}

mod apps;
mod browser_calls;
mod context;
mod files;
mod page_tools;
mod sign_in;
mod tool_calls;
mod tool_lists;
mod view_tools;

use tool_lists::{ToolLists, WaitingTurn};

/// The person's answer on a tool card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// To a confirmation card.
    Confirm(Confirmation),
    /// To a card whose server wants sign-in.
    SignIn(SignInChoice),
    /// To a card that asks to let the browser read a page or see the tabs: allow or not.
    Access(bool),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confirmation {
    AllowOnce,
    AlwaysTool,
    AlwaysServer,
    /// To a card asked only because of web content: run, and stop asking for its source.
    StopAskingAfterWebContent,
    Deny,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignInChoice {
    SignIn,
    /// Allow access to the authorization server the browser refused, then sign in.
    AllowAndSignIn,
    /// Do not sign in: the call fails.
    Skip,
}

#[derive(Debug, Default, Clone)]
struct ServerFacts {
    name: String,
    trust: bool,
    allowed: ToolNames,
    read_only: HashMap<String, Option<bool>>,
    /// Tools with an MCP App: the app's resource URI and the tool's definition.
    apps: HashMap<String, (String, Rc<Value>)>,
}

struct Inner {
    chat: Chat,
    port: WorkerPort,
    dispatch: Callback<Action>,
    api_key: String,
    base_url: String,
    tools: ExposedTools,
    servers: HashMap<String, ServerFacts>,
    /// The servers' tool lists this page knows, and the turn waiting for them.
    lists: ToolLists,
    /// The settings and servers of the running turn, to declare tools that arrive late.
    turn_servers: Option<(Rc<Settings>, IndexSet<String>)>,
    requests: HashMap<u64, Rc<Abort>>,
    /// Calls waiting for the person's decision.
    waiting: IndexMap<String, (ToolCall, ToolRoute)>,
    /// Calls whose server wants the person to sign in first.
    signing_in: IndexMap<String, sign_in::Waiting>,
    /// Browser calls waiting for the person to let GemiPanel read a page or see the tabs.
    needs_access: IndexMap<String, browser_calls::Waiting>,
    /// Sources whose trusted tools do not ask after web content (the settings' opt-outs).
    skip_page_content_check: IndexSet<String>,
    /// The page whose tools the running turn declared.
    page_source: Option<page_tools::PageSource>,
    /// What that page offered, to declare again between rounds.
    turn_page: Option<Rc<page_tools::PageOffer>>,
    /// What apps asked to add to the next model request, by call (the last update of each).
    app_contexts: IndexMap<String, crate::transcript::AppContextSent>,
    /// The tools running apps offer of their own, by the call that showed the app.
    view_tools: IndexMap<String, view_tools::ViewToolSet>,
    /// Calls that showed an app which has not said yet what tools it offers, and the results
    /// of those held until it does (bounded): the request after such a call carries them.
    apps_starting: IndexSet<String>,
    /// The apps the chat shows, so that one shown again is not read whole again.
    held_apps: crate::app_read::HeldApps,
    held_results: IndexMap<String, ToolOutcome>,
    /// The running turn declares tools (no Google Search, a model that calls functions).
    turn_declares_tools: bool,
    /// Calls of apps' own tools waiting for the person's decision.
    waiting_views: IndexMap<String, (ToolCall, gemipanel_core::tools::ViewToolRoute)>,
    /// Stop was pressed while the turn was still being prepared.
    stop_requested: bool,
    /// The upload of a file the message carries, while it runs (Stop aborts it).
    upload_abort: Option<Rc<gemipanel_browser::gemini_http::Abort>>,
    /// Only the newest scheduled timer acts.
    timer_generation: u64,
    timer_at: Option<u64>,
}

impl Inner {
    /// Whether a call of `route` runs now or asks the person first.
    fn verdict(&self, route: &ToolRoute) -> Verdict {
        let facts = self.servers.get(&route.server_id);
        let call = CallFacts {
            trusted: facts.is_some_and(|f| f.trust),
            always_allowed: facts.is_some_and(|f| f.allowed.contains(&route.tool_name)),
            read_only: facts.and_then(|f| f.read_only.get(&route.tool_name).copied().flatten()),
            confirm_after_page_content: !self.skip_page_content_check.contains(&route.server_id),
        };
        confirm::verdict(&call, page_content_in(self.chat.history()))
    }
}

#[derive(Clone)]
pub struct Driver(Rc<RefCell<Inner>>);

impl PartialEq for Driver {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

fn now_ms() -> u64 {
    js_sys::Date::now() as u64
}

impl Driver {
    pub fn new(port: WorkerPort, dispatch: Callback<Action>) -> Self {
        Self(Rc::new(RefCell::new(Inner {
            // Replaced by the chat's model before anything is sent.
            chat: Chat::new(ChatConfig::new(FALLBACK_MODEL), Vec::new()),
            port,
            dispatch,
            api_key: String::new(),
            base_url: String::new(),
            tools: ExposedTools::default(),
            servers: HashMap::new(),
            lists: ToolLists::default(),
            turn_servers: None,
            requests: HashMap::new(),
            waiting: IndexMap::new(),
            signing_in: IndexMap::new(),
            needs_access: IndexMap::new(),
            skip_page_content_check: IndexSet::new(),
            page_source: None,
            turn_page: None,
            app_contexts: IndexMap::new(),
            view_tools: IndexMap::new(),
            apps_starting: IndexSet::new(),
            held_apps: Default::default(),
            held_results: IndexMap::new(),
            turn_declares_tools: false,
            waiting_views: IndexMap::new(),
            stop_requested: false,
            upload_abort: None,
            timer_generation: 0,
            timer_at: None,
        })))
    }

    fn dispatch(&self, action: Action) {
        let dispatch = self.0.borrow().dispatch.clone();
        dispatch.emit(action);
    }

    /// Keeps a tool call made outside the model's turn (an app's, the person's) in the chat's
    /// activity.
    pub fn record_activity(&self, activity: gemipanel_core::chats::activity::Activity) {
        self.dispatch(Action::Activity(activity));
    }

    /// Replaces the conversation (a new chat, a saved one reopened, another version of this
    /// one); anything running stops. `call_ids` are those of every card the chat keeps, in
    /// every version: new calls must not take them (nor their apps).
    pub fn reset(&self, history: Vec<Turn>, call_ids: &[String]) {
        self.abort_everything();
        let mut inner = self.0.borrow_mut();
        let config = inner.chat.config().clone();
        inner.chat = Chat::from_turns(config, history);
        inner.chat.continue_call_ids_after(call_ids.iter().map(String::as_str));
    }

    fn abort_everything(&self) {
        let mut inner = self.0.borrow_mut();
        for (_, abort) in inner.requests.drain() {
            abort.abort();
        }
        inner.waiting.clear();
        inner.waiting_views.clear();
        inner.needs_access.clear();
        inner.timer_generation += 1;
        inner.timer_at = None;
    }

    /// Starts a user turn: reads the key and the tools, then sends.
    pub fn send(&self, text: String, setup: TurnSetup) {
        self.dispatch(Action::UserSent { text: text.clone(), now_ms: now_ms() });
        self.start(Ask::Message(text), setup);
    }

    /// Sends a message again as a new version of the chat (the driver was reset to the history
    /// before it): `text` is what the transcript shows, `parts` what the model gets.
    pub fn send_parts(&self, text: String, parts: Vec<Part>, setup: TurnSetup) {
        self.dispatch(Action::UserSent { text, now_ms: now_ms() });
        self.start(Ask::Parts(parts), setup);
    }

    /// Asks the last reply, cut at the output limit, to go on.
    pub fn continue_reply(&self, setup: TurnSetup) {
        self.dispatch(Action::Continued);
        self.start(Ask::Continue, setup);
    }

    /// Asks for a summary of the chat and starts a new chat from it.
    pub fn summarize(&self, setup: TurnSetup) {
        self.dispatch(Action::SummaryStarted);
        self.start(Ask::Summary, setup);
    }

    /// While a failed request waits for its retry: send it now.
    pub fn retry_now(&self) {
        self.0.borrow_mut().chat.retry_now();
        self.pump();
    }

    fn start(&self, ask: Ask, setup: TurnSetup) {
        self.0.borrow_mut().stop_requested = false;
        let this = self.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let port = this.0.borrow().port.clone();
            let settings = match port.request(Request::GetSettings).await {
                Ok(Response::Settings { settings }) => settings,
                Ok(Response::Error { error }) => return this.fail_setup(word(&error)),
                // (Not `{other:?}`: Debug of the whole protocol costs wasm size.)
                Ok(_) => return this.fail_setup(chrome::message("errWorkerUnexpectedAnswer", &[])),
                Err(err) => return this.fail_setup(err.to_string()),
            };
            let Some(key) = settings.gemini.api_key.clone().filter(|k| !k.is_empty()) else {
                let missing = Error::missing_key();
                this.dispatch(Action::Failed(ErrorView::from_error(
                    &missing,
                    word(&missing.text()),
                )));
                return this.end_setup();
            };
            let tools_wanted = ask != Ask::Summary
                && ToolsOff::for_chat(setup.google_search, &setup.model).is_none();
            let servers = if tools_wanted { setup.servers.clone() } else { IndexSet::new() };
            let page = match tools_wanted && servers.contains(PAGES) {
                true => page_tools::page_source_of_turn(&settings).await,
                false => None,
            };
            // Only a new message carries the page and attachments: a version sent again has
            // its own in its parts, and Continue or a summary adds no words of the person.
            let mut context = match ask {
                Ask::Message(_) => context::read(setup.page.as_ref(), &setup.attachments).await,
                _ => context::read(None, &[]).await,
            };
            if matches!(ask, Ask::Message(_)) && !setup.files.is_empty() {
                // The history goes again with every request, its inline data included.
                // Counted, not kept: a long history is not a block of wasm memory.
                let mut sent_again = 0;
                let counted = json_pieces::write_json(this.0.borrow().chat.history(), |piece| {
                    sent_again += piece.len() as u64;
                });
                if counted.is_err() {
                    sent_again = 0;
                }
                let api_base = settings.gemini.api_base().to_owned();
                let prepared =
                    this.prepare_files(&setup.files, key.expose(), &api_base, sent_again).await;
                // Their chips are gone: the thumbnails' object URLs may go too.
                setup.files.iter().for_each(|file| crate::files::release(file));
                match prepared {
                    files::Prepared::Ready { parts, labels } => {
                        context.labels.extend(labels);
                        context.files = parts;
                    }
                    files::Prepared::Cancelled(words) => {
                        this.dispatch(Action::Notice(words));
                        return this.end_setup();
                    }
                    files::Prepared::Failed(message) => {
                        let kind = crate::state::ErrorKind::Other;
                        this.dispatch(Action::Failed(ErrorView { kind, message }));
                        return this.end_setup();
                    }
                }
            }
            if matches!(ask, Ask::Message(_)) {
                this.dispatch(Action::UserContext(context.labels.clone()));
            }
            for notice in &context.notices {
                this.dispatch(Action::Notice(notice.clone()));
            }
            if this.0.borrow().stop_requested {
                return this.end_setup();
            }
            this.gather_tools(WaitingTurn {
                ask,
                setup,
                key: key.expose().to_owned(),
                settings: Rc::new(settings),
                servers,
                declares_tools: tools_wanted,
                page: page.map(Rc::new),
                context,
            });
        });
    }

    /// Sends a turn whose tools are gathered.
    fn send_turn(&self, turn: WaitingTurn) {
        if self.0.borrow().stop_requested {
            return self.end_setup();
        }
        self.0.borrow_mut().turn_page = turn.page.clone();
        let (tools, facts) = self.turn_tools(&turn.settings, &turn.servers, turn.declares_tools);
        let sent = {
            let mut inner = self.0.borrow_mut();
            inner.api_key = turn.key;
            inner.base_url = turn.settings.gemini.api_base().to_owned();
            let mut config = inner.chat.config().clone();
            config.model = turn.setup.model.clone();
            config.model_thinks = turn.setup.model_thinks;
            config.thinking = turn.setup.thinking;
            config.declarations = tools.declarations();
            config.titles = tools.titles();
            config.google_search = turn.setup.google_search;
            config.system_instruction = turn.setup.system_instruction.clone();
            inner.tools = tools;
            inner.turn_declares_tools = turn.declares_tools;
            inner.servers = facts;
            inner.skip_page_content_check = turn.settings.skip_page_content_check.clone();
            inner.page_source = turn.page.as_ref().map(|offer| offer.source.clone());
            inner.turn_servers = Some((turn.settings, turn.servers));
            let _ = inner.chat.set_config(config);
            match turn.ask {
                Ask::Message(text) => {
                    let mut parts = turn.context.parts(inner.chat.history());
                    let (words, app_context) =
                        apps::with_app_context(&mut inner.app_contexts, text);
                    parts.extend(words);
                    inner.chat.send_message(parts).map(|()| app_context)
                }
                Ask::Parts(parts) => inner.chat.send_message(parts).map(|()| Default::default()),
                Ask::Continue => inner.chat.continue_reply().map(|()| Default::default()),
                Ask::Summary => inner.chat.summarize().map(|()| Default::default()),
            }
        };
        match sent {
            Ok(app_context) if !app_context.is_empty() => {
                self.dispatch(Action::AppContextSent(app_context))
            }
            Ok(_) => {}
            Err(busy) => self.dispatch(Action::Notice(word(&busy.text()))),
        }
        self.pump();
    }

    /// Every tool source a turn declares: the servers' known lists, and when it declares tools
    /// at all the running apps' tools, the browser's and the page's beside the chat.
    fn turn_tools(
        &self,
        settings: &Settings,
        servers: &IndexSet<String>,
        declares_tools: bool,
    ) -> (ExposedTools, HashMap<String, ServerFacts>) {
        let (mut tools, mut facts) = self.known_tools(settings, servers);
        if !declares_tools {
            return (tools, facts);
        }
        self.add_view_tools(&mut tools);
        if servers.contains(BROWSER) {
            let (mut descriptors, mut filters) = (Vec::new(), IndexMap::new());
            browser_calls::add_browser_source(settings, &mut descriptors, &mut filters, &mut facts);
            tools.extend(&descriptors, &filters);
        }
        let page = self.0.borrow().turn_page.clone();
        if let Some(offer) = page {
            let id = offer.source.id();
            tools.extend(&offer.descriptors, &IndexMap::from([(id.clone(), offer.filter.clone())]));
            facts.insert(id, offer.facts.clone());
        }
        (tools, facts)
    }

    /// Within a turn, its next request declares the tools as they are now: a server's list
    /// that came late, an app the turn's call just showed. Facts of servers already in the
    /// turn stay (the person may have allowed a tool meanwhile).
    fn redeclare_tools(&self) {
        let turn_servers = {
            let inner = self.0.borrow();
            if !inner.chat.is_busy() || !inner.turn_declares_tools {
                return;
            }
            inner.turn_servers.clone()
        };
        let Some((settings, servers)) = turn_servers else { return };
        let (tools, facts) = self.turn_tools(&settings, &servers, true);
        let mut inner = self.0.borrow_mut();
        for (id, server_facts) in facts {
            inner.servers.entry(id).or_insert(server_facts);
        }
        inner.chat.set_tools(tools.declarations(), tools.titles());
        inner.tools = tools;
    }

    fn fail_setup(&self, message: String) {
        let message = chrome::message("panelSettingsUnreadable", &[&message]);
        self.dispatch(Action::Failed(ErrorView { kind: crate::state::ErrorKind::Other, message }));
        self.end_setup();
    }

    fn end_setup(&self) {
        let history = Rc::new(self.0.borrow().chat.turns());
        self.dispatch(Action::TurnOver { history, now_ms: now_ms() });
    }

    /// Stop: aborts the stream, cancels pending calls, keeps what arrived.
    pub fn stop(&self) {
        if self.drop_waiting_turn() {
            return self.end_setup();
        }
        let busy = {
            let mut inner = self.0.borrow_mut();
            inner.stop_requested = true;
            if let Some(upload) = &inner.upload_abort {
                upload.abort();
            }
            inner.chat.is_busy()
        };
        if busy {
            self.0.borrow_mut().chat.stop();
            self.pump();
        }
    }

    /// Takes everything the chat has for us and carries it out.
    fn pump(&self) {
        let (actions, events) = {
            let mut inner = self.0.borrow_mut();
            let mut actions = Vec::new();
            while let Some(action) = inner.chat.poll_action() {
                actions.push(action);
            }
            let mut events = Vec::new();
            while let Some(event) = inner.chat.poll_event() {
                events.push(event);
            }
            (actions, events)
        };
        self.show(events);
        for action in actions {
            self.execute(action);
        }
        self.schedule_timer();
    }

    fn show(&self, events: Vec<ChatEvent>) {
        // Text deltas of one pump become one action: one render per network chunk.
        let mut text = String::new();
        for event in events {
            if let ChatEvent::TextDelta(delta) = event {
                text.push_str(&delta);
                continue;
            }
            if !text.is_empty() {
                self.dispatch(Action::TextDelta(std::mem::take(&mut text)));
            }
            let action = match event {
                // The reply itself is marked incomplete; a second line would repeat it.
                ChatEvent::TextDelta(_)
                | ChatEvent::ToolDone { .. }
                | ChatEvent::Notice(Notice::Incomplete) => continue,
                ChatEvent::Usage { turn, context_tokens } => Action::Usage { turn, context_tokens },
                ChatEvent::ThoughtDelta(t) => Action::ThoughtDelta(t),
                ChatEvent::ModelTurn { incomplete, .. } => Action::ModelTurnEnded { incomplete },
                ChatEvent::Retrying { delay, error, retry, max } => {
                    let millis = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX);
                    Action::Retrying {
                        seconds: delay.as_secs_f64().ceil() as u64,
                        message: word(&error.text()),
                        until_ms: now_ms().saturating_add(millis),
                        retry,
                        max,
                    }
                }
                ChatEvent::Notice(Notice::Finish(reason)) => match reason.notice() {
                    Some(text) => {
                        Action::Finished { code: reason.code().to_owned(), text: word(&text) }
                    }
                    None => continue,
                },
                ChatEvent::Notice(notice) => Action::Notice(word(&notice.text())),
                ChatEvent::Summary(summary) => self.start_from_summary(summary),
                ChatEvent::Sources(sources) => Action::Sources(sources),
                ChatEvent::Error(error) => {
                    let message = word(&error.text());
                    Action::Failed(ErrorView::from_error(&error, message))
                }
                ChatEvent::Idle => {
                    let history = Rc::new(self.0.borrow().chat.turns());
                    Action::TurnOver { history, now_ms: now_ms() }
                }
            };
            self.dispatch(action);
        }
        if !text.is_empty() {
            self.dispatch(Action::TextDelta(text));
        }
    }

    /// The summary arrived: the conversation goes on in a new chat that starts from it.
    fn start_from_summary(&self, summary: String) -> Action {
        let history = vec![Turn::new(prompts::summary_seed(&summary), None)];
        {
            let mut inner = self.0.borrow_mut();
            let config = inner.chat.config().clone();
            inner.chat = Chat::from_turns(config, history.clone());
            inner.app_contexts.clear();
        }
        Action::Summarized {
            id: crate::app::new_chat_id(),
            now_ms: now_ms(),
            summary,
            history: Rc::new(history),
        }
    }

    fn execute(&self, action: ChatAction) {
        match action {
            ChatAction::Send(request) => self.send_request(*request),
            ChatAction::AbortRequest { id } => {
                if let Some(abort) = self.0.borrow_mut().requests.remove(&id) {
                    abort.abort();
                }
            }
            ChatAction::CallTools(calls) => {
                for call in calls {
                    self.start_call(call);
                }
            }
            ChatAction::CancelTool { call_id } => self.cancel_call(call_id),
        }
    }

    fn send_request(&self, request: ModelRequest) {
        self.dispatch(Action::ToolsSent(request.tools));
        let id = request.id;
        let (url, key) = {
            let inner = self.0.borrow();
            (format!("{}{}", inner.base_url, request.path()), inner.api_key.clone())
        };
        // A JS string: a long chat's history is not a block of wasm memory at each request.
        let body = match to_js_text(&request.body) {
            Ok(body) => body,
            Err(err) => return self.network_error(id, &format!("encoding the request: {err}")),
        };
        let abort = match Abort::new() {
            Ok(abort) => Rc::new(abort),
            Err(err) => return self.network_error(id, err.message()),
        };
        self.0.borrow_mut().requests.insert(id, abort.clone());
        let this = self.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let mut parser = sse::Parser::default();
            let feeder = this.clone();
            let result = post_stream(&url, &key, &body, &abort, |bytes| {
                let mut events = Vec::new();
                if let Err(err) = parser.feed(bytes, &mut events) {
                    web_sys::console::warn_1(&format!("Gemini stream: {err}").into());
                }
                if events.is_empty() {
                    return;
                }
                {
                    let mut inner = feeder.0.borrow_mut();
                    for event in events {
                        inner.chat.handle_stream_data(id, &event.data);
                    }
                }
                feeder.pump();
            })
            .await;
            this.0.borrow_mut().requests.remove(&id);
            let now = now_ms();
            match result {
                Ok(Answer::Streamed) => this.0.borrow_mut().chat.handle_stream_end(id, now),
                Ok(Answer::Failed { status, body }) => {
                    this.0.borrow_mut().chat.handle_http_error(id, status, &body, now)
                }
                // Stop already settled the turn.
                Err(err) if err.is_abort() => {}
                Err(err) => this.0.borrow_mut().chat.handle_network_error(id, err.message(), now),
            }
            this.pump();
        });
    }

    fn network_error(&self, id: u64, message: &str) {
        self.0.borrow_mut().chat.handle_network_error(id, message, now_ms());
        self.pump();
    }

    fn schedule_timer(&self) {
        let (at, generation) = {
            let mut inner = self.0.borrow_mut();
            let at = inner.chat.poll_timeout();
            if at == inner.timer_at {
                return;
            }
            inner.timer_at = at;
            inner.timer_generation += 1;
            (at, inner.timer_generation)
        };
        let Some(at) = at else { return };
        let delay = at.saturating_sub(now_ms()).min(u32::MAX as u64) as u32;
        let this = self.clone();
        // Forgotten, not cancelled: a stale timer sees a newer generation and does nothing.
        gloo_timers::callback::Timeout::new(delay, move || {
            {
                let mut inner = this.0.borrow_mut();
                if inner.timer_generation != generation {
                    return;
                }
                inner.timer_at = None;
                inner.chat.handle_timeout(now_ms());
            }
            this.pump();
        })
        .forget();
    }
}

/// The id as the settings document spelled it (ids are opaque strings on the wire).
pub(crate) fn server_id(id: &str) -> ServerId {
    // serde's own string deserializer: going through `serde_json::Value` costs wasm size.
    let text = serde::de::value::StrDeserializer::<serde::de::value::Error>::new(id);
    ServerId::deserialize(text).unwrap_or_else(|_| ServerId::derive(b"", id))
}
