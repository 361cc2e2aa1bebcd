//! The function-calling loop as a sans-IO state machine.
//!
//! A [`Chat`] holds the history and drives one user turn at a time: user message → request →
//! streamed model turn → (function calls → results → function responses → request)* → answer.
//! It does no I/O and reads no clock: the driver feeds it with `handle_*` calls (stream payloads,
//! HTTP errors, tool results, the time in milliseconds) and takes work out with
//! [`Chat::poll_action`] (requests to send, tools to run, things to abort), what to show with
//! [`Chat::poll_event`], and when to call back with [`Chat::poll_timeout`].

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt;
use std::time::Duration;

use serde_json::{Map, Value};

use super::backoff::RetryPolicy;
use super::family::Family;
use super::grounding::Sources;
use super::models::{model_id, supports_function_calling};
use super::prompts::{CONTINUE_PROMPT, SUMMARY_PROMPT};
use super::signatures::{contents_for, Turn};
use super::stream::{StreamAccumulator, StreamEvent, StreamOutcome};
use super::thinking::{generation_config, ThinkingChoice};
use super::tool_result::{convert, ToolOutcome};
use super::usage::{context_tokens, TurnUsage};
use super::wire::{
    Content, FinishReason, FunctionDeclaration, FunctionResponse, GenerateContentRequest,
    GenerationConfig, Part, Tool, ROLE_USER,
};
use super::Error;
use crate::gemini::budget::{
    Budget, Catalog, Conversation, Refusal, Restriction, ToolsSent, SEARCH_TOOLS,
};
use crate::text::Text;

/// Rounds of tool calls allowed per user message.
pub const DEFAULT_MAX_ROUNDS: u32 = 10;

/// What a chat sends with every request.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatConfig {
    /// `gemini-3.8-flash` or `models/gemini-3.8-flash`.
    pub model: String,
    /// What the model list says of the model's thinking (`Model::thinking`), when known.
    pub model_thinks: Option<bool>,
    pub system_instruction: Option<String>,
    /// What the chat would like in `generationConfig`; each request carries only what the
    /// model's family takes (`thinking::generation_config`).
    pub generation_config: Option<GenerationConfig>,
    /// The chat's thinking choice, mapped to what the model takes.
    pub thinking: ThinkingChoice,
    /// Every enabled MCP tool, named and converted by `core::tools`, with
    /// `parametersJsonSchema`. Each request carries those the budget allows
    /// (`core::gemini::budget`).
    pub declarations: Vec<FunctionDeclaration>,
    /// Tool titles by function name (`ExposedTools::titles`): words the tools are found by.
    pub titles: BTreeMap<String, String>,
    pub budget: Budget,
    /// Grounding with Google Search; MCP tools go with it where the model combines the two
    /// (`Family::search_with_functions`), else they are off while it is on.
    pub google_search: bool,
    pub max_rounds: u32,
    pub retry: RetryPolicy,
}

impl ChatConfig {
    pub fn new(model: impl Into<String>) -> Self {
        Self {
            model: model.into(),
            model_thinks: None,
            system_instruction: None,
            generation_config: None,
            thinking: ThinkingChoice::Default,
            declarations: Vec::new(),
            titles: BTreeMap::new(),
            budget: Budget::default(),
            google_search: false,
            max_rounds: DEFAULT_MAX_ROUNDS,
            retry: RetryPolicy::default(),
        }
    }

    /// What the model takes, from its family and the list's word on thinking.
    pub fn family(&self) -> Family {
        Family::of_listed(&self.model, self.model_thinks)
    }

    /// Why the MCP tools will not be sent, if they will not.
    pub fn tools_off_reason(&self) -> Option<ToolsOff> {
        if self.declarations.is_empty() {
            None
        } else {
            ToolsOff::for_chat(self.google_search, &self.model)
        }
    }

    /// MCP tools go into requests.
    fn sends_functions(&self) -> bool {
        !self.declarations.is_empty() && self.tools_off_reason().is_none()
    }

    fn catalog(&self) -> Catalog {
        Catalog::new(&self.declarations, &self.titles, self.budget)
    }
}

/// Why MCP tools are off for a chat (shown next to the tools menu).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolsOff {
    GoogleSearch,
    ModelWithoutFunctionCalling,
}

