//! The side panel's state and its pure reducer.
//!
//! The transcript is a list of `Rc<Entry>`: a chunk of a streamed reply clones the list of
//! pointers and the last entry only, so a chunk costs the same early and late in a long chat.

use indexmap::IndexSet;
use std::rc::Rc;

use gemipanel_core::apps::resource::AppResource;
use gemipanel_core::gemini::{automatic_model, ModelInfo, ThinkingChoice, Turn};
use gemipanel_core::mcp::CallToolResult;
use gemipanel_core::messages::WorkerStatus;
use gemipanel_core::settings::Settings;
use gemipanel_core::tools::budget::ToolsSent;
use yew::Reducible;

pub use crate::transcript::{
    AppCard, AppContextSent, ChatSummary, ContextLabel, ElicitationCard, Entry, ErrorKind,
    ErrorView, ModelReply, Progress, SavedChat, ToolCard, ToolStatus,
};
use gemipanel_core::page::context::ContextPart;
use gemipanel_core::page::tab::Tab;
use gemipanel_core::page::webmcp::PageTools;
use gemipanel_core::tools::source::{BROWSER, PAGES};

#[derive(Debug, Clone, PartialEq)]
pub enum WorkerView {
    Connecting,
    Ready(WorkerStatus),
    Failed(String),
}

/// What the main area shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    Chat,
    History,
    /// The tool browser.
    Tools,
}

/// The open chat.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChatView {
    pub id: String,
    pub title: String,
    pub created_ms: u64,
    pub updated_ms: u64,
    /// `None`: the default model from the settings.
    pub model: Option<String>,
    /// Server ids whose tools are on; `None`: each server's `enabled_by_default`.
    pub servers: Option<IndexSet<String>>,
    pub google_search: bool,
    pub thinking: ThinkingChoice,
    pub entries: Vec<Rc<Entry>>,
    pub busy: bool,
    /// The conversation as Gemini sees it, as of the last finished turn.
    pub history: Rc<Vec<Turn>>,
    /// Bumped when the chat should be saved.
    pub save_epoch: u32,
    /// What the last model request of this chat declared (not saved: it is about this visit).
    pub tools_sent: Option<ToolsSent>,
}

impl ChatView {
    pub fn new(id: String, now_ms: u64) -> Self {
        Self { id, created_ms: now_ms, updated_ms: now_ms, ..Self::default() }
    }

    pub fn to_saved(&self) -> SavedChat {
        SavedChat {
            id: self.id.clone(),
            title: self.title.clone(),
            created_ms: self.created_ms,
            updated_ms: self.updated_ms,
            model: self.model.clone(),
            servers: self.servers.clone(),
            google_search: self.google_search,
            thinking: self.thinking,
            history: (*self.history).clone(),
            entries: self
                .entries
                .iter()
                .filter(|e| !matches!(***e, Entry::Elicitation(_)))
                .map(|e| (**e).clone())
                .collect(),
        }
    }

    pub fn from_saved(saved: SavedChat) -> Self {
        Self {
            id: saved.id,
            title: saved.title,
            created_ms: saved.created_ms,
            updated_ms: saved.updated_ms,
            model: saved.model,
            servers: saved.servers,
            google_search: saved.google_search,
            thinking: saved.thinking,
            entries: saved.entries.into_iter().map(Rc::new).collect(),
            busy: false,
            history: Rc::new(saved.history),
            save_epoch: 0,
            tools_sent: None,
        }
    }

    fn last_model_reply(&mut self) -> Option<&mut ModelReply> {
        match self.entries.last_mut().map(Rc::make_mut) {
            Some(Entry::Model(reply)) if reply.streaming => Some(reply),
            _ => None,
        }
    }

    fn streaming_reply(&mut self) -> &mut ModelReply {
        if self.last_model_reply().is_none() {
            self.entries.push(Rc::new(Entry::Model(ModelReply::streaming())));
        }
        match self.entries.last_mut().map(Rc::make_mut) {
            Some(Entry::Model(reply)) => reply,
            _ => unreachable!("a streaming reply was just pushed"),
        }
    }

    fn end_streaming(&mut self, incomplete: bool) {
        if let Some(reply) = self.last_model_reply() {
            reply.streaming = false;
            reply.incomplete |= incomplete;
        }
    }

    fn tool(&self, call_id: &str) -> Option<&ToolCard> {
        self.entries.iter().rev().find_map(|e| match &**e {
            Entry::Tool(card) if card.call_id == call_id => Some(card),
            _ => None,
        })
    }

