//! The side panel's state and its pure reducer.
//!
//! The transcript is a list of `Rc<Entry>`: a chunk of a streamed reply clones the list of
//! pointers and the last entry only, so a chunk costs the same early and late in a long chat.
//!
//! `reduce` hands each action to the part of the state it is about, one file each: the worker
//! and the chat's choices (`worker`), the page beside the chat and what goes with the next
//! message (`page`), the model's turn (`turn`), tool calls and their apps (`tools`), the list
//! of chats (`chats`). The open chat itself is `chat`; its versions are `versions`.

mod action;
mod chat;
mod chats;
mod page;
mod tools;
mod turn;
mod versions;
mod worker;

use crate::files::{PickedFile, UploadView};
use indexmap::IndexSet;
use std::rc::Rc;

use gemipanel_core::gemini::{automatic_model, ContextMeter, ModelInfo};
use gemipanel_core::messages::WorkerStatus;
use gemipanel_core::page::context::ContextPart;
use gemipanel_core::page::webmcp::PageTools;
use gemipanel_core::resource_updates::{followed, FollowedResource, Marks};
use gemipanel_core::settings::source::{BROWSER, PAGES};
use gemipanel_core::settings::Settings;
use yew::Reducible;

pub use crate::transcript::{
    AppCard, AppContextSent, BranchTail, ChatSummary, ContextLabel, ElicitationCard, Entry,
    ErrorKind, ErrorView, ModelReply, NoticeSignIn, Progress, SavedChat, SignInStep, ToolCard,
    ToolStatus,
};
pub use action::Action;
pub use chat::{ChatView, MessageInfo};
pub use page::PageView;

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

/// What the settings say of the Gemini API key, for the first thing a new chat suggests.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum KeyState {
    /// The settings have not been read (yet).
    Unknown,
    Missing,
    /// Kept, but sealed under a passphrase not entered in this browser session.
    Locked,
    Set,
}

#[derive(Debug, Clone, PartialEq)]
pub struct State {
    pub worker: WorkerView,
    /// Bumped whenever the worker's status should be fetched again (a (re)connect, a click, a
    /// settings change).
    pub status_epoch: u32,
    /// Bumped when the worker started anew or the person refreshed: the settings are read and
    /// the models listed again, and the worker is told again what the chat follows.
    pub worker_epoch: u32,
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

impl Default for State {
    fn default() -> Self {
        Self {
            worker: WorkerView::Connecting,
            status_epoch: 0,
            worker_epoch: 0,
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

    pub fn key_state(&self) -> KeyState {
        match &self.settings {
            None => KeyState::Unknown,
            Some(settings) if settings.gemini.api_key_locked => KeyState::Locked,
            Some(_) if self.has_api_key() => KeyState::Set,
            Some(_) => KeyState::Missing,
        }
    }

    pub fn has_api_key(&self) -> bool {
        self.settings
            .as_ref()
            .and_then(|s| s.gemini.api_key.as_ref())
            .is_some_and(|k| !k.is_empty())
    }
}

/// Each action goes to the part of the state it is about; the match names every action, so a
/// new one does not build until it has its place.
pub fn reduce(state: &State, action: Action) -> State {
    use Action as A;
    let mut next = state.clone();
    match action {
        a @ (A::WorkerStarted
        | A::RefreshStatus
        | A::StatusLoaded(_)
        | A::StatusFailed(_)
        | A::SettingsLoaded(_)
        | A::SettingsChanged(_)
        | A::SettingsFailed(_)
        | A::ModelsLoaded(_)) => worker::on_worker(&mut next, a),
        a @ (A::SetModel(_)
        | A::SetThinking(_)
        | A::ToggleServer(_)
        | A::SetGoogleSearch(_)
        | A::ShowHistory(_)
        | A::ShowTools(_)
        | A::ShowActivity(_)) => worker::on_choice(state, &mut next, a),
        a @ (A::TabSeen(_)
        | A::TabsPermission(_)
        | A::TabsAsked
        | A::SetPageChip(_)
        | A::PinTab(_)
        | A::PageToolsListed(_)
        | A::SelectionOffered(_)) => page::on_page(&mut next, a),
        a @ (A::AttachSelection
        | A::Attach(_)
        | A::Detach(_)
        | A::AttachFiles(..)
        | A::DetachFile(_)
        | A::Uploading(_)
        | A::PromptsChanged
        | A::ResourceUpdated(_)) => page::on_attachment(state, &mut next, a),
        a @ (A::UserSent { .. } | A::UserContext(_) | A::AppContextSent(_)) => {
            turn::on_sent(&mut next, a)
        }
        a @ (A::TextDelta(_)
        | A::ThoughtDelta(_)
        | A::ModelTurnEnded { .. }
        | A::Sources(_)
        | A::Usage { .. }
        | A::Retrying { .. }
        | A::Finished { .. }
        | A::Continued
        | A::ToolsSent(_)
        | A::TurnOver { .. }) => turn::on_stream(&mut next.chat, a),
        a @ (A::Notice(_) | A::SignInNotice { .. } | A::NoticeSignIn { .. } | A::Failed(_)) => {
            turn::on_notice(&mut next.chat, a)
        }
        a @ (A::Branch { .. }
        | A::SwitchVersion { .. }
        | A::SetInstructions(_)
        | A::SummaryStarted
        | A::Summarized { .. }) => turn::on_version(&mut next, a),
        a @ (A::ToolAsked(_)
        | A::ToolStarted { .. }
        | A::ToolProgress { .. }
        | A::ToolNeedsSignIn { .. }
        | A::ToolNeedsAccess { .. }
        | A::ToolSignInStarted { .. }
        | A::ToolFinished { .. }
        | A::ToolDenied { .. }
        | A::ToolCancelled { .. }
        | A::Activity(_)) => tools::on_tool(&mut next.chat, a),
        a @ (A::AppShown { .. }
        | A::AppLoaded { .. }
        | A::AppFailed { .. }
        | A::AppResult { .. }
        | A::OfferDraft(_)
        | A::Elicitation(_)
        | A::ElicitationAnswered { .. }) => tools::on_app(&mut next, a),
        a @ (A::NewChat { .. }
        | A::OpenChatDeleted { .. }
        | A::ChatOpened(_)
        | A::ChatsListed(_)
        | A::ChatRenamed { .. }
        | A::ChatStored { .. }) => chats::on_chats(&mut next, a),
    }
    next
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        Rc::new(reduce(&self, action))
    }
}

#[cfg(test)]
pub(crate) mod tests;