impl ToolsOff {
    /// The one rule: a model that cannot call functions, or Google Search grounding on a model
    /// that cannot combine it with functions, turns the MCP tools of a chat off.
    pub fn for_chat(google_search: bool, model: &str) -> Option<ToolsOff> {
        if google_search && !Family::of(model).search_with_functions {
            Some(ToolsOff::GoogleSearch)
        } else if !supports_function_calling(model) {
            Some(ToolsOff::ModelWithoutFunctionCalling)
        } else {
            None
        }
    }
}

impl ToolsOff {
    pub fn text(&self) -> Text {
        Text::new(match self {
            Self::GoogleSearch => "toolsOffSearch",
            Self::ModelWithoutFunctionCalling => "toolsOffModel",
        })
    }
}

impl fmt::Display for ToolsOff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.text().fmt(f)
    }
}

/// A request for the driver to send.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelRequest {
    /// Feed everything about this request back with this id; late input for an old id is ignored.
    pub id: u64,
    pub model: String,
    pub body: GenerateContentRequest,
    /// How many MCP tools were enabled and how many this request declares.
    pub tools: ToolsSent,
}

impl ModelRequest {
    /// `/v1beta/models/{model}:streamGenerateContent?alt=sse`.
    pub fn path(&self) -> String {
        stream_path(&self.model)
    }
}

/// The streaming path for a model id or name.
pub fn stream_path(model: &str) -> String {
    format!("/v1beta/models/{}:streamGenerateContent?alt=sse", model_id(model))
}

/// A function call to run.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// Unique within the chat; report the result with it.
    pub call_id: String,
    /// The id the model gave the call, if any; echoed in the function response.
    pub api_id: Option<String>,
    /// The function name (`mcp_…`): route it with `core::tools`.
    pub name: String,
    /// Always an object.
    pub args: Map<String, Value>,
    /// 1-based round within the current user turn.
    pub round: u32,
    /// The tool was declared because `search_tools` found it.
    pub found_by_search: bool,
}

/// Work for the driver.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// POST this request and stream the answer back. (Boxed: it dwarfs the other variants.)
    Send(Box<ModelRequest>),
    /// Run these calls, all of them, in parallel.
    CallTools(Vec<ToolCall>),
    /// Abort the HTTP request in flight.
    AbortRequest { id: u64 },
    /// Cancel a running tool call (MCP `notifications/cancelled`).
    CancelTool { call_id: String },
}

/// Something the transcript should show.
#[derive(Debug, Clone, PartialEq)]
pub enum ChatEvent {
    TextDelta(String),
    ThoughtDelta(String),
    /// A request of the turn ended: what the turn cost so far, and the tokens the chat's next
    /// request sends again (`usage::context_tokens`).
    Usage {
        turn: TurnUsage,
        context_tokens: u64,
    },
    /// A model turn was appended to the history (`incomplete`: cut short, partial text kept).
    ModelTurn {
        incomplete: bool,
        finish_reason: Option<FinishReason>,
    },
    /// A tool call finished and its response will go to the model.
    ToolDone {
        call_id: String,
        response: Value,
    },
    /// The request failed and goes out again after `delay` (retry `retry` of at most `max`).
    Retrying {
        retry: u32,
        max: u32,
        delay: Duration,
        error: Error,
    },
    /// The summary [`Chat::summarize`] asked for; the history is as it was.
    Summary(String),
    /// The sources of the reply that just ended (Google Search grounding); before its
    /// `ModelTurn`.
    Sources(Sources),
    Notice(Notice),
    Error(Error),
    /// The user turn is over; the chat accepts a new message.
    Idle,
}

/// A visible message that is not an error.
#[derive(Debug, Clone, PartialEq)]
pub enum Notice {
    RoundLimit {
        max_rounds: u32,
    },
    /// The API refused `parametersJsonSchema`; retried once with `parameters`.
    SchemaFallback,
    /// The API refused the request's tools; retried once without these (function names).
    ToolsLeftOut {
        refusal: Refusal,
        tools: Vec<String>,
    },
    Incomplete,
    Finish(FinishReason),
    Stopped,
    /// The model sent no summary.
    SummaryEmpty,
}

