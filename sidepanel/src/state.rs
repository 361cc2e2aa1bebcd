//! The side panel's state and its pure reducer.
//!
//! The transcript is a list of `Rc<Entry>`: a chunk of a streamed reply clones the list of
//! pointers and the last entry only, so a chunk costs the same early and late in a long chat.

use crate::files::{PickedFile, UploadView};
use indexmap::IndexSet;
use std::rc::Rc;

use gemipanel_core::apps::resource::AppResource;
use gemipanel_core::branches::{Forks, Path};
use gemipanel_core::gemini::budget::ToolsSent;
use gemipanel_core::gemini::history::{self, HistoryMark};
use gemipanel_core::gemini::Part;
use gemipanel_core::gemini::{
    automatic_model, ContextMeter, ModelInfo, Sources, ThinkingChoice, Turn, TurnUsage,
};
use gemipanel_core::mcp::CallToolResult;
use gemipanel_core::messages::WorkerStatus;
use gemipanel_core::settings::Settings;
use yew::Reducible;

pub use crate::transcript::{
    AppCard, AppContextSent, BranchTail, ChatSummary, ContextLabel, ElicitationCard, Entry,
    ErrorKind, ErrorView, ModelReply, NoticeSignIn, Progress, SavedChat, SignInStep, ToolCard,
    ToolStatus,
};
use gemipanel_core::chats::activity::{self, Activity, SentActivity};
use gemipanel_core::page::context::ContextPart;
use gemipanel_core::page::tab::Tab;
use gemipanel_core::page::webmcp::PageTools;
use gemipanel_core::resource_updates::{followed, FollowedResource, Marks};
use gemipanel_core::settings::source::{BROWSER, PAGES};

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
    /// The chat's activity (`chats::activity`).
    Activity,
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
    /// The tokens the next request sends again, as of the last answer.
    pub context_tokens: u64,
    /// The model is writing the summary a new chat will start from (not saved).
    pub summarizing: bool,
    /// The conversation as Gemini sees it, as of the last finished turn.
    pub history: Rc<Vec<Turn>>,
    /// Bumped when the chat should be saved.
    pub save_epoch: u32,
    /// What the last model request of this chat declared (not saved: it is about this visit).
    pub tools_sent: Option<ToolsSent>,
    /// The versions not shown (edited or regenerated messages).
    pub forks: Forks<BranchTail>,
    /// This chat's own instructions.
    pub instructions: Option<String>,
    /// The stored revision this copy was read or saved at (`SavedChat::revision`).
    pub revision: u64,
    /// Every tool call made for the chat and what left the browser with it (`chats::activity`).
    pub activity: Rc<Vec<Activity>>,
}

/// What the transcript needs to know of a message of the person's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MessageInfo {
    /// (shown, count) when versions part at this message.
    pub versions: Option<(usize, usize)>,
    /// A new version can start here (the chat is idle and the message's mark is known).
    pub editable: bool,
}

/// The message to send again when a version starts at a message: the history before it, the
/// parts it sent (text, attachments, context) and its text.
#[derive(Debug, Clone, PartialEq)]
pub struct BranchPoint {
    pub history: Vec<Turn>,
    pub parts: Vec<Part>,
    pub text: String,
}

/// The chat as it is shown, cut and joined at the person's messages.
pub(crate) struct ShownPath<'a> {
    entries: &'a mut Vec<Rc<Entry>>,
    history: &'a mut Rc<Vec<Turn>>,
}

impl ShownPath<'_> {
    fn entry_of(&self, message: usize) -> Option<usize> {
        self.entries
            .iter()
            .enumerate()
            .filter(|(_, e)| matches!(***e, Entry::User { .. }))
            .nth(message)
            .map(|(i, _)| i)
    }
}

impl Path for ShownPath<'_> {
    type Tail = BranchTail;

    fn messages(&self) -> usize {
        self.entries.iter().filter(|e| matches!(***e, Entry::User { .. })).count()
    }

    fn cut(&mut self, at: usize) -> BranchTail {
        let Some(index) = self.entry_of(at) else { return BranchTail::default() };
        let mark = match &*self.entries[index] {
            Entry::User { mark, .. } => *mark,
            _ => None,
        };
        let entries = self
            .entries
            .split_off(index)
            .into_iter()
            .map(Rc::unwrap_or_clone)
            // A question only meant while its call ran is not kept.
            .filter(|e| !matches!(e, Entry::Elicitation(_)))
            .collect();
        let history =
            mark.and_then(|mark| mark.cut(Rc::make_mut(self.history))).unwrap_or_default();
        BranchTail { entries, history }
    }

    fn join(&mut self, tail: BranchTail) {
        self.entries.extend(tail.entries.into_iter().map(Rc::new));
        tail.history.join(Rc::make_mut(self.history));
    }
}

/// Chats saved before versions have no marks: they are told from the history when they can be.
fn fill_marks(saved: &mut SavedChat) {
    let users = saved.entries.iter().filter(|e| matches!(e, Entry::User { .. })).count();
    let known = saved.entries.iter().any(|e| matches!(e, Entry::User { mark: Some(_), .. }));
    if users == 0 || known {
        return;
    }
    let Some(marks) = history::derive_marks(&saved.history, users) else { return };
    let users = saved.entries.iter_mut().filter_map(|e| match e {
        Entry::User { mark, .. } => Some(mark),
        _ => None,
    });
    for (mark, derived) in users.zip(marks) {
        *mark = Some(derived);
    }
}

impl ChatView {
    pub fn new(id: String, now_ms: u64) -> Self {
        Self { id, created_ms: now_ms, updated_ms: now_ms, ..Self::default() }
    }

