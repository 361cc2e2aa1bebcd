//! Everything that changes the side panel's state.

use std::rc::Rc;

use gemipanel_core::apps::resource::AppResource;
use gemipanel_core::chats::activity::Activity;
use gemipanel_core::gemini::budget::ToolsSent;
use gemipanel_core::gemini::{Sources, ThinkingChoice, Turn, TurnUsage};
use gemipanel_core::mcp::CallToolResult;
use gemipanel_core::messages::WorkerStatus;
use gemipanel_core::page::context::ContextPart;
use gemipanel_core::page::tab::Tab;
use gemipanel_core::page::webmcp::PageTools;
use gemipanel_core::resource_updates::FollowedResource;
use gemipanel_core::settings::{ListedModels, Settings};

use crate::files::{PickedFile, UploadView};

use super::{
    AppCard, AppContextSent, ChatSummary, ContextLabel, ElicitationCard, ErrorView, Progress,
    SavedChat, SignInStep, ToolCard,
};

#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// The worker greeted a fresh connection (first open or after a restart).
    WorkerStarted,
    RefreshStatus,
    StatusLoaded(WorkerStatus),
    StatusFailed(String),
    SettingsLoaded(Rc<Settings>),
    /// Another page changed the settings (the worker's event): the status line, which counts
    /// the servers and says whether the key is locked, is fetched again.
    SettingsChanged(Rc<Settings>),
    SettingsFailed(String),
    ModelsLoaded(ListedModels),

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
    /// A saved chat was renamed (stored at `revision`): the open chat's next save keeps it.
    ChatRenamed {
        id: String,
        title: String,
        revision: u64,
    },
    /// The open chat as stored: by this panel's save (`merged` when another panel's save was
    /// kept with it) or by another window's panel.
    ChatStored {
        chat: Box<SavedChat>,
        merged: bool,
    },
}