impl Notice {
    pub fn text(&self) -> Text {
        match self {
            Self::RoundLimit { max_rounds } => Text::new("noticeRoundLimit").arg(max_rounds),
            Self::SchemaFallback => Text::new("noticeSchemaFallback"),
            Self::ToolsLeftOut { refusal, tools } => Text::new("noticeToolsLeftOut")
                .with(refusal.text())
                .arg(tools.len())
                .arg(tools.join(", ")),
            Self::Incomplete => Text::new("noticeIncomplete"),
            Self::Finish(reason) => reason.notice().unwrap_or_else(|| Text::new("noticeStopped")),
            Self::Stopped => Text::new("noticeStopped"),
            Self::SummaryEmpty => Text::new("noticeSummaryEmpty"),
        }
    }
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.text().fmt(f)
    }
}

/// The chat is in the middle of a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Busy;

impl Busy {
    pub fn text(&self) -> Text {
        Text::new("noticeBusy")
    }
}

impl fmt::Display for Busy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.text().fmt(f)
    }
}

impl std::error::Error for Busy {}

#[derive(Debug)]
enum Phase {
    Idle,
    Streaming { request_id: u64, acc: Box<StreamAccumulator> },
    WaitingRetry { at_ms: u64 },
    RunningTools { calls: Vec<ToolCall>, results: Vec<Option<ToolOutcome>> },
}

/// Call ids are `call-1`, `call-2`, … in the order the model asked for them.
const CALL_ID_PREFIX: &str = "call-";

/// A conversation with Gemini. See the module documentation.
#[derive(Debug)]
pub struct Chat {
    config: ChatConfig,
    history: Vec<Content>,
    /// The model that wrote each content of `history` (`None` for the person's and for turns
    /// saved without one): signatures are that model's (`signatures`).
    authors: Vec<Option<String>>,
    phase: Phase,
    actions: VecDeque<Action>,
    events: VecDeque<ChatEvent>,
    next_request_id: u64,
    next_call_id: u64,
    /// Tool rounds in the current user turn.
    rounds: u32,
    /// Retries of the current request.
    retries: u32,
    /// The schema fallback has been used; it is kept for the rest of the chat.
    schema_fallback: bool,
    /// The enabled tools, prepared for the budget; rebuilt when the tools change.
    catalog: Catalog,
    /// What refused requests taught, kept until the tools change.
    restriction: Restriction,
    /// The current request was already retried with fewer tools.
    tools_shrunk: bool,
    /// The function names the current request declares.
    sent: Vec<FunctionDeclaration>,
    /// What the current turn cost so far.
    turn_usage: TurnUsage,
    /// The current request asks for a summary ([`Chat::summarize`]), not a reply.
    summarizing: bool,
}

impl Chat {
    /// A chat over a history whose authors are unknown (empty for a new chat).
    pub fn new(config: ChatConfig, history: Vec<Content>) -> Self {
        Self::from_turns(config, history.into_iter().map(|c| Turn::new(c, None)).collect())
    }

    /// A chat over a saved history.
    pub fn from_turns(config: ChatConfig, turns: Vec<Turn>) -> Self {
        let (history, authors) = turns.into_iter().map(Turn::into_parts).unzip();
        Self {
            history,
            authors,
            phase: Phase::Idle,
            actions: VecDeque::new(),
            events: VecDeque::new(),
            next_request_id: 1,
            next_call_id: 1,
            rounds: 0,
            retries: 0,
            schema_fallback: false,
            catalog: config.catalog(),
            restriction: Restriction::default(),
            tools_shrunk: false,
            sent: Vec::new(),
            turn_usage: TurnUsage::default(),
            summarizing: false,
            config,
        }
    }