    pub(crate) fn path(&mut self) -> ShownPath<'_> {
        ShownPath { entries: &mut self.entries, history: &mut self.history }
    }

    /// The person's messages on the shown path, in order.
    pub fn message_info(&self) -> Vec<MessageInfo> {
        self.entries
            .iter()
            .filter_map(|e| match &**e {
                Entry::User { mark, .. } => Some(*mark),
                _ => None,
            })
            .enumerate()
            .map(|(at, mark)| MessageInfo {
                versions: self.forks.at(at),
                editable: !self.busy && mark.is_some_and(|m| m.contents <= self.history.len()),
            })
            .collect()
    }

    /// What to send again for a new version from message `at`; `None` when it cannot be told.
    pub fn branch_point(&self, at: usize) -> Option<BranchPoint> {
        let (text, mark) = self
            .entries
            .iter()
            .filter_map(|e| match &**e {
                Entry::User { text, mark, .. } => Some((text, *mark)),
                _ => None,
            })
            .nth(at)?;
        let mut history = (*self.history).clone();
        let tail = mark?.cut(&mut history)?;
        Some(BranchPoint { history, parts: tail.sent_parts(), text: text.clone() })
    }

    /// Every tool call id of the chat, in every version.
    pub fn call_ids(&self) -> Vec<String> {
        let kept = self.forks.tails().into_iter().flat_map(|t| t.entries.iter());
        crate::transcript::call_ids(self.entries.iter().map(|e| &**e).chain(kept))
    }

    /// The chat with version `to` of message `at` shown (unchanged when there is none).
    pub fn switched(&self, at: usize, to: usize) -> ChatView {
        let mut next = self.clone();
        let mut forks = std::mem::take(&mut next.forks);
        forks.switch(&mut next.path(), at, to);
        next.forks = forks;
        next
    }

    /// Takes in the chat as stored. What this panel saved itself only moves the revision on.
    /// What holds another panel's turns is shown when idle; during a turn only when it holds
    /// everything shown here (its versions are then kept), else the save at the turn's end
    /// merges again.
    pub fn take_stored(&mut self, stored: SavedChat, merged: bool) {
        if stored.revision <= self.revision {
            return;
        }
        if !merged {
            self.revision = stored.revision;
        } else if !self.busy {
            *self = ChatView { tools_sent: self.tools_sent.take(), ..ChatView::from_saved(stored) };
        } else if stored.entries.len() <= self.entries.len()
            && stored.entries.iter().zip(&self.entries).all(|(a, b)| a == &**b)
        {
            self.forks = stored.forks;
            self.revision = stored.revision;
        }
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
            context_tokens: self.context_tokens,
            history: (*self.history).clone(),
            entries: self
                .entries
                .iter()
                .filter(|e| !matches!(***e, Entry::Elicitation(_)))
                .map(|e| (**e).clone())
                .collect(),
            forks: self.forks.clone(),
            instructions: self.instructions.clone(),
            revision: self.revision,
            activity: (*self.activity).clone(),
        }
    }

    pub fn from_saved(mut saved: SavedChat) -> Self {
        fill_marks(&mut saved);
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
            context_tokens: saved.context_tokens,
            summarizing: false,
            history: Rc::new(saved.history),
            save_epoch: 0,
            tools_sent: None,
            forks: saved.forks,
            instructions: saved.instructions,
            revision: saved.revision,
            activity: Rc::new(saved.activity),
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

    /// The last reply of the running exchange (since the person's last message).
    fn exchange_reply(&mut self) -> Option<&mut ModelReply> {
        let start = self
            .entries
            .iter()
            .rposition(|e| matches!(**e, Entry::User { .. } | Entry::Summary { .. }))
            .map_or(0, |i| i + 1);
        let index =
            start + self.entries[start..].iter().rposition(|e| matches!(**e, Entry::Model(_)))?;
        match Rc::make_mut(&mut self.entries[index]) {
            Entry::Model(reply) => Some(reply),
            _ => None,
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

    /// The latest time the chat knows of, for what is told without one.
    fn latest_ms(&self) -> u64 {
        let last = self.activity.last().map_or(0, Activity::at_ms);
        self.updated_ms.max(last)
    }

    /// Keeps `entry` in the chat's activity.
    fn record(&mut self, entry: Activity) {
        activity::record(Rc::make_mut(&mut self.activity), entry);
    }

    /// The record of call `call_id`, once it is over.
    fn record_call(&mut self, call_id: &str, now_ms: u64) {
        if let Some(entry) = self.tool(call_id).and_then(|card| Activity::of_card(card, now_ms)) {
            self.record(entry);
        }
    }

    fn notice_sign_in(&mut self, server_id: &str, step: SignInStep) {
        for entry in self.entries.iter_mut() {
            let offers = matches!(&**entry, Entry::Notice { sign_in: Some(s), .. } if s.server_id == server_id);
            if let (true, Entry::Notice { sign_in: Some(offer), .. }) =
                (offers, Rc::make_mut(entry))
            {
                offer.step = step.clone();
            }
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
    /// Counts the servers' announcements that their prompts changed (an open `/` menu lists
    /// them again).
    pub prompts_epoch: u32,
    /// The chat's resources that changed on their server since they were read.
    pub resource_marks: Marks,
    /// Files from the person's computer for the next message.
    pub files: Vec<Rc<PickedFile>>,
    /// Why files the person picked were not attached, in words.
    pub file_note: Option<String>,
    /// A file of the message being sent, uploading.
    pub upload: Option<UploadView>,
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
            prompts_epoch: 0,
            resource_marks: Marks::default(),
            files: Vec::new(),
            file_note: None,
            upload: None,
            page_tools: None,
        }
    }
}

impl State {
    /// The resources the open chat follows: those its messages sent.
    pub fn followed_resources(&self) -> Vec<FollowedResource> {
        followed(self.chat.entries.iter().flat_map(|e| match &**e {
            Entry::User { context, .. } => context.as_slice(),
            _ => &[],
        }))
    }

    /// The open chat's resources marked as changed.
    pub fn changed_resources(&self) -> Vec<FollowedResource> {
        self.resource_marks.changed(&self.chat.id, &self.followed_resources())
    }

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

    /// How full the chat's model's context window is, when the list gives the window.
    pub fn context_meter(&self) -> Option<ContextMeter> {
        let limit = self.model_info(&self.model()).and_then(|m| m.input_token_limit);
        ContextMeter::new(self.chat.context_tokens, limit)
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
    ShowActivity(bool),

    UserSent {
        text: String,
        now_ms: u64,
    },
    /// What the last message carried besides its words, once read.
    UserContext(Vec<ContextLabel>),
    /// What apps added to the model's context with the person's last words.
    AppContextSent(Vec<AppContextSent>),
    /// A tool call made for the chat outside the model's turn (an app's, the person's).
    Activity(Activity),
    /// The active tab (or a tab that changed).
    TabSeen(Tab),
    TabsPermission(bool),
    TabsAsked,
    SetPageChip(bool),
    /// A selection on the page (`None`: none any more).
    SelectionOffered(Option<Rc<ContextPart>>),
    /// The offered selection goes with the next message.
    AttachSelection,
    /// A context part for the next message; a resource read again replaces its earlier chip
    /// and its mark.
    Attach(Rc<ContextPart>),
    /// A server's prompts changed.
    PromptsChanged,
    /// A server says one of its resources changed.
    ResourceUpdated(FollowedResource),
    Detach(usize),
    /// Files picked, dropped or pasted: those the model reads, and words for the others.
    AttachFiles(Vec<Rc<PickedFile>>, Vec<String>),
    /// The file chip with this id was removed.
    DetachFile(u32),
    /// An upload's progress (`None`: it ended).
    Uploading(Option<UploadView>),
    /// "Ask GemiPanel about this page" on this tab: the chip is on for it.
    PinTab(Tab),
    PageToolsListed(Option<Rc<PageTools>>),
    TextDelta(String),
    ThoughtDelta(String),
    ModelTurnEnded {
        incomplete: bool,
    },
    /// The reply's sources (Google Search grounding).
    Sources(Sources),
    /// A request of the turn ended: the turn's usage so far and the chat's context.
    Usage {
        turn: TurnUsage,
        context_tokens: u64,
    },
    Retrying {
        seconds: u64,
        message: String,
        until_ms: u64,
        retry: u32,
        max: u32,
    },
    Notice(String),
    /// A notice that a server's tools are missing until the person signs in: it offers Sign in.
    SignInNotice {
        text: String,
        server_id: String,
        server_name: String,
    },
    /// How far the sign-in a notice offers got (every notice of that server follows).
    NoticeSignIn {
        server_id: String,
        step: SignInStep,
    },
    /// The model stopped for a reason worth telling (`finishReason` code, in words).
    Finished {
        code: String,
        text: String,
    },
    /// The person asked a reply cut at the output limit to go on: it grows where it stopped.
    Continued,
    /// The model is asked for a summary to start a new chat from.
    SummaryStarted,
    /// A new version of the chat starts at message `at`: what follows it is kept, and the
    /// message sent next (edited, or the same to regenerate) takes its place.
    Branch {
        at: usize,
    },
    /// Shows another version of message `at`.
    SwitchVersion {
        at: usize,
        to: usize,
    },
    /// This chat's own instructions; `None` removes them.
    SetInstructions(Option<String>),
    /// A new chat starts from the summary of this one.
    Summarized {
        id: String,
        now_ms: u64,
        summary: String,
        history: Rc<Vec<Turn>>,
    },
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

    /// The open chat was deleted from the history: a new one takes its place, the history
    /// stays shown.
    OpenChatDeleted {
        id: String,
        now_ms: u64,
    },
    NewChat {
        id: String,
        now_ms: u64,
    },
    ChatOpened(Box<SavedChat>),
    ChatsListed(Vec<ChatSummary>),
    /// The open chat as stored: by this panel's save (`merged` when another panel's save was
    /// kept with it) or by another window's panel.
    ChatStored {
        chat: Box<SavedChat>,
        merged: bool,
    },
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
        Action::ShowActivity(show) => next.view = if show { View::Activity } else { View::Chat },

        Action::UserSent { text, now_ms } => {
            if chat.title.is_empty() {
                chat.title = title_from(&text);
            }
            // The chat is idle when a message is sent: its history is the driver's.
            let mark = Some(HistoryMark::end_of(&chat.history));
            chat.entries.push(Rc::new(Entry::User {
                text,
                context: Vec::new(),
                app_context: Vec::new(),
                mark,
            }));
            next.attachments.clear();
            // The driver holds the files of the message now.
            next.files.clear();
            next.file_note = None;
            chat.busy = true;
            chat.updated_ms = now_ms;
            next.view = View::Chat;
        }
        // A summary being written is not a reply of this chat.
        Action::TextDelta(_) | Action::ThoughtDelta(_) if chat.summarizing => {}
        Action::UserContext(labels) => {
            let last_user = chat.entries.iter().rposition(|e| matches!(**e, Entry::User { .. }));
            if let Some(Entry::User { context, .. }) =
                last_user.map(|i| Rc::make_mut(&mut chat.entries[i]))
            {
                context.clone_from(&labels);
            }
            if !labels.is_empty() {
                let at_ms = chat.updated_ms;
                chat.record(Activity::Sent(SentActivity { at_ms, sent: labels }));
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
        Action::PromptsChanged => next.prompts_epoch = next.prompts_epoch.wrapping_add(1),
        Action::Attach(part) => {
            if let Some(resource) = FollowedResource::of(&part.label) {
                next.resource_marks.refreshed(&resource);
                let same = |p: &Rc<ContextPart>| {
                    FollowedResource::of(&p.label).as_ref() == Some(&resource)
                };
                next.attachments.retain(|p| !same(p));
            }
            if !next.attachments.contains(&part) {
                next.attachments.push(part);
            }
        }
        Action::ResourceUpdated(resource) => {
            let follows = state.followed_resources();
            next.resource_marks.updated(&state.chat.id, &follows, resource);
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
        Action::AttachFiles(files, refused) => {
            next.files.extend(files);
            next.file_note = (!refused.is_empty()).then(|| refused.join(" "));
        }
        Action::DetachFile(id) => next.files.retain(|f| f.id != id),
        Action::Uploading(progress) => next.upload = progress,
        Action::PageToolsListed(tools) => next.page_tools = tools,
        Action::TextDelta(text) => chat.streaming_reply().doc.push(&text),
        Action::ThoughtDelta(text) => chat.streaming_reply().thoughts.push(&text),
        Action::ModelTurnEnded { incomplete } => chat.end_streaming(incomplete),
        Action::Sources(sources) => {
            if let Some(reply) = chat.exchange_reply() {
                reply.sources = Some(sources);
            }
        }
        Action::Usage { turn, context_tokens } => {
            if !chat.summarizing {
                chat.context_tokens = context_tokens;
                if let Some(reply) = chat.exchange_reply() {
                    reply.usage = Some(turn);
                }
            }
        }
        Action::Retrying { seconds, message, until_ms, retry, max } => {
            chat.end_streaming(false);
            chat.entries.push(Rc::new(Entry::Retrying { seconds, message, until_ms, retry, max }));
        }
        Action::Finished { code, text } => {
            chat.end_streaming(false);
            chat.entries.push(Rc::new(Entry::Finish { code, text }));
        }
        Action::Continued => {
            if matches!(chat.entries.last().map(|e| &**e), Some(Entry::Finish { .. })) {
                chat.entries.pop();
            }
            if let Some(Entry::Model(reply)) = chat.entries.last_mut().map(Rc::make_mut) {
                reply.streaming = true;
                reply.incomplete = false;
            }
            chat.busy = true;
        }
        Action::Branch { at } => {
            if !chat.busy {
                let mut forks = std::mem::take(&mut chat.forks);
                forks.branch(&mut chat.path(), at);
                chat.forks = forks;
            }
        }
        Action::SwitchVersion { at, to } => {
            if !chat.busy {
                *chat = chat.switched(at, to);
                chat.save_epoch += 1;
            }
        }
        Action::SetInstructions(instructions) => {
            chat.instructions = instructions.map(|i| i.trim().to_owned()).filter(|i| !i.is_empty());
            chat.save_if_idle();
        }
        Action::SummaryStarted => {
            chat.summarizing = true;
            chat.busy = true;
        }
        Action::Summarized { id, now_ms, summary, history } => {
            let from_title = chat.title.clone();
            let mut fresh = ChatView::new(id, now_ms);
            fresh.model = chat.model.clone();
            fresh.servers = chat.servers.clone();
            fresh.google_search = chat.google_search;
            fresh.thinking = chat.thinking;
            fresh.instructions = chat.instructions.clone();
            fresh.title = from_title.clone();
            fresh.history = history;
            fresh.busy = true;
            fresh.entries = vec![Rc::new(Entry::Summary { text: summary, from_title })];
            next.chat = fresh;
            next.view = View::Chat;
        }
        Action::ToolsSent(sent) => chat.tools_sent = Some(sent),
        Action::Notice(text) => {
            chat.end_streaming(false);
            chat.entries.push(Rc::new(Entry::Notice { text, sign_in: None }));
        }
        Action::SignInNotice { text, server_id, server_name } => {
            chat.end_streaming(false);
            let step = SignInStep::Offered { problem: None, origin: None };
            let sign_in = Some(NoticeSignIn { server_id, server_name, step });
            chat.entries.push(Rc::new(Entry::Notice { text, sign_in }));
        }
        Action::NoticeSignIn { server_id, step } => chat.notice_sign_in(&server_id, step),
        Action::Failed(error) => {
            chat.end_streaming(false);
            chat.entries.push(Rc::new(Entry::Error(error)));
        }
        Action::TurnOver { history, now_ms } => {
            chat.end_streaming(false);
            chat.busy = false;
            chat.summarizing = false;
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
            chat.record_call(&call_id, now_ms);
        }
        Action::ToolDenied { call_id } => {
            if let Some(card) = chat.tool_mut(&call_id) {
                card.status = ToolStatus::Denied;
            }
            let now_ms = chat.latest_ms();
            chat.record_call(&call_id, now_ms);
        }
        Action::Activity(entry) => {
            chat.record(entry);
            // An app's or the person's call between turns is kept even if nothing follows.
            chat.save_if_idle();
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
            let now_ms = chat.latest_ms();
            chat.record_call(&call_id, now_ms);
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
        Action::OpenChatDeleted { id, now_ms } => next.chat = ChatView::new(id, now_ms),
        Action::ChatOpened(saved) => {
            next.chat = ChatView::from_saved(*saved);
            next.view = View::Chat;
        }
        Action::ChatsListed(saved) => next.saved = Rc::new(saved),
        Action::ChatStored { chat, merged } => {
            if chat.id == next.chat.id {
                next.chat.take_stored(*chat, merged);
            }
        }
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
pub(crate) mod tests {
    use super::*;

    fn status(uptime_ms: u64) -> WorkerStatus {
        WorkerStatus {
            extension_version: "0.1.0".into(),
            uptime_ms,
            configured_servers: 1,
            vault: Default::default(),
        }
    }

    fn run_from(state: State, actions: Vec<Action>) -> State {
        actions.into_iter().fold(state, |s, a| reduce(&s, a))
    }

    fn run(actions: Vec<Action>) -> State {
        run_from(State::default(), actions)
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
    fn the_activity_keeps_each_finished_call_and_what_a_message_carried_and_is_saved() {
        use gemipanel_core::chats::activity::{Asker, Outcome};
        use gemipanel_core::page::context::ContextKind;
        let card = ToolCard::asked("call-1", "s1", "Everything", "echo", "{}".into(), None, false);
        let denied = ToolCard::asked("call-2", "s1", "Everything", "add", "{}".into(), None, false);
        let page = ContextLabel {
            kind: ContextKind::Page,
            title: "Kyoto".into(),
            url: "https://kyoto.example/".into(),
            server_id: None,
        };
        let state = run(vec![
            sent("echo"),
            Action::UserContext(vec![page.clone()]),
            Action::ToolAsked(card),
            Action::ToolStarted { call_id: "call-1".into(), now_ms: 100 },
        ]);
        // A call still running is not in the record yet.
        assert_eq!(state.chat.activity.len(), 1);
        let state = run_from(
            state.clone(),
            vec![
                Action::ToolFinished {
                    call_id: "call-1".into(),
                    result: "Echo: hi".into(),
                    is_error: false,
                    now_ms: 350,
                },
                Action::ToolAsked(denied),
                Action::ToolDenied { call_id: "call-2".into() },
            ],
        );
        let kinds: Vec<_> = state
            .chat
            .activity
            .iter()
            .map(|a| match a {
                Activity::Sent(sent) => format!("sent {}", sent.sent[0].title),
                Activity::Tool(call) => format!(
                    "{} {:?} {:?} {:?}",
                    call.tool, call.asker, call.outcome, call.result_bytes
                ),
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "sent Kyoto".to_owned(),
                format!("echo {:?} {:?} Some(8)", Asker::Model, Outcome::Done),
                format!("add {:?} {:?} None", Asker::Model, Outcome::Denied),
            ]
        );
        // Kept with the chat, and read back.
        let saved = state.chat.to_saved();
        assert_eq!(saved.activity.len(), 3);
        let reopened = reduce(&State::default(), Action::ChatOpened(Box::new(saved)));
        assert_eq!(reopened.chat.activity, state.chat.activity);
        // A new version of the message does not take its record away.
        let branched = reduce(&reopened, Action::Branch { at: 0 });
        assert_eq!(branched.chat.activity.len(), 3);
        // A call between turns (the person's, an app's) is saved at once.
        let mut by_person = Activity::of_card(
            &ToolCard::asked("c3", "s1", "Everything", "echo", "{}".into(), None, true),
            400,
        );
        assert!(by_person.is_none(), "a card still waiting is no record");
        let mut card = ToolCard::asked("c3", "s1", "Everything", "echo", "{}".into(), None, true);
        card.status = ToolStatus::Done;
        by_person = Activity::of_card(&card, 400);
        let idle = reduce(&reopened, Action::Activity(by_person.unwrap()));
        assert_eq!(idle.chat.activity.len(), 4);
        assert_eq!(idle.chat.save_epoch, reopened.chat.save_epoch + 1);
        let shown = reduce(&branched, Action::ShowActivity(true));
        assert_eq!(shown.view, View::Activity);
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
    fn an_attached_resource_is_kept_once_and_a_change_of_prompts_is_counted() {
        use gemipanel_core::mentions::attach;
        let read = serde_json::from_value(serde_json::json!({"contents": [
            {"uri": "test://a", "mimeType": "text/plain", "text": "A"}
        ]}))
        .unwrap();
        let id = gemipanel_core::settings::ServerId::parse("srv_s").unwrap();
        let part = Rc::new(attach(&id, "S", "a", "test://a", &read).part);
        let state = run(vec![Action::Attach(part.clone()), Action::Attach(part.clone())]);
        assert_eq!(state.attachments, vec![part]);
        let changed = run(vec![Action::PromptsChanged, Action::PromptsChanged]);
        assert_eq!(changed.prompts_epoch, 2);
    }

    #[test]
    fn a_sent_resource_that_changed_is_marked_until_it_is_attached_again() {
        use gemipanel_core::mentions::attach;
        let id = gemipanel_core::settings::ServerId::parse("srv_s").unwrap();
        let read = |text: &str| {
            serde_json::from_value(serde_json::json!({"contents": [
                {"uri": "test://a", "mimeType": "text/plain", "text": text}
            ]}))
            .unwrap()
        };
        let old = Rc::new(attach(&id, "S", "a", "test://a", &read("old")).part);
        let resource = FollowedResource { server_id: id.clone(), uri: "test://a".into() };
        // Attached but not sent: the chat does not follow it yet.
        let attached = run(vec![Action::Attach(old.clone())]);
        let early = reduce(&attached, Action::ResourceUpdated(resource.clone()));
        assert!(early.changed_resources().is_empty());
        let after_send = reduce(&attached, sent("Read it"));
        let after_send = reduce(&after_send, Action::UserContext(vec![old.label.clone()]));
        assert_eq!(after_send.followed_resources(), std::slice::from_ref(&resource));
        let other = FollowedResource { server_id: id.clone(), uri: "test://b".into() };
        let updates =
            vec![Action::ResourceUpdated(other), Action::ResourceUpdated(resource.clone())];
        let marked = run_from(after_send, updates);
        assert_eq!(marked.changed_resources(), std::slice::from_ref(&resource));
        // Refreshed: the fresh read is the chip (replacing one of the same resource), unmarked.
        let with_old_chip = reduce(&marked, Action::Attach(old));
        let fresh = Rc::new(attach(&id, "S", "a", "test://a", &read("new")).part);
        let refreshed = reduce(&with_old_chip, Action::Attach(fresh.clone()));
        assert_eq!(refreshed.attachments, vec![fresh]);
        assert!(refreshed.changed_resources().is_empty());
        // Another chat has no marks of this one.
        let marked_again = reduce(&refreshed, Action::ResourceUpdated(resource));
        assert_eq!(marked_again.changed_resources().len(), 1);
        let new_chat = reduce(&marked_again, Action::NewChat { id: "other".into(), now_ms: 1 });
        assert!(new_chat.changed_resources().is_empty());
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

    fn usage(total: u64) -> TurnUsage {
        TurnUsage { prompt: total - 1, output: 1, total, requests: 1, ..TurnUsage::default() }
    }

    #[test]
    fn a_turns_usage_goes_on_its_last_reply_and_the_context_is_kept() {
        let card = ToolCard::asked("call-1", "s1", "S", "t", "{}".into(), None, true);
        let state = run(vec![
            sent("a"),
            Action::TextDelta("first".into()),
            Action::ModelTurnEnded { incomplete: false },
            Action::TurnOver { history: Rc::default(), now_ms: 2 },
            sent("b"),
            Action::TextDelta("Let me look.".into()),
            Action::ModelTurnEnded { incomplete: false },
            Action::ToolAsked(card),
            Action::Usage { turn: usage(10), context_tokens: 10 },
            Action::TextDelta("Found it.".into()),
            Action::Usage { turn: usage(25), context_tokens: 20 },
        ]);
        let usages: Vec<Option<u64>> = state
            .chat
            .entries
            .iter()
            .filter_map(|e| match &**e {
                Entry::Model(reply) => Some(reply.usage.map(|u| u.total)),
                _ => None,
            })
            .collect();
        assert_eq!(usages, [None, Some(10), Some(25)], "never on an earlier turn's reply");
        assert_eq!(state.chat.context_tokens, 20);
        let saved = serde_json::to_string(&state.chat.to_saved()).unwrap();
        let back: SavedChat = serde_json::from_str(&saved).unwrap();
        assert_eq!(ChatView::from_saved(back).context_tokens, 20);
    }

    #[test]
    fn the_context_meter_needs_the_models_window() {
        use gemipanel_core::gemini::Stage;
        let mut state = run(vec![Action::Usage { turn: usage(5), context_tokens: 950_000 }]);
        assert_eq!(state.context_meter(), None, "no list, no window");
        let model = state.model();
        state = reduce(
            &state,
            Action::ModelsLoaded(vec![ModelInfo {
                id: model,
                display_name: "x".into(),
                stage: Stage::Stable,
                input_token_limit: Some(1_000_000),
                thinking: None,
            }]),
        );
        assert!(state.context_meter().unwrap().is_nearly_full());
    }

    #[test]
    fn continuing_grows_the_cut_reply_in_place() {
        let state = run(vec![
            sent("story"),
            Action::TextDelta("Once upon".into()),
            Action::ModelTurnEnded { incomplete: false },
            Action::Finished { code: "MAX_TOKENS".into(), text: "cut".into() },
            Action::TurnOver { history: Rc::default(), now_ms: 2 },
            Action::Continued,
            Action::TextDelta(" a time.".into()),
        ]);
        let kinds: Vec<_> = state.chat.entries.iter().map(|e| e.kind()).collect();
        assert_eq!(kinds, ["user", "model"], "the Continue offer went with its use");
        let Entry::Model(reply) = &*state.chat.entries[1] else { panic!() };
        assert_eq!(reply.doc.text(), "Once upon a time.");
        assert!(state.chat.busy && reply.streaming);
    }

    #[test]
    fn a_summary_starts_a_new_chat_with_the_same_choices() {
        let seed = Turn::new(gemipanel_core::gemini::Content::user_text("summary"), None);
        let state = run(vec![
            sent("Plan a trip"),
            Action::SetGoogleSearch(true),
            Action::SetThinking(ThinkingChoice::High),
            Action::TextDelta("Day 1".into()),
            Action::TurnOver { history: Rc::default(), now_ms: 2 },
            Action::SummaryStarted,
            Action::TextDelta("- trip".into()),
        ]);
        assert!(state.chat.summarizing && state.chat.busy);
        assert_eq!(state.chat.entries.len(), 2, "the summary is not a reply of this chat");
        let old_id = state.chat.id.clone();
        let next = reduce(
            &state,
            Action::Summarized {
                id: "new".into(),
                now_ms: 3,
                summary: "- trip".into(),
                history: Rc::new(vec![seed.clone()]),
            },
        );
        assert_ne!(next.chat.id, old_id);
        assert!(next.chat.google_search);
        assert_eq!(next.chat.thinking, ThinkingChoice::High);
        assert_eq!(next.chat.history.as_slice(), [seed]);
        assert_eq!(
            *next.chat.entries[0],
            Entry::Summary { text: "- trip".into(), from_title: "Plan a trip".into() }
        );
        let done =
            reduce(&next, Action::TurnOver { history: next.chat.history.clone(), now_ms: 4 });
        assert!(!done.chat.busy && !done.chat.summarizing);
        assert_eq!(done.chat.save_epoch, 1, "the new chat is saved");
    }

    #[test]
    fn chats_saved_before_the_countdown_still_open() {
        let old = serde_json::json!({
            "id": "c", "title": "t", "created_ms": 0, "updated_ms": 0, "history": [],
            "entries": [
                {"user": {"text": "hi"}},
                {"retrying": {"seconds": 20, "message": "quota"}},
                {"model": {"doc": "hello", "incomplete": false}}
            ]
        });
        let saved: SavedChat = serde_json::from_value(old).unwrap();
        let chat = ChatView::from_saved(saved);
        assert_eq!(
            *chat.entries[1],
            Entry::Retrying { seconds: 20, message: "quota".into(), until_ms: 0, retry: 0, max: 0 }
        );
        assert_eq!(chat.context_tokens, 0);
    }

    #[test]
    fn a_replys_sources_are_kept_with_it_and_saved() {
        let sources: Sources = serde_json::from_value(serde_json::json!({
            "queries": [{"text": "euro 2024", "href": "https://www.google.com/search?q=euro+2024"}],
            "sources": [{"title": "uefa.com", "href": "https://www.uefa.com/", "supports": ["Spain won."]}]
        }))
        .unwrap();
        let state = run(vec![
            sent("Who won?"),
            Action::TextDelta("Spain won.".into()),
            Action::Sources(sources.clone()),
            Action::ModelTurnEnded { incomplete: false },
            Action::TurnOver { history: Rc::default(), now_ms: 2 },
        ]);
        let Entry::Model(reply) = &*state.chat.entries[1] else { panic!() };
        assert_eq!(reply.sources.as_ref(), Some(&sources));
        let saved = serde_json::to_string(&state.chat.to_saved()).unwrap();
        let back = ChatView::from_saved(serde_json::from_str(&saved).unwrap());
        assert_eq!(back.entries, state.chat.entries);
    }

    /// One exchange: the message, the reply, and the history the driver would hand over.
    pub(crate) fn exchange(state: &State, question: &str, answer: &str) -> State {
        use gemipanel_core::gemini::Content;
        let mut history = (*state.chat.history).clone();
        history.push(Turn::new(Content::user_text(question), None));
        let reply = Content { role: Some("model".into()), parts: vec![Part::text(answer)] };
        history.push(Turn::new(reply, Some("gemini-3.8-flash".into())));
        [
            sent(question),
            Action::TextDelta(answer.into()),
            Action::ModelTurnEnded { incomplete: false },
            Action::TurnOver { history: Rc::new(history), now_ms: 2 },
        ]
        .into_iter()
        .fold(state.clone(), |s, a| reduce(&s, a))
    }

    fn shown(state: &State) -> Vec<String> {
        state
            .chat
            .entries
            .iter()
            .map(|e| match &**e {
                Entry::User { text, .. } => format!("> {text}"),
                Entry::Model(reply) => reply.doc.text(),
                other => other.kind().to_owned(),
            })
            .collect()
    }

    fn history_texts(state: &State) -> Vec<String> {
        state
            .chat
            .history
            .iter()
            .map(|t| t.parts.iter().filter_map(|p| p.text.clone()).collect())
            .collect()
    }

    #[test]
    fn an_edit_starts_a_version_and_the_replaced_one_comes_back_as_it_was() {
        let mut state = exchange(&State::default(), "q1", "a1");
        let card = ToolCard::asked("call-7", "s1", "S", "t", "{}".into(), None, true);
        state = reduce(&state, Action::ToolAsked(card));
        state = exchange(&state, "q2", "a2");
        state = exchange(&state, "q3", "a3");
        let before = (shown(&state), history_texts(&state));
        let info = state.chat.message_info();
        assert_eq!(info.len(), 3);
        assert!(info.iter().all(|m| m.editable && m.versions.is_none()));

        // Edit the second message: the driver gets the history before it and what it sent.
        let point = state.chat.branch_point(1).unwrap();
        assert_eq!(point.text, "q2");
        assert_eq!(point.parts, vec![Part::text("q2")]);
        assert_eq!(point.history.len(), 2);
        state = reduce(&state, Action::Branch { at: 1 });
        assert_eq!(shown(&state), ["> q1", "a1", "tool"]);
        assert_eq!(history_texts(&state), ["q1", "a1"]);
        state = exchange(&state, "q2 edited", "b2");
        assert_eq!(state.chat.message_info()[1].versions, Some((1, 2)));
        assert_eq!(state.chat.call_ids(), ["call-7"], "the kept version's calls are counted");

        // Switch back: exactly as it was, the third message included; nothing is re-sent.
        let back = reduce(&state, Action::SwitchVersion { at: 1, to: 0 });
        assert_eq!((shown(&back), history_texts(&back)), before);
        assert_eq!(back.chat.message_info()[1].versions, Some((0, 2)));
        assert_eq!(back.chat.save_epoch, state.chat.save_epoch + 1, "the choice is saved");
        assert!(!back.chat.busy);
        // And forth.
        let forth = reduce(&back, Action::SwitchVersion { at: 1, to: 1 });
        assert_eq!(shown(&forth), ["> q1", "a1", "tool", "> q2 edited", "b2"]);

        // Saved and reopened, the versions are there.
        let json = serde_json::to_string(&back.chat.to_saved()).unwrap();
        let reopened = reduce(
            &State::default(),
            Action::ChatOpened(Box::new(serde_json::from_str(&json).unwrap())),
        );
        assert_eq!((shown(&reopened), history_texts(&reopened)), before);
        let again = reduce(&reopened, Action::SwitchVersion { at: 1, to: 1 });
        assert_eq!(shown(&again), ["> q1", "a1", "tool", "> q2 edited", "b2"]);
    }

    #[test]
    fn nothing_branches_or_switches_during_a_turn() {
        let mut state = exchange(&State::default(), "q1", "a1");
        state = reduce(&state, Action::Branch { at: 0 });
        state = exchange(&state, "q1 again", "b1");
        let busy = reduce(&state, sent("q2"));
        assert!(busy.chat.message_info().iter().all(|m| !m.editable));
        let switched = reduce(&busy, Action::SwitchVersion { at: 0, to: 0 });
        assert_eq!(shown(&switched), shown(&busy));
        let branched = reduce(&busy, Action::Branch { at: 0 });
        assert_eq!(shown(&branched), shown(&busy));
    }

    #[test]
    fn a_question_asked_during_a_call_is_not_kept_in_a_version() {
        let mut state = exchange(&State::default(), "q1", "a1");
        state = reduce(&state, sent("q2"));
        let card = ElicitationCard {
            call_id: "call-1".into(),
            server_name: None,
            elicitation_id: "e1".into(),
            prompt: gemipanel_core::messages::ElicitationPrompt::Url {
                message: "Sign in".into(),
                url: "https://example.com/".into(),
            },
            answer: Some("accept".into()),
        };
        state = reduce(&state, Action::Elicitation(card));
        let history = state.chat.history.clone();
        state = reduce(&state, Action::TurnOver { history, now_ms: 3 });
        state = reduce(&state, Action::Branch { at: 1 });
        assert_eq!(shown(&state), ["> q1", "a1"]);
        // An elicitation cannot be saved (it means nothing once its call ended): a version
        // holding one would make the chat unsaveable.
        let json = serde_json::to_string(&state.chat.to_saved());
        assert!(json.is_ok(), "{json:?}");
        assert!(!json.unwrap().contains("elicitation"));
    }

    #[test]
    fn chats_saved_before_versions_open_and_can_be_edited_when_their_marks_can_be_told() {
        let old = serde_json::json!({
            "id": "c", "title": "t", "created_ms": 0, "updated_ms": 0,
            "history": [
                {"role": "user", "parts": [{"text": "q1"}]},
                {"role": "model", "parts": [{"text": "a1"}]},
                {"role": "user", "parts": [{"text": "q2"}]},
                {"role": "model", "parts": [{"text": "a2"}]}
            ],
            "entries": [
                {"user": {"text": "q1"}}, {"model": {"doc": "a1"}},
                {"user": {"text": "q2"}}, {"model": {"doc": "a2"}}
            ]
        });
        let saved: SavedChat = serde_json::from_value(old.clone()).unwrap();
        assert!(saved.forks.is_empty() && saved.instructions.is_none());
        let state = reduce(&State::default(), Action::ChatOpened(Box::new(saved)));
        assert!(state.chat.message_info().iter().all(|m| m.editable));
        let point = state.chat.branch_point(1).unwrap();
        assert_eq!((point.text.as_str(), point.history.len()), ("q2", 2));

        // A message that joined an unanswered one: marks cannot be told, nothing is editable.
        let mut merged = old;
        merged["history"] = serde_json::json!([
            {"role": "user", "parts": [{"text": "q1"}, {"text": "q2"}]},
            {"role": "model", "parts": [{"text": "a2"}]}
        ]);
        merged["entries"] = serde_json::json!([
            {"user": {"text": "q1"}}, {"error": {"kind": "network", "message": "x"}},
            {"user": {"text": "q2"}}, {"model": {"doc": "a2"}}
        ]);
        let saved: SavedChat = serde_json::from_value(merged).unwrap();
        let state = reduce(&State::default(), Action::ChatOpened(Box::new(saved)));
        assert!(state.chat.message_info().iter().all(|m| !m.editable));
        assert_eq!(state.chat.branch_point(1), None);
    }

    #[test]
    fn a_chats_own_instructions_are_kept_trimmed_and_saved() {
        let state = exchange(&State::default(), "q1", "a1");
        let set = reduce(&state, Action::SetInstructions(Some("  Reply in French. ".into())));
        assert_eq!(set.chat.instructions.as_deref(), Some("Reply in French."));
        assert_eq!(set.chat.save_epoch, state.chat.save_epoch + 1);
        let saved = serde_json::to_value(set.chat.to_saved()).unwrap();
        assert_eq!(saved["instructions"], "Reply in French.");
        let cleared = reduce(&set, Action::SetInstructions(Some("   ".into())));
        assert_eq!(cleared.chat.instructions, None);
    }

    #[test]
    fn another_windows_save_is_shown_when_idle_and_waits_for_the_turns_end_otherwise() {
        let mine = exchange(&State::default(), "q1", "a1");
        let mut elsewhere = exchange(&mine, "q2", "a2").chat.to_saved();
        elsewhere.revision = 1;
        // Idle: shown at once.
        let idle =
            reduce(&mine, Action::ChatStored { chat: Box::new(elsewhere.clone()), merged: true });
        assert_eq!(idle.chat.entries.len(), 4);
        assert_eq!(idle.chat.revision, 1);
        // During a turn: not shown (the turn's save merges), and the revision stays.
        let busy = reduce(&mine, sent("q3"));
        let kept = reduce(&busy, Action::ChatStored { chat: Box::new(elsewhere), merged: true });
        assert_eq!(kept.chat.revision, 0);
        assert_eq!(shown(&kept), shown(&busy));
        // This panel's own save only moves the revision on.
        let mut own = mine.chat.to_saved();
        own.revision = 1;
        let saved = reduce(&mine, Action::ChatStored { chat: Box::new(own), merged: false });
        assert_eq!(saved.chat.revision, 1);
        assert_eq!(saved.chat.entries, mine.chat.entries);
    }

    #[test]
    fn a_sign_in_notice_follows_its_sign_in_and_is_saved_as_words_only() {
        let state = reduce(&State::default(), sent("q1"));
        let notice = Action::SignInNotice {
            text: "Greeter waits".into(),
            server_id: "srv_1".into(),
            server_name: "Greeter".into(),
        };
        let state = reduce(&state, notice);
        let other = Action::SignInNotice {
            text: "Other waits".into(),
            server_id: "srv_2".into(),
            server_name: "Other".into(),
        };
        let state = reduce(&state, other);
        let step = |state: &State, i: usize| match &*state.chat.entries[i] {
            Entry::Notice { sign_in: Some(offer), .. } => offer.step.clone(),
            other => panic!("not a sign-in notice: {other:?}"),
        };
        let offered = SignInStep::Offered { problem: None, origin: None };
        assert_eq!(step(&state, 1), offered);
        let busy = reduce(
            &state,
            Action::NoticeSignIn { server_id: "srv_1".into(), step: SignInStep::Busy },
        );
        assert_eq!(step(&busy, 1), SignInStep::Busy);
        // Only the notice of the server signed in to follows.
        assert_eq!(step(&busy, 2), offered);
        let done = reduce(
            &busy,
            Action::NoticeSignIn { server_id: "srv_1".into(), step: SignInStep::SignedIn },
        );
        assert_eq!(step(&done, 1), SignInStep::SignedIn);
        // Saved, the notice is its words: a reopened chat offers no stale sign-in.
        let saved = serde_json::to_value(done.chat.to_saved()).unwrap();
        assert_eq!(saved["entries"][1], serde_json::json!({"notice": {"text": "Greeter waits"}}));
        let back: SavedChat = serde_json::from_value(saved).unwrap();
        assert!(matches!(&back.entries[1], Entry::Notice { sign_in: None, .. }));
    }

    #[test]
    fn titles_are_the_first_line_shortened() {
        assert_eq!(title_from("\n  Hello  \nworld"), "Hello");
        let long = "x".repeat(100);
        assert_eq!(title_from(&long).chars().count(), TITLE_CHARS + 1);
    }
}