    /// Saves now unless a turn runs: its end saves (what arrives after a turn, like an app's
    /// resource, would otherwise be lost with the panel).
    fn save_if_idle(&mut self) {
        if !self.busy && !self.entries.is_empty() {
            self.save_epoch += 1;
        }
    }

    fn tool_mut(&mut self, call_id: &str) -> Option<&mut ToolCard> {
        let index = self
            .entries
            .iter()
            .rposition(|e| matches!(&**e, Entry::Tool(card) if card.call_id == call_id))?;
        match Rc::make_mut(&mut self.entries[index]) {
            Entry::Tool(card) => Some(card),
            _ => None,
        }
    }

    fn elicitation_mut(&mut self, elicitation_id: &str) -> Option<&mut ElicitationCard> {
        let index = self.entries.iter().rposition(
            |e| matches!(&**e, Entry::Elicitation(c) if c.elicitation_id == elicitation_id),
        )?;
        match Rc::make_mut(&mut self.entries[index]) {
            Entry::Elicitation(card) => Some(card),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct State {
    pub worker: WorkerView,
    /// Bumped whenever the worker's status should be fetched again (a (re)connect or a click).
    pub status_epoch: u32,
    pub settings: Option<Rc<Settings>>,
    pub settings_error: Option<String>,
    /// The last model list (kept from an earlier visit until the live one arrives); `None`
    /// before any. Shared: the state is copied on every chunk of a reply.
    pub models: Option<Rc<Vec<ModelInfo>>>,
    pub chat: ChatView,
    pub saved: Rc<Vec<ChatSummary>>,
    pub view: View,
    /// A message an app offered for the composer, and a counter that says it is new.
    pub draft: Option<String>,
    pub draft_epoch: u32,
    /// The page chip.
    pub page: PageView,
    /// A selection on the page, offered as a chip of its own.
    pub selection: Option<Rc<ContextPart>>,
    /// What goes with the next message besides the page (a selection, an item of the context
    /// menu).
    pub attachments: Vec<Rc<ContextPart>>,
    /// The tools the page beside the chat offers (WebMCP), as last listed; `None`: not listed
    /// (the tools menu lists them when it opens) or the page cannot be read.
    pub page_tools: Option<Rc<PageTools>>,
}

/// The page chip: the tab beside the chat, and whether turns carry its page.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PageView {
    /// The active tab; without the `tabs` permission, the last one GemiPanel may see (the one
    /// it was invoked on), as the active tab's address is hidden from it.
    pub tab: Option<Tab>,
    pub on: bool,
    /// GemiPanel holds `tabs`: the chip follows every tab.
    pub follows_tabs: bool,
    /// GemiPanel asked for `tabs` once already.
    pub tabs_asked: bool,
}

impl Default for State {
    fn default() -> Self {
        Self {
            worker: WorkerView::Connecting,
            status_epoch: 0,
            settings: None,
            settings_error: None,
            models: None,
            chat: ChatView::default(),
            saved: Rc::default(),
            view: View::Chat,
            draft: None,
            draft_epoch: 0,
            page: PageView::default(),
            selection: None,
            attachments: Vec::new(),
            page_tools: None,
        }
    }
}

impl State {
    /// The chat's model, else the settings' choice, else the automatic default.
    pub fn model(&self) -> String {
        self.chat
            .model
            .clone()
            .filter(|m| !m.is_empty())
            .or_else(|| self.settings_model().map(str::to_owned))
            .unwrap_or_else(|| self.automatic_model().to_owned())
    }

    /// The model the settings chose, if they chose one.
    pub fn settings_model(&self) -> Option<&str> {
        self.settings.as_ref().and_then(|s| s.gemini.chosen_model())
    }

    /// What the automatic default stands for now.
    pub fn automatic_model(&self) -> &str {
        automatic_model(self.models.as_deref().map(Vec::as_slice))
    }

    /// The list's entry for a model, when the list has it.
    pub fn model_info(&self, id: &str) -> Option<&ModelInfo> {
        self.models.as_deref()?.iter().find(|m| m.id == id)
    }

    /// Ids of the sources whose tools this chat offers: servers, and the browser's (on unless
    /// the person turned them off for the chat).
    pub fn enabled_servers(&self) -> IndexSet<String> {
        if let Some(chosen) = &self.chat.servers {
            return chosen.clone();
        }
        let mut ids: IndexSet<String> = self
            .settings
            .iter()
            .flat_map(|s| s.servers.iter())
            .filter(|s| s.enabled_by_default)
            .map(|s| s.id.as_str().to_owned())
            .collect();
        ids.insert(BROWSER.to_owned());
        ids.insert(PAGES.to_owned());
        ids
    }

    pub fn has_api_key(&self) -> bool {
        self.settings
            .as_ref()
            .and_then(|s| s.gemini.api_key.as_ref())
            .is_some_and(|k| !k.is_empty())
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// The worker greeted a fresh connection (first open or after a restart).
    WorkerStarted,
    RefreshStatus,
    StatusLoaded(WorkerStatus),
    StatusFailed(String),
    SettingsLoaded(Rc<Settings>),
    SettingsFailed(String),
    ModelsLoaded(Vec<ModelInfo>),

    /// The chat's model; empty: the settings' default.
    SetModel(String),
    SetThinking(ThinkingChoice),
    ToggleServer(String),
    SetGoogleSearch(bool),
    ShowHistory(bool),
    ShowTools(bool),

    UserSent {
        text: String,
        now_ms: u64,
    },
    /// What the last message carried besides its words, once read.
    UserContext(Vec<ContextLabel>),
    /// What apps added to the model's context with the person's last words.
    AppContextSent(Vec<AppContextSent>),
    /// The active tab (or a tab that changed).
    TabSeen(Tab),
    TabsPermission(bool),
    TabsAsked,
    SetPageChip(bool),
    /// A selection on the page (`None`: none any more).
    SelectionOffered(Option<Rc<ContextPart>>),
    /// The offered selection goes with the next message.
    AttachSelection,
    Attach(Rc<ContextPart>),
    Detach(usize),
    /// "Ask GemiPanel about this page" on this tab: the chip is on for it.
    PinTab(Tab),
    PageToolsListed(Option<Rc<PageTools>>),
    TextDelta(String),
    ThoughtDelta(String),
    ModelTurnEnded {
        incomplete: bool,
    },
    Retrying {
        seconds: u64,
        message: String,
    },
    Notice(String),
    /// A model request went out with these tools.
    ToolsSent(ToolsSent),
    Failed(ErrorView),
    /// The turn is over; `history` is what to save.
    TurnOver {
        history: Rc<Vec<Turn>>,
        now_ms: u64,
    },

    ToolAsked(ToolCard),
    ToolStarted {
        call_id: String,
        now_ms: u64,
    },
    ToolProgress {
        call_id: String,
        progress: Progress,
    },
    /// The call may run (trusted, or the person allowed it): its card shows its app.
    AppShown {
        call_id: String,
        app: AppCard,
    },
    AppLoaded {
        call_id: String,
        resource: Rc<AppResource>,
    },
    AppFailed {
        call_id: String,
        error: String,
    },
    /// The call's result, for its app.
    AppResult {
        call_id: String,
        result: Rc<CallToolResult>,
    },
    /// An app offers the person's next message.
    OfferDraft(String),
    ToolNeedsSignIn {
        call_id: String,
        message: String,
        origin: Option<String>,
        busy: bool,
    },
    ToolNeedsAccess {
        call_id: String,
        message: String,
        origins: Vec<String>,
        tabs: bool,
    },
    ToolSignInStarted {
        call_id: String,
    },
    ToolFinished {
        call_id: String,
        result: String,
        is_error: bool,
        now_ms: u64,
    },
    ToolDenied {
        call_id: String,
    },
    ToolCancelled {
        call_id: String,
    },
    Elicitation(ElicitationCard),
    ElicitationAnswered {
        elicitation_id: String,
        answer: String,
    },

    NewChat {
        id: String,
        now_ms: u64,
    },
    ChatOpened(Box<SavedChat>),
    ChatsListed(Vec<ChatSummary>),
}

const TITLE_CHARS: usize = 60;

pub fn reduce(state: &State, action: Action) -> State {
    let mut next = state.clone();
    let chat = &mut next.chat;
    match action {
        Action::WorkerStarted | Action::RefreshStatus => next.status_epoch += 1,
        Action::StatusLoaded(status) => next.worker = WorkerView::Ready(status),
        Action::StatusFailed(message) => next.worker = WorkerView::Failed(message),
        Action::SettingsLoaded(settings) => {
            next.settings = Some(settings);
            next.settings_error = None;
        }
        Action::SettingsFailed(message) => next.settings_error = Some(message),
        Action::ModelsLoaded(models) => next.models = Some(Rc::new(models)),

        Action::SetModel(model) => chat.model = Some(model).filter(|m| !m.is_empty()),
        Action::SetThinking(choice) => chat.thinking = choice,
        Action::ToggleServer(id) => {
            let mut servers = state.enabled_servers();
            if !servers.shift_remove(&id) {
                servers.insert(id);
            }
            next.chat.servers = Some(servers);
        }
        Action::SetGoogleSearch(on) => chat.google_search = on,
        Action::ShowHistory(show) => next.view = if show { View::History } else { View::Chat },
        Action::ShowTools(show) => next.view = if show { View::Tools } else { View::Chat },

        Action::UserSent { text, now_ms } => {
            if chat.title.is_empty() {
                chat.title = title_from(&text);
            }
            chat.entries.push(Rc::new(Entry::User {
                text,
                context: Vec::new(),
                app_context: Vec::new(),
            }));
            next.attachments.clear();
            chat.busy = true;
            chat.updated_ms = now_ms;
            next.view = View::Chat;
        }
        Action::UserContext(labels) => {
            let last_user = chat.entries.iter().rposition(|e| matches!(**e, Entry::User { .. }));
            if let Some(Entry::User { context, .. }) =
                last_user.map(|i| Rc::make_mut(&mut chat.entries[i]))
            {
                *context = labels;
            }
        }
        Action::AppContextSent(sent) => {
            let last_user = chat.entries.iter().rposition(|e| matches!(**e, Entry::User { .. }));
            if let Some(Entry::User { app_context, .. }) =
                last_user.map(|i| Rc::make_mut(&mut chat.entries[i]))
            {
                *app_context = sent;
            }
        }
        Action::TabSeen(tab) => {
            let page = &mut next.page;
            // Without `tabs`, a tab GemiPanel may not see keeps the chip on the last one it saw.
            let same = page.tab.as_ref().is_some_and(|t| t.id == tab.id);
            if tab.active && (tab.is_visible() || page.follows_tabs || page.tab.is_none()) || same {
                page.tab = Some(tab);
            }
        }
        Action::TabsPermission(granted) => next.page.follows_tabs = granted,
        Action::TabsAsked => next.page.tabs_asked = true,
        Action::SetPageChip(on) => next.page.on = on,
        Action::SelectionOffered(offer) => next.selection = offer,
        Action::AttachSelection => {
            if let Some(selection) = next.selection.take() {
                if !next.attachments.contains(&selection) {
                    next.attachments.push(selection);
                }
            }
        }
        Action::Attach(part) => {
            if !next.attachments.contains(&part) {
                next.attachments.push(part);
            }
        }
        Action::PinTab(tab) => {
            next.page.tab = Some(tab);
            next.page.on = true;
        }
        Action::Detach(index) => {
            if index < next.attachments.len() {
                next.attachments.remove(index);
            }
        }
        Action::PageToolsListed(tools) => next.page_tools = tools,
        Action::TextDelta(text) => chat.streaming_reply().doc.push(&text),
        Action::ThoughtDelta(text) => chat.streaming_reply().thoughts.push(&text),
        Action::ModelTurnEnded { incomplete } => chat.end_streaming(incomplete),
        Action::Retrying { seconds, message } => {
            chat.end_streaming(false);
            chat.entries.push(Rc::new(Entry::Retrying { seconds, message }));
        }
        Action::ToolsSent(sent) => chat.tools_sent = Some(sent),
        Action::Notice(text) => {
            chat.end_streaming(false);
            chat.entries.push(Rc::new(Entry::Notice { text }));
        }
        Action::Failed(error) => {
            chat.end_streaming(false);
            chat.entries.push(Rc::new(Entry::Error(error)));
        }
        Action::TurnOver { history, now_ms } => {
            chat.end_streaming(false);
            chat.busy = false;
            chat.history = history;
            chat.updated_ms = now_ms;
            chat.save_epoch += 1;
        }

        Action::ToolAsked(card) => {
            chat.end_streaming(false);
            chat.entries.push(Rc::new(Entry::Tool(card)));
        }
        Action::ToolStarted { call_id, now_ms } => {
            if let Some(card) = chat.tool_mut(&call_id) {
                card.status = ToolStatus::Running;
                card.started_ms = Some(now_ms);
            }
        }
        Action::ToolProgress { call_id, progress } => {
            if let Some(card) = chat.tool_mut(&call_id) {
                card.progress = Some(progress);
            }
        }
        Action::AppShown { call_id, app } => {
            if let Some(card) = chat.tool_mut(&call_id) {
                card.app = Some(app);
            }
        }
        Action::AppLoaded { call_id, resource } => {
            if let Some(app) = chat.tool_mut(&call_id).and_then(|c| c.app.as_mut()) {
                app.resource = Some(resource);
                app.error = None;
            }
            chat.save_if_idle();
        }
        Action::AppFailed { call_id, error } => {
            if let Some(app) = chat.tool_mut(&call_id).and_then(|c| c.app.as_mut()) {
                app.error = Some(error);
            }
            chat.save_if_idle();
        }
        Action::AppResult { call_id, result } => {
            // A result that comes after the person stopped the call is not the app's.
            match chat.tool_mut(&call_id).and_then(|c| c.app.as_mut()) {
                Some(app) if !app.cancelled => app.result = Some(result),
                _ => {}
            }
        }
        Action::OfferDraft(text) => {
            next.draft_epoch += 1;
            next.draft = Some(text);
        }
        Action::ToolNeedsSignIn { call_id, message, origin, busy } => {
            if let Some(card) = chat.tool_mut(&call_id) {
                card.status = ToolStatus::NeedsSignIn { message, origin, busy };
            }
        }
        Action::ToolNeedsAccess { call_id, message, origins, tabs } => {
            if let Some(card) = chat.tool_mut(&call_id) {
                card.status = ToolStatus::NeedsAccess { message, origins, tabs };
            }
        }
        Action::ToolSignInStarted { call_id } => {
            if let Some(card) = chat.tool_mut(&call_id) {
                if let ToolStatus::NeedsSignIn { busy, .. } = &mut card.status {
                    *busy = true;
                }
            }
        }
        Action::ToolFinished { call_id, result, is_error, now_ms } => {
            let card = chat.tool_mut(&call_id);
            // A call stopped or denied stays so: its late result never reached the model.
            if let Some(card) =
                card.filter(|c| !matches!(c.status, ToolStatus::Cancelled | ToolStatus::Denied))
            {
                card.duration_ms = card.started_ms.map(|start| now_ms.saturating_sub(start));
                if is_error {
                    card.status = ToolStatus::Failed { message: result };
                } else {
                    card.status = ToolStatus::Done;
                    card.result = Some(result);
                }
            }
        }
        Action::ToolDenied { call_id } => {
            if let Some(card) = chat.tool_mut(&call_id) {
                card.status = ToolStatus::Denied;
            }
        }
        Action::ToolCancelled { call_id } => {
            if let Some(card) = chat.tool_mut(&call_id) {
                if matches!(
                    card.status,
                    ToolStatus::Confirm
                        | ToolStatus::Running
                        | ToolStatus::NeedsSignIn { .. }
                        | ToolStatus::NeedsAccess { .. }
                ) {
                    card.status = ToolStatus::Cancelled;
                    if let Some(app) = card.app.as_mut() {
                        app.cancelled = true;
                    }
                }
            }
        }
        Action::Elicitation(mut card) => {
            card.server_name = chat.tool(&card.call_id).map(|tool| tool.server_name.clone());
            chat.entries.push(Rc::new(Entry::Elicitation(card)))
        }
        Action::ElicitationAnswered { elicitation_id, answer } => {
            if let Some(card) = chat.elicitation_mut(&elicitation_id) {
                card.answer = Some(answer);
            }
        }

        Action::NewChat { id, now_ms } => {
            next.chat = ChatView::new(id, now_ms);
            next.view = View::Chat;
        }
        Action::ChatOpened(saved) => {
            next.chat = ChatView::from_saved(*saved);
            next.view = View::Chat;
        }
        Action::ChatsListed(saved) => next.saved = Rc::new(saved),
    }
    next
}

/// The first line of the first message, shortened.
pub fn title_from(text: &str) -> String {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or_default();
    let mut title: String = line.chars().take(TITLE_CHARS).collect();
    if line.chars().count() > TITLE_CHARS {
        title.push('…');
    }
    title
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        Rc::new(reduce(&self, action))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(uptime_ms: u64) -> WorkerStatus {
        WorkerStatus {
            extension_version: "0.1.0".into(),
            uptime_ms,
            configured_servers: 1,
            vault: Default::default(),
        }
    }

    fn run(actions: Vec<Action>) -> State {
        actions.into_iter().fold(State::default(), |s, a| reduce(&s, a))
    }

    fn sent(text: &str) -> Action {
        Action::UserSent { text: text.into(), now_ms: 1 }
    }

    #[test]
    fn a_restart_asks_for_the_status_again_and_keeps_the_last_one_meanwhile() {
        let state = reduce(&State::default(), Action::StatusLoaded(status(5_000)));
        let restarted = reduce(&state, Action::WorkerStarted);
        assert_eq!(restarted.status_epoch, state.status_epoch + 1);
        assert_eq!(restarted.worker, WorkerView::Ready(status(5_000)));
        let fresh = reduce(&restarted, Action::StatusLoaded(status(10)));
        assert_eq!(fresh.worker, WorkerView::Ready(status(10)));
    }

    #[test]
    fn deltas_grow_one_reply_until_the_turn_ends() {
        let state = run(vec![
            sent("Hi"),
            Action::TextDelta("Hello ".into()),
            Action::TextDelta("there".into()),
        ]);
        assert!(state.chat.busy);
        assert_eq!(state.chat.title, "Hi");
        assert_eq!(state.chat.entries.len(), 2);
        let Entry::Model(reply) = &*state.chat.entries[1] else { panic!() };
        assert_eq!(reply.doc.text(), "Hello there");
        assert!(reply.streaming);
        let done = reduce(&state, Action::TurnOver { history: Rc::default(), now_ms: 9 });
        assert!(!done.chat.busy);
        assert_eq!(done.chat.save_epoch, state.chat.save_epoch + 1);
        let Entry::Model(reply) = &*done.chat.entries[1] else { panic!() };
        assert!(!reply.streaming && !reply.incomplete);
    }

    /// An app of `ui://a` on server `s1`, its resource not read yet.
    fn app_card() -> AppCard {
        AppCard {
            server_id: "s1".into(),
            uri: "ui://a".into(),
            tool: Rc::default(),
            input: Default::default(),
            resource: None,
            error: None,
            result: None,
            cancelled: false,
        }
    }

    #[test]
    fn an_app_that_arrives_after_the_turn_is_saved_with_the_chat() {
        let mut card = ToolCard::asked("call-1", "s1", "Apps", "show", "{}".into(), None, false);
        card.app = Some(app_card());
        let state = run(vec![
            sent("show"),
            Action::ToolAsked(card),
            Action::TurnOver { history: Rc::default(), now_ms: 9 },
        ]);
        let resource =
            AppResource { uri: "ui://a".into(), html: "<p>app".into(), meta: Default::default() };
        let loaded = reduce(
            &state,
            Action::AppLoaded { call_id: "call-1".into(), resource: Rc::new(resource) },
        );
        assert_eq!(loaded.chat.save_epoch, state.chat.save_epoch + 1);
        let failed =
            reduce(&state, Action::AppFailed { call_id: "call-1".into(), error: "gone".into() });
        assert_eq!(failed.chat.save_epoch, state.chat.save_epoch + 1);
        // During a turn, the save at its end takes it along.
        let busy = run(vec![sent("show")]);
        let during =
            reduce(&busy, Action::AppFailed { call_id: "call-1".into(), error: "gone".into() });
        assert_eq!(during.chat.save_epoch, busy.chat.save_epoch);
    }

    #[test]
    fn a_result_after_the_person_stopped_the_call_is_not_the_apps() {
        let mut card = ToolCard::asked("call-1", "s1", "Apps", "show", "{}".into(), None, true);
        card.status = ToolStatus::Running;
        card.app = Some(app_card());
        let late: CallToolResult =
            serde_json::from_value(serde_json::json!({"content": []})).unwrap();
        let state = run(vec![
            sent("show"),
            Action::ToolAsked(card),
            Action::ToolCancelled { call_id: "call-1".into() },
            Action::AppResult { call_id: "call-1".into(), result: Rc::new(late) },
        ]);
        let app = state.chat.tool("call-1").and_then(|c| c.app.clone()).unwrap();
        assert!(app.cancelled);
        assert!(app.result.is_none());
    }

    #[test]
    fn a_chunk_shares_every_earlier_entry() {
        let state = run(vec![sent("a"), Action::TextDelta("x".into())]);
        let next = reduce(&state, Action::TextDelta("y".into()));
        assert!(Rc::ptr_eq(&state.chat.entries[0], &next.chat.entries[0]));
    }

    #[test]
    fn text_after_a_tool_call_starts_a_new_reply() {
        let card = ToolCard::asked("call-1", "s1", "Everything", "echo", "{}".into(), None, false);
        let state = run(vec![
            sent("echo"),
            Action::TextDelta("Let me check.".into()),
            Action::ModelTurnEnded { incomplete: false },
            Action::ToolAsked(card),
            Action::ToolStarted { call_id: "call-1".into(), now_ms: 100 },
            Action::ToolFinished {
                call_id: "call-1".into(),
                result: "Echo: hi".into(),
                is_error: false,
                now_ms: 350,
            },
            Action::TextDelta("Done.".into()),
        ]);
        let kinds: Vec<_> = state.chat.entries.iter().map(|e| e.kind()).collect();
        assert_eq!(kinds, ["user", "model", "tool", "model"]);
        let Entry::Tool(card) = &*state.chat.entries[2] else { panic!() };
        assert_eq!(card.status, ToolStatus::Done);
        assert_eq!(card.duration_ms, Some(250));
        assert_eq!(card.result.as_deref(), Some("Echo: hi"));
    }

    #[test]
    fn a_cut_reply_is_marked_incomplete_and_keeps_its_text() {
        let state = run(vec![
            sent("a"),
            Action::TextDelta("partial".into()),
            Action::ModelTurnEnded { incomplete: true },
            Action::Notice("The reply was cut short and is incomplete.".into()),
        ]);
        let Entry::Model(reply) = &*state.chat.entries[1] else { panic!() };
        assert!(reply.incomplete);
        assert_eq!(reply.doc.text(), "partial");
    }

    #[test]
    fn cancelling_leaves_finished_calls_alone() {
        let mut card = ToolCard::asked("c", "s", "S", "t", "{}".into(), None, false);
        card.status = ToolStatus::Done;
        let state =
            run(vec![Action::ToolAsked(card), Action::ToolCancelled { call_id: "c".into() }]);
        let Entry::Tool(card) = &*state.chat.entries[0] else { panic!() };
        assert_eq!(card.status, ToolStatus::Done);
    }

    #[test]
    fn toggling_a_server_starts_from_the_defaults() {
        let mut settings = Settings::default();
        let a = gemipanel_core::settings::ServerId::parse("srv_a").unwrap();
        let b = gemipanel_core::settings::ServerId::parse("srv_b").unwrap();
        for (id, on) in [(a, true), (b, false)] {
            settings.servers.push(gemipanel_core::settings::Server {
                oauth: Default::default(),
                id,
                name: "x".into(),
                url: "https://x".into(),
                local: None,
                confirmed_command: None,
                confirmed_run: None,
                headers: Default::default(),
                timeout_ms: 1000,
                trust: false,
                include_tools: None,
                exclude_tools: vec![],
                enabled_by_default: on,
                local_network: false,
                allowed_tools: Default::default(),
            });
        }
        let state = run(vec![Action::SettingsLoaded(Rc::new(settings))]);
        let ids = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<IndexSet<_>>();
        assert_eq!(state.enabled_servers(), ids(&["srv_a", BROWSER, PAGES]));
        let toggled = reduce(&state, Action::ToggleServer("srv_b".into()));
        assert_eq!(toggled.enabled_servers(), ids(&["srv_a", BROWSER, PAGES, "srv_b"]));
        let off = reduce(&toggled, Action::ToggleServer("srv_a".into()));
        assert_eq!(off.chat.servers, Some(ids(&[BROWSER, PAGES, "srv_b"])));
    }

    #[test]
    fn a_saved_chat_reopens_as_it_was() {
        let turn = Turn::new(gemipanel_core::gemini::Content::user_text("Tell me"), None);
        let state = run(vec![
            sent("Tell me"),
            Action::SetThinking(ThinkingChoice::High),
            Action::ThoughtDelta("**Planning** the answer.".into()),
            Action::TextDelta("# Title\n\nBody".into()),
            Action::TurnOver { history: Rc::new(vec![turn]), now_ms: 5 },
        ]);
        let Entry::Model(reply) = &*state.chat.entries[1] else { panic!() };
        assert_eq!(reply.thoughts.text(), "**Planning** the answer.");
        assert_eq!(reply.doc.text(), "# Title\n\nBody", "thoughts are never the answer");
        let saved = state.chat.to_saved();
        let json = serde_json::to_string(&saved).unwrap();
        let back: SavedChat = serde_json::from_str(&json).unwrap();
        let reopened = reduce(&State::default(), Action::ChatOpened(Box::new(back)));
        assert_eq!(reopened.chat.entries, state.chat.entries);
        assert_eq!(reopened.chat.history, state.chat.history);
        assert_eq!(reopened.chat.title, "Tell me");
        assert_eq!(reopened.chat.thinking, ThinkingChoice::High);
    }

    #[test]
    fn the_model_is_the_chats_else_the_settings_else_the_automatic_default() {
        use gemipanel_core::gemini::{Stage, FALLBACK_MODEL};
        let info = |id: &str| ModelInfo {
            id: id.into(),
            display_name: id.into(),
            stage: Stage::Stable,
            input_token_limit: None,
            thinking: None,
        };
        let state = State::default();
        assert_eq!(state.model(), FALLBACK_MODEL, "before any list");
        let listed = reduce(&state, Action::ModelsLoaded(vec![info("gemini-9-flash")]));
        assert_eq!(listed.model(), "gemini-9-flash", "the list's newest stable Flash");
        let mut settings = Settings::default();
        settings.gemini.model = Some("gemini-4-argon".into());
        let set = reduce(&listed, Action::SettingsLoaded(Rc::new(settings)));
        assert_eq!(set.model(), "gemini-4-argon");
        let chosen = reduce(&set, Action::SetModel("gemini-3.6-flash".into()));
        assert_eq!(chosen.model(), "gemini-3.6-flash");
        let back = reduce(&chosen, Action::SetModel(String::new()));
        assert_eq!((back.chat.model.clone(), back.model()), (None, "gemini-4-argon".to_owned()));
    }

    fn tab(id: i32, url: Option<&str>) -> Tab {
        Tab {
            id,
            active: true,
            url: url.map(str::to_owned),
            title: url.map(|u| format!("Title of {u}")),
            ..Tab::default()
        }
    }

    #[test]
    fn without_tabs_the_chip_stays_on_the_last_tab_it_may_see() {
        let state = run(vec![Action::TabSeen(tab(1, Some("https://a.example/")))]);
        // A tab whose address is hidden (no `tabs`, no access) does not take the chip.
        let hidden = reduce(&state, Action::TabSeen(tab(2, None)));
        assert_eq!(hidden.page.tab.as_ref().map(|t| t.id), Some(1));
        // The same tab navigating keeps it, whatever it shows.
        let moved = reduce(&state, Action::TabSeen(tab(1, None)));
        assert_eq!(moved.page.tab, Some(tab(1, None)));
        // With `tabs`, the chip follows every tab.
        let follows = run(vec![
            Action::TabsPermission(true),
            Action::TabSeen(tab(1, Some("https://a.example/"))),
            Action::TabSeen(tab(2, None)),
        ]);
        assert_eq!(follows.page.tab.as_ref().map(|t| t.id), Some(2));
        // A tab that is not active does not take it.
        let mut background = tab(3, Some("https://c.example/"));
        background.active = false;
        assert_eq!(reduce(&state, Action::TabSeen(background)).page.tab, state.page.tab);
    }

    #[test]
    fn an_attached_selection_goes_with_the_next_message_and_the_message_says_what_it_carried() {
        use gemipanel_core::page::browser_tools::selection_context;
        let selection = Rc::new(selection_context("A", "https://a.example/", "picked").unwrap());
        let state = run(vec![
            Action::SelectionOffered(Some(selection.clone())),
            Action::AttachSelection,
            Action::AttachSelection,
        ]);
        assert_eq!(state.attachments, vec![selection.clone()]);
        assert!(state.selection.is_none());
        let sent = reduce(&state, sent("About this"));
        assert!(sent.attachments.is_empty());
        let labelled = reduce(&sent, Action::UserContext(vec![selection.label.clone()]));
        let Entry::User { context, .. } = &*labelled.chat.entries[0] else { panic!() };
        assert_eq!(context, &vec![selection.label.clone()]);
        // Kept in the saved chat.
        let json = serde_json::to_string(&labelled.chat.to_saved()).unwrap();
        let back: SavedChat = serde_json::from_str(&json).unwrap();
        assert_eq!(back.entries[0], *labelled.chat.entries[0]);
        assert_eq!(reduce(&labelled, Action::Detach(5)).attachments, labelled.attachments);
    }

    #[test]
    fn what_apps_added_goes_with_the_person_s_message_apart_from_their_words_and_is_saved() {
        let added = AppContextSent {
            tool: "show_counter".into(),
            server: "Apps".into(),
            text: "The counter shows 3".into(),
        };
        let sent = reduce(&State::default(), sent("What does it show?"));
        let marked = reduce(&sent, Action::AppContextSent(vec![added.clone()]));
        let Entry::User { text, app_context, .. } = &*marked.chat.entries[0] else { panic!() };
        assert_eq!(text, "What does it show?");
        assert_eq!(app_context, &vec![added]);
        let json = serde_json::to_string(&marked.chat.to_saved()).unwrap();
        let back: SavedChat = serde_json::from_str(&json).unwrap();
        assert_eq!(back.entries[0], *marked.chat.entries[0]);
        // A chat saved before apps' context was kept reads as it was.
        let old: Entry = serde_json::from_str(r#"{"user": {"text": "hi"}}"#).unwrap();
        assert!(matches!(old, Entry::User { app_context, .. } if app_context.is_empty()));
    }

    #[test]
    fn the_browser_is_on_in_a_new_chat_and_can_be_turned_off() {
        let state = run(vec![Action::SettingsLoaded(Rc::new(Settings::default()))]);
        assert!(state.enabled_servers().contains(BROWSER));
        let off = reduce(&state, Action::ToggleServer(BROWSER.into()));
        assert!(!off.enabled_servers().contains(BROWSER));
    }

    #[test]
    fn titles_are_the_first_line_shortened() {
        assert_eq!(title_from("\n  Hello  \nworld"), "Hello");
        let long = "x".repeat(100);
        assert_eq!(title_from(&long).chars().count(), TITLE_CHARS + 1);
    }
}