    /// Numbers the next calls after the `call-N` ids given (those a reopened chat shows), so a
    /// new call never takes the id of one from before.
    pub fn continue_call_ids_after<'a>(&mut self, used: impl IntoIterator<Item = &'a str>) {
        let highest = used
            .into_iter()
            .filter_map(|id| id.strip_prefix(CALL_ID_PREFIX)?.parse::<u64>().ok())
            .max()
            .unwrap_or(0);
        self.next_call_id = self.next_call_id.max(highest.saturating_add(1));
    }

    pub fn history(&self) -> &[Content] {
        &self.history
    }

    /// The history as it is saved: each content with its author.
    pub fn turns(&self) -> Vec<Turn> {
        self.history
            .iter()
            .zip(&self.authors)
            .map(|(content, author)| Turn::new(content.clone(), author.clone()))
            .collect()
    }

    pub fn config(&self) -> &ChatConfig {
        &self.config
    }

    /// Change model, tools or search for the next turn.
    pub fn set_config(&mut self, config: ChatConfig) -> Result<(), Busy> {
        self.ensure_idle()?;
        self.apply_config(config);
        Ok(())
    }

    /// The tools changed within a turn (an app it showed offers tools of its own, or its app
    /// went): the turn's next request declares these. Model and search stay as they are.
    pub fn set_tools(
        &mut self,
        declarations: Vec<FunctionDeclaration>,
        titles: BTreeMap<String, String>,
    ) {
        let config = ChatConfig { declarations, titles, ..self.config.clone() };
        self.apply_config(config);
    }

    fn apply_config(&mut self, config: ChatConfig) {
        if config.declarations != self.config.declarations {
            self.schema_fallback = false;
            self.restriction = Restriction::default();
        }
        let rebuild = config.declarations != self.config.declarations
            || config.titles != self.config.titles
            || config.budget != self.config.budget;
        self.config = config;
        if rebuild {
            self.catalog = self.config.catalog();
        }
    }

    pub fn is_busy(&self) -> bool {
        !matches!(self.phase, Phase::Idle)
    }

    fn ensure_idle(&self) -> Result<(), Busy> {
        if self.is_busy() {
            Err(Busy)
        } else {
            Ok(())
        }
    }

    /// Starts a user turn with these parts (text, images as `inlineData`).
    pub fn send_message(&mut self, parts: Vec<Part>) -> Result<(), Busy> {
        self.ensure_idle()?;
        self.push_user_parts(parts);
        self.rounds = 0;
        self.turn_usage = TurnUsage::default();
        self.start_request();
        Ok(())
    }

    /// Asks the model to go on with a reply the output limit cut (`MAX_TOKENS`). The request is
    /// a user turn of GemiPanel's ([`CONTINUE_PROMPT`]): current models refuse a request ending
    /// with a model turn.
    pub fn continue_reply(&mut self) -> Result<(), Busy> {
        self.send_message(vec![Part::text(CONTINUE_PROMPT)])
    }

    /// Asks the model for a summary of the conversation, to start a new chat from it: the
    /// history plus [`SUMMARY_PROMPT`], without tools. The answer arrives as
    /// [`ChatEvent::Summary`]; the history stays as it is.
    pub fn summarize(&mut self) -> Result<(), Busy> {
        self.ensure_idle()?;
        self.summarizing = true;
        self.rounds = 0;
        self.turn_usage = TurnUsage::default();
        self.start_request();
        Ok(())
    }

    /// While waiting to retry: send now instead.
    pub fn retry_now(&mut self) {
        if matches!(self.phase, Phase::WaitingRetry { .. }) {
            self.phase = Phase::Idle;
            self.send_request();
        }
    }

    /// Starts a user turn with a text message.
    pub fn send_text(&mut self, text: impl Into<String>) -> Result<(), Busy> {
        self.send_message(vec![Part::text(text)])
    }

    /// Sends the history again after a turn ended in an error (the last content is the user's).
    pub fn retry(&mut self) -> Result<bool, Busy> {
        self.ensure_idle()?;
        let last_is_user = self.history.last().is_some_and(|c| !c.is_model());
        if last_is_user {
            self.start_request();
        }
        Ok(last_is_user)
    }

    /// One SSE `data` payload of request `request_id`.
    pub fn handle_stream_data(&mut self, request_id: u64, data: &str) {
        let Phase::Streaming { request_id: current, acc } = &mut self.phase else { return };
        if *current != request_id {
            return;
        }
        for event in acc.push(data) {
            match event {
                StreamEvent::TextDelta(t) => self.events.push_back(ChatEvent::TextDelta(t)),
                StreamEvent::ThoughtDelta(t) => self.events.push_back(ChatEvent::ThoughtDelta(t)),
                // Usage is counted once the request ends (chunks repeat running totals); calls
                // run once the turn is complete; finish and errors are handled at the end.
                StreamEvent::Usage(_)
                | StreamEvent::FunctionCall(_)
                | StreamEvent::Finish(_)
                | StreamEvent::Error(_) => {}
            }
        }
    }

    /// The stream of `request_id` ended without a transport error.
    pub fn handle_stream_end(&mut self, request_id: u64, now_ms: u64) {
        if let Some(outcome) = self.take_stream(request_id) {
            self.finish_model_turn(outcome, None, now_ms);
        }
    }

    /// The request answered with a non-2xx status and this body.
    pub fn handle_http_error(&mut self, request_id: u64, status: u16, body: &str, now_ms: u64) {
        if let Some(outcome) = self.take_stream(request_id) {
            self.finish_model_turn(outcome, Some(Error::from_http(status, body)), now_ms);
        }
    }

    /// The connection failed or dropped mid-stream.
    pub fn handle_network_error(&mut self, request_id: u64, message: &str, now_ms: u64) {
        if let Some(outcome) = self.take_stream(request_id) {
            let error = match outcome.content.parts.is_empty() {
                true => Error::network(message),
                false => Error::network_lost(message),
            };
            self.finish_model_turn(outcome, Some(error), now_ms);
        }
    }

    /// A tool call finished. Once every call of the round is in, the responses go to the model.
    pub fn handle_tool_result(&mut self, call_id: &str, outcome: ToolOutcome) {
        let Phase::RunningTools { calls, results } = &mut self.phase else { return };
        let Some(index) = calls.iter().position(|c| c.call_id == call_id) else { return };
        if results[index].is_some() {
            return;
        }
        let response = convert(&outcome, self.config.family().media_in_function_responses).response;
        results[index] = Some(outcome);
        self.events.push_back(ChatEvent::ToolDone { call_id: call_id.to_owned(), response });
        self.finish_round_if_complete();
    }

    /// Once every call of the round has its result, the responses go to the model.
    fn finish_round_if_complete(&mut self) {
        let Phase::RunningTools { results, .. } = &self.phase else { return };
        if !results.iter().all(Option::is_some) {
            return;
        }
        let Phase::RunningTools { calls, results } =
            std::mem::replace(&mut self.phase, Phase::Idle)
        else {
            return;
        };
        let outcomes = results.into_iter().flatten().collect::<Vec<_>>();
        self.push_function_responses(&calls, &outcomes);
        self.start_request();
    }

    /// The clock moved on; retries that are due are sent.
    pub fn handle_timeout(&mut self, now_ms: u64) {
        if let Phase::WaitingRetry { at_ms } = self.phase {
            if now_ms >= at_ms {
                self.phase = Phase::Idle;
                self.send_request();
            }
        }
    }

    /// Stop: abort the stream, cancel pending calls, keep what arrived. The history stays valid
    /// for the next message (cancelled calls are answered as errors).
    pub fn stop(&mut self) {
        let summarizing = std::mem::take(&mut self.summarizing);
        match std::mem::replace(&mut self.phase, Phase::Idle) {
            Phase::Idle => return,
            Phase::Streaming { request_id, acc } => {
                self.actions.push_back(Action::AbortRequest { id: request_id });
                let outcome = (*acc).finish();
                if !summarizing {
                    self.append_partial(outcome.content, outcome.finish_reason);
                }
            }
            Phase::WaitingRetry { .. } => {}
            Phase::RunningTools { calls, results } => {
                let mut outcomes = Vec::with_capacity(calls.len());
                for (call, result) in calls.iter().zip(results) {
                    outcomes.push(result.unwrap_or_else(|| {
                        self.actions
                            .push_back(Action::CancelTool { call_id: call.call_id.clone() });
                        ToolOutcome::Error("The user stopped this call.".into())
                    }));
                }
                self.push_function_responses(&calls, &outcomes);
            }
        }
        self.events.push_back(ChatEvent::Notice(Notice::Stopped));
        self.events.push_back(ChatEvent::Idle);
    }

    pub fn poll_action(&mut self) -> Option<Action> {
        self.actions.pop_front()
    }

    pub fn poll_event(&mut self) -> Option<ChatEvent> {
        self.events.pop_front()
    }

    /// When to call [`Chat::handle_timeout`], in the driver's milliseconds.
    pub fn poll_timeout(&self) -> Option<u64> {
        match self.phase {
            Phase::WaitingRetry { at_ms } => Some(at_ms),
            _ => None,
        }
    }

    fn take_stream(&mut self, request_id: u64) -> Option<StreamOutcome> {
        match &self.phase {
            Phase::Streaming { request_id: current, .. } if *current == request_id => {}
            _ => return None,
        }
        match std::mem::replace(&mut self.phase, Phase::Idle) {
            Phase::Streaming { acc, .. } => Some((*acc).finish()),
            _ => None,
        }
    }

    fn start_request(&mut self) {
        self.retries = 0;
        self.tools_shrunk = false;
        self.send_request();
    }

    fn send_request(&mut self) {
        let id = self.next_request_id;
        self.next_request_id += 1;
        let mut sent = ToolsSent { enabled: self.catalog.len(), ..ToolsSent::default() };
        let mut tools = Vec::new();
        self.sent.clear();
        let mut tool_config = None;
        if self.summarizing {
            // A summary needs no tools.
        } else if self.config.google_search && !self.config.sends_functions() {
            tools.push(Tool::google_search());
        } else if self.config.sends_functions() {
            if self.config.google_search {
                // https://ai.google.dev/gemini-api/docs/generate-content/tool-combination: the
                // API's own tool calls come back as `toolCall`/`toolResponse` parts, kept
                // verbatim in the history like every part.
                tools.push(Tool::google_search());
                tool_config = Some(serde_json::json!({"includeServerSideToolInvocations": true}));
            }
            let conversation = Conversation::from_history(&self.history);
            let selection = self.catalog.select(&conversation, &self.restriction);
            sent = selection.sent;
            self.sent = selection.declarations.clone();
            let mut declarations = selection.declarations;
            if self.schema_fallback {
                for decl in &mut declarations {
                    *decl = decl.to_openapi_parameters();
                }
            }
            tools.push(Tool::functions(declarations));
        }
        let model = model_id(&self.config.model).to_owned();
        let family = self.config.family();
        let mut contents = contents_for(&self.history, &self.authors, &model, &family);
        if self.summarizing {
            let prompt = Part::text(SUMMARY_PROMPT);
            match contents.last_mut() {
                Some(last) if !last.is_model() => last.parts.push(prompt),
                _ => contents.push(Content { role: Some(ROLE_USER.into()), parts: vec![prompt] }),
            }
        }
        let body = GenerateContentRequest {
            contents,
            tools,
            tool_config,
            system_instruction: self.config.system_instruction.clone().map(Content::system),
            generation_config: generation_config(
                &family,
                self.config.generation_config.as_ref(),
                self.config.thinking,
            ),
            ..GenerateContentRequest::default()
        };
        self.actions.push_back(Action::Send(Box::new(ModelRequest {
            id,
            model,
            body,
            tools: sent,
        })));
        self.phase = Phase::Streaming { request_id: id, acc: Box::default() };
    }

    fn finish_model_turn(&mut self, outcome: StreamOutcome, transport: Option<Error>, now: u64) {
        if let Some(usage) = &outcome.usage {
            self.turn_usage.add(usage);
            self.events.push_back(ChatEvent::Usage {
                turn: self.turn_usage,
                context_tokens: context_tokens(usage),
            });
        }
        let error = transport.or_else(|| outcome.error.clone());
        if let Some(error) = error {
            let nothing_shown = outcome.content.parts.is_empty();
            if nothing_shown && self.try_recover(&error, now) {
                return;
            }
            if !std::mem::take(&mut self.summarizing) {
                self.append_partial(outcome.content, outcome.finish_reason);
            }
            self.events.push_back(ChatEvent::Error(error));
            self.events.push_back(ChatEvent::Idle);
            return;
        }
        if std::mem::take(&mut self.summarizing) {
            return self.finish_summary(outcome);
        }
        if outcome.finish_reason.is_none() {
            // Ended without a finish reason: cut short. Calls of a partial turn are not run.
            self.append_partial(outcome.content, None);
            self.events.push_back(ChatEvent::Idle);
            return;
        }
        let calls = outcome.function_calls();
        let finish_reason = outcome.finish_reason.clone();
        if let Some(sources) =
            outcome.grounding.as_ref().and_then(|g| Sources::of(g, &outcome.content.text()))
        {
            self.events.push_back(ChatEvent::Sources(sources));
        }
        if !outcome.content.parts.is_empty() {
            self.push_model(outcome.content);
        }
        self.events.push_back(ChatEvent::ModelTurn {
            incomplete: false,
            finish_reason: finish_reason.clone(),
        });
        if let Some(reason) = finish_reason.filter(|r| r.notice().is_some()) {
            self.events.push_back(ChatEvent::Notice(Notice::Finish(reason)));
        }
        if calls.is_empty() {
            self.events.push_back(ChatEvent::Idle);
        } else {
            self.start_tool_round(calls);
        }
    }

    /// The summary's request ended: its text goes to the driver, the history stays.
    fn finish_summary(&mut self, outcome: StreamOutcome) {
        let summary = outcome.content.text();
        if outcome.finish_reason.is_none() {
            self.events.push_back(ChatEvent::Notice(Notice::Incomplete));
        } else if summary.trim().is_empty() {
            self.events.push_back(ChatEvent::Notice(Notice::SummaryEmpty));
        } else {
            self.events.push_back(ChatEvent::Summary(summary));
        }
        self.events.push_back(ChatEvent::Idle);
    }

    /// Retry after 429/5xx, with fewer tools once after a refusal of the tools, or fall back to
    /// OpenAPI schemas once. True when something was sent or scheduled.
    fn try_recover(&mut self, error: &Error, now_ms: u64) -> bool {
        let sends_declarations = !self.sent.is_empty();
        if let Some(refusal) = error.tool_refusal() {
            return self.retry_with_fewer_tools(refusal);
        }
        if error.is_schema_rejected() && !self.schema_fallback && sends_declarations {
            self.schema_fallback = true;
            self.events.push_back(ChatEvent::Notice(Notice::SchemaFallback));
            self.send_request();
            return true;
        }
        let retry = self.retries + 1;
        let Some(delay) = self.config.retry.delay(error, retry) else { return false };
        self.retries = retry;
        let max = self.config.retry.max_retries;
        self.events.push_back(ChatEvent::Retrying { retry, max, delay, error: error.clone() });
        let at_ms = now_ms.saturating_add(u64::try_from(delay.as_millis()).unwrap_or(u64::MAX));
        self.phase = Phase::WaitingRetry { at_ms };
        true
    }

    /// Sends the request again without the tools `refusal` points at, once per request.
    fn retry_with_fewer_tools(&mut self, refusal: Refusal) -> bool {
        if self.tools_shrunk {
            return false;
        }
        let Some(next) = self.catalog.shrink(&refusal, &self.sent, &self.restriction) else {
            return false;
        };
        let conversation = Conversation::from_history(&self.history);
        let kept: BTreeSet<String> = self
            .catalog
            .select(&conversation, &next)
            .declarations
            .into_iter()
            .map(|d| d.name)
            .collect();
        let tools: Vec<String> = self
            .sent
            .iter()
            .map(|d| d.name.clone())
            .filter(|name| name != SEARCH_TOOLS && !kept.contains(name))
            .collect();
        self.restriction = next;
        self.tools_shrunk = true;
        self.events.push_back(ChatEvent::Notice(Notice::ToolsLeftOut { refusal, tools }));
        self.send_request();
        true
    }

    fn start_tool_round(&mut self, calls: Vec<super::wire::FunctionCall>) {
        if self.rounds >= self.config.max_rounds {
            // Answer the calls so the history stays valid, but do not run them or ask again.
            let round = self.rounds + 1;
            let tool_calls =
                calls.into_iter().map(|c| self.tool_call(c, round)).collect::<Vec<_>>();
            let limit = format!("Not run: the limit of {} tool rounds was reached.", self.rounds);
            let outcomes = vec![ToolOutcome::Error(limit); tool_calls.len()];
            self.push_function_responses(&tool_calls, &outcomes);
            let max_rounds = self.config.max_rounds;
            self.events.push_back(ChatEvent::Notice(Notice::RoundLimit { max_rounds }));
            self.events.push_back(ChatEvent::Idle);
            return;
        }
        self.rounds += 1;
        let round = self.rounds;
        let calls = calls.into_iter().map(|c| self.tool_call(c, round)).collect::<Vec<_>>();
        let conversation = Conversation::from_history(&self.history);
        let mut to_run = Vec::new();
        let mut results = Vec::with_capacity(calls.len());
        let mut ready = Vec::with_capacity(calls.len());
        for mut call in calls {
            // Calls the chat answers itself: searches, and arguments that cannot be restored.
            let local = if call.name == SEARCH_TOOLS {
                Some(match self.catalog.answer_search(&call.args, &self.restriction) {
                    Ok(output) => ToolOutcome::Output(output),
                    Err(message) => ToolOutcome::Error(message),
                })
            } else {
                match self.catalog.restore_arguments(&call.name, std::mem::take(&mut call.args)) {
                    Ok(args) => {
                        call.args = args;
                        call.found_by_search = conversation.found_by_search(&call.name);
                        to_run.push(call.clone());
                        None
                    }
                    Err(bad) => Some(ToolOutcome::Error(bad.to_string())),
                }
            };
            results.push(local);
            ready.push(call);
        }
        if !to_run.is_empty() {
            self.actions.push_back(Action::CallTools(to_run));
        }
        self.phase = Phase::RunningTools { calls: ready, results };
        self.finish_round_if_complete();
    }

    fn tool_call(&mut self, call: super::wire::FunctionCall, round: u32) -> ToolCall {
        let call_id = format!("{CALL_ID_PREFIX}{}", self.next_call_id);
        self.next_call_id += 1;
        let args = match call.args {
            Some(Value::Object(map)) => map,
            _ => Map::new(),
        };
        ToolCall { call_id, api_id: call.id, name: call.name, args, round, found_by_search: false }
    }

    /// Appends a cut-short model turn: text only (calls and signatures of an unfinished turn
    /// cannot be answered), marked incomplete.
    fn append_partial(&mut self, mut content: Content, finish_reason: Option<FinishReason>) {
        content.parts.retain(|p| p.function_call.is_none() && p.text.is_some());
        let has_text =
            content.parts.iter().any(|p| p.text.as_deref().is_some_and(|t| !t.is_empty()));
        if has_text {
            self.push_model(content);
            self.events.push_back(ChatEvent::ModelTurn { incomplete: true, finish_reason });
            self.events.push_back(ChatEvent::Notice(Notice::Incomplete));
        }
    }

    /// A model turn, written by the chat's model.
    fn push_model(&mut self, content: Content) {
        self.history.push(content);
        self.authors.push(Some(model_id(&self.config.model).to_owned()));
    }

    /// One user turn: every function response in call order (media inside where the model
    /// takes it), then the media that go beside them.
    fn push_function_responses(&mut self, calls: &[ToolCall], outcomes: &[ToolOutcome]) {
        let media_inside = self.config.family().media_in_function_responses;
        let mut parts = Vec::with_capacity(calls.len());
        let mut attachments = Vec::new();
        for (call, outcome) in calls.iter().zip(outcomes) {
            let converted = convert(outcome, media_inside);
            parts.push(Part::function_response(FunctionResponse {
                id: call.api_id.clone(),
                name: call.name.clone(),
                response: converted.response,
                parts: converted.media,
            }));
            attachments.extend(converted.attachments);
        }
        parts.extend(attachments);
        self.history.push(Content { role: Some(ROLE_USER.into()), parts });
        self.authors.push(None);
    }

    /// A new user message joins a trailing user turn (left by an error or a stop) instead of
    /// making two user turns in a row.
    fn push_user_parts(&mut self, parts: Vec<Part>) {
        match self.history.last_mut() {
            Some(last) if last.role.as_deref() == Some(ROLE_USER) => last.parts.extend(parts),
            _ => {
                self.history.push(Content { role: Some(ROLE_USER.into()), parts });
                self.authors.push(None);
            }
        }
    }
}
