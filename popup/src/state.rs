//! The popup's state and its pure reducer. Effects (requests to the worker, file reading) live
//! in `effects.rs` and report back with [`Action`]s.

use std::rc::Rc;

use gemipanel_core::gemini::ModelInfo;
use gemipanel_core::messages::{
    ConnectionOutcome, ServerStatus, ServerView, SettingsProblem, SignInOutcome, WorkerStatus,
};
use gemipanel_core::settings::{ImportPreview, ListedModels, ServerId, Settings};
use yew::Reducible;

use crate::form::{FormEdit, ServerForm};

#[derive(Debug, Clone, PartialEq, Default)]
pub enum WorkerView {
    #[default]
    Loading,
    Ready(WorkerStatus),
    Failed(String),
}

/// A request the person started: not yet, running, answered, or failed with a message.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Pending<T> {
    #[default]
    Idle,
    Running,
    Done(T),
    Failed(String),
}

impl<T> Pending<T> {
    pub fn is_running(&self) -> bool {
        matches!(self, Pending::Running)
    }
}

/// The Gemini card's inputs; filled from the settings until the person types.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GeminiForm {
    pub api_key: String,
    /// Empty: the automatic default.
    pub model: String,
    /// Instructions for every chat; empty: none.
    pub instructions: String,
    /// The models to choose from: the list kept from before, then the live one (or the
    /// last Check's); `None` before any.
    pub models: Option<Vec<ModelInfo>>,
    pub dirty: bool,
    /// `Done(())` shows "Saved".
    pub save: Pending<()>,
    pub check: Pending<Vec<ModelInfo>>,
}

impl GeminiForm {
    /// What Save sends: the form as typed, with `model` instead of the typed one when given.
    pub fn choices(&self, model: Option<String>) -> crate::effects::GeminiChoices {
        crate::effects::GeminiChoices {
            api_key: self.api_key.clone(),
            model: model.unwrap_or_else(|| self.model.clone()),
            instructions: self.instructions.clone(),
        }
    }

    /// Why the instructions cannot be saved, as core's rule says, while the person types.
    pub fn instructions_error(&self) -> Option<gemipanel_core::text::Text> {
        gemipanel_core::settings::validate_instructions(self.instructions.trim())
            .err()
            .map(|e| e.message)
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub enum ImportView {
    #[default]
    Idle,
    Reading,
    Preview(ImportPreview),
    Applying(ImportPreview),
    /// How many servers were added or updated.
    Applied(usize),
    Failed(String),
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct State {
    pub worker: WorkerView,
    /// Bumped to fetch the worker's status again.
    pub status_epoch: u32,
    pub settings: Option<Settings>,
    pub settings_error: Option<String>,
    /// The stored document could not be loaded; shown until the person chooses what to do.
    pub settings_problem: Option<SettingsProblem>,
    /// Carrying out that choice.
    pub recovery: Pending<()>,
    pub gemini: GeminiForm,
    pub servers: Vec<ServerView>,
    pub servers_error: Option<String>,
    /// Bumped to list the servers again.
    pub servers_epoch: u32,
    pub form: Option<ServerForm>,
    /// The server whose removal waits for confirmation.
    pub confirm_remove: Option<ServerId>,
    pub list_error: Option<String>,
    pub import: ImportView,
    pub include_secrets: bool,
    pub export_error: Option<String>,
    /// Servers whose URL query was left out of the last export (it may carry a key).
    pub export_shortened: Vec<String>,
    pub export_blanked: Vec<String>,
    /// The last Sign in clicked, and how it went.
    pub sign_in: Option<(ServerId, Pending<SignInOutcome>)>,
    /// The last "Allow to run" of a local server's command line, and how it went.
    pub allow_command: Option<(ServerId, Pending<()>)>,
    /// Whether local servers may run (the optional `nativeMessaging`), once known.
    pub local_permission: Option<bool>,
    /// The last documents told on the port, oldest first. The port tells each document the
    /// worker's edits write, in order, and an edit is answered with the document written;
    /// answers come on another channel, so a document told here before another is older than
    /// that one, whenever its answer arrives (the first `GetSettings`, an edit's).
    pub told: Vec<Settings>,
}

/// How many told documents are kept to order answers by: an answer is rarely more than one
/// change late.
const TOLD_KEPT: usize = 4;

#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    RefreshStatus,
    StatusLoaded(WorkerStatus),
    StatusFailed(String),

    /// The document the popup asked for as it opened (`GetSettings`).
    SettingsLoaded(Settings),
    /// The document after a change, told on the port (`Event::SettingsChanged`).
    SettingsChanged(Settings),
    SettingsFailed(String),
    SettingsProblem(SettingsProblem),
    Recovering,
    /// The problem is resolved: the document now in use.
    Recovered(Settings),
    /// The kept document was handed to the browser as a download.
    RecoveryExported,
    RecoveryFailed(String),
    /// Access to a server's origin was granted: connect again.
    PermissionGranted,
    /// Whether `nativeMessaging` is granted, as read or as the person just answered.
    LocalPermission(bool),

    SigningIn(ServerId),
    SignInDone(ServerId, Pending<SignInOutcome>),

    /// The person allows a local server's command line to run.
    AllowingCommand(ServerId),
    /// Recorded: the worker's document after it.
    CommandAllowed(Settings),
    /// Refused (the command changed meanwhile) or not sent; also after a save whose
    /// confirmation failed.
    AllowCommandFailed(ServerId, String),

    ApiKeyInput(String),
    ModelInput(String),
    InstructionsInput(String),
    GeminiSaving,
    /// Both edits applied: the worker's document after them.
    GeminiSaved(Settings),
    GeminiSaveFailed(String),
    CheckStarted,
    /// The list of a Check.
    ModelsLoaded(Vec<ModelInfo>),
    /// The list kept from before, or listed again, for the document's key and address.
    KnownModels(ListedModels),
    ModelsFailed(String),

    RefreshServers,
    ServersLoaded(Vec<ServerView>),
    ServersFailed(String),
    ServerStatus {
        id: ServerId,
        status: ServerStatus,
    },

    AddServer,
    EditServer(ServerId),
    FormEdit(FormEdit),
    CloseForm,
    TestStarted,
    TestFinished(ConnectionOutcome),
    TestFailed(String),
    FormSaving,
    /// Save refused; the field to show it next to, if any.
    FormSaveFailed(Option<gemipanel_core::settings::Field>, String),
    /// Saved: the worker's document after the edit.
    FormSaved(Settings),

    AskRemove(ServerId),
    CancelRemove,
    Removed(Settings),
    RemoveFailed(String),

    ImportReading,
    ImportPreviewed(Box<ImportPreview>),
    ImportFailed(String),
    ImportCancel,
    ImportApplying,
    ImportApplied(Settings),

    IncludeSecrets(bool),
    /// Saved; what was left out: shortened URLs and blanked arguments, by server.
    Exported {
        shortened: Vec<String>,
        blanked: Vec<String>,
    },
    ExportFailed(String),
}

/// Each action goes to the part of the popup it is about; the match names every action, so a
/// new one does not build until it has its place.
pub fn reduce(state: &State, action: Action) -> State {
    use Action as A;
    let mut next = state.clone();
    match action {
        a @ (A::RefreshStatus
        | A::StatusLoaded(_)
        | A::StatusFailed(_)
        | A::SettingsLoaded(_)
        | A::SettingsChanged(_)
        | A::SettingsFailed(_)
        | A::SettingsProblem(_)
        | A::Recovering
        | A::Recovered(_)
        | A::RecoveryExported
        | A::RecoveryFailed(_)) => on_worker(&mut next, a),
        a @ (A::PermissionGranted
        | A::LocalPermission(_)
        | A::SigningIn(_)
        | A::SignInDone(..)
        | A::AllowingCommand(_)
        | A::CommandAllowed(_)
        | A::AllowCommandFailed(..)) => on_access(&mut next, a),
        a @ (A::ApiKeyInput(_)
        | A::ModelInput(_)
        | A::InstructionsInput(_)
        | A::GeminiSaving
        | A::GeminiSaved(_)
        | A::GeminiSaveFailed(_)
        | A::CheckStarted
        | A::ModelsLoaded(_)
        | A::KnownModels(_)
        | A::ModelsFailed(_)) => on_gemini(state, &mut next, a),
        a @ (A::RefreshServers
        | A::ServersLoaded(_)
        | A::ServersFailed(_)
        | A::ServerStatus { .. }
        | A::AskRemove(_)
        | A::CancelRemove
        | A::Removed(_)
        | A::RemoveFailed(_)) => on_server_list(&mut next, a),
        a @ (A::AddServer
        | A::EditServer(_)
        | A::FormEdit(_)
        | A::CloseForm
        | A::TestStarted
        | A::TestFinished(_)
        | A::TestFailed(_)
        | A::FormSaving
        | A::FormSaveFailed(..)
        | A::FormSaved(_)) => on_form(&mut next, a),
        a @ (A::ImportReading
        | A::ImportPreviewed(_)
        | A::ImportFailed(_)
        | A::ImportCancel
        | A::ImportApplying
        | A::ImportApplied(_)
        | A::IncludeSecrets(_)
        | A::Exported { .. }
        | A::ExportFailed(_)) => on_import_export(state, &mut next, a),
    }
    next
}

/// The worker's status, the settings document and its recovery.
fn on_worker(next: &mut State, action: Action) {
    match action {
        Action::RefreshStatus => {
            next.status_epoch += 1;
            next.worker = WorkerView::Loading;
        }
        Action::StatusLoaded(status) => next.worker = WorkerView::Ready(status),
        Action::StatusFailed(message) => next.worker = WorkerView::Failed(message),
        Action::SettingsLoaded(settings) if next.told.is_empty() => next.load_settings(settings),
        Action::SettingsLoaded(_) => {} // read before the change already shown
        Action::SettingsChanged(settings) => {
            if next.told.len() == TOLD_KEPT {
                next.told.remove(0);
            }
            next.told.push(settings.clone());
            next.load_settings(settings);
        }
        Action::SettingsFailed(message) => next.settings_error = Some(message),
        Action::SettingsProblem(problem) => {
            next.settings_problem = Some(problem);
            next.recovery = Pending::Idle;
        }
        Action::Recovering => next.recovery = Pending::Running,
        Action::Recovered(settings) => {
            next.settings_problem = None;
            next.recovery = Pending::Idle;
            next.load_answer(settings);
            next.servers_epoch += 1;
        }
        Action::RecoveryExported => next.recovery = Pending::Done(()),
        Action::RecoveryFailed(message) => next.recovery = Pending::Failed(message),
        _ => {} // another part's action (`reduce` sends none here)
    }
}

/// What servers may do: the optional permissions, sign-ins and allowed command lines.
fn on_access(next: &mut State, action: Action) {
    match action {
        Action::PermissionGranted => next.servers_epoch += 1,
        Action::LocalPermission(granted) => next.local_permission = Some(granted),
        Action::SigningIn(id) => next.sign_in = Some((id, Pending::Running)),
        Action::SignInDone(id, outcome) => {
            next.sign_in = Some((id, outcome));
            next.servers_epoch += 1;
        }
        Action::AllowingCommand(id) => next.allow_command = Some((id, Pending::Running)),
        Action::CommandAllowed(settings) => {
            next.allow_command = None;
            next.load_answer(settings);
            // The server starts now: list it again for its new status.
            next.servers_epoch += 1;
        }
        Action::AllowCommandFailed(id, message) => {
            next.allow_command = Some((id, Pending::Failed(message)))
        }
        _ => {} // another part's action (`reduce` sends none here)
    }
}

/// The Gemini card: the key, the model, the instructions, their check and save.
fn on_gemini(state: &State, next: &mut State, action: Action) {
    match action {
        Action::ApiKeyInput(key) => {
            next.gemini.api_key = key;
            next.gemini.dirty = true;
            next.gemini.save = Pending::Idle;
            // The last check's verdict was about another key.
            next.gemini.check = Pending::Idle;
        }
        Action::ModelInput(model) => {
            next.gemini.model = model;
            next.gemini.dirty = true;
            next.gemini.save = Pending::Idle;
        }
        Action::InstructionsInput(instructions) => {
            next.gemini.instructions = instructions;
            next.gemini.dirty = true;
            next.gemini.save = Pending::Idle;
        }
        Action::GeminiSaving => next.gemini.save = Pending::Running,
        Action::GeminiSaved(settings) => {
            next.gemini.dirty = false;
            next.gemini.save = Pending::Done(());
            next.load_answer(settings);
        }
        Action::GeminiSaveFailed(message) => next.gemini.save = Pending::Failed(message),
        Action::CheckStarted => next.gemini.check = Pending::Running,
        // A check's answer counts only while it is awaited: once the key was typed again, it
        // was about another key.
        Action::ModelsLoaded(models) if state.gemini.check.is_running() => {
            next.gemini.models = Some(models.clone());
            next.gemini.check = Pending::Done(models);
        }
        Action::ModelsLoaded(_) => {}
        // Listed for the key and address shown, not for an older document's (another window
        // changed it meanwhile).
        Action::KnownModels(listed)
            if state.settings.as_ref().is_some_and(|s| listed.is_for(&s.gemini)) =>
        {
            next.gemini.models = Some(listed.models)
        }
        Action::KnownModels(_) => {}
        Action::ModelsFailed(message) if state.gemini.check.is_running() => {
            next.gemini.check = Pending::Failed(message)
        }
        Action::ModelsFailed(_) => {}
        _ => {} // another part's action (`reduce` sends none here)
    }
}

/// The list of servers, their status and their removal.
fn on_server_list(next: &mut State, action: Action) {
    match action {
        Action::RefreshServers => next.servers_epoch += 1,
        Action::ServersLoaded(servers) => {
            next.servers = servers;
            next.servers_error = None;
        }
        Action::ServersFailed(message) => next.servers_error = Some(message),
        Action::ServerStatus { id, status } => {
            if let Some(view) = next.servers.iter_mut().find(|s| s.id == id) {
                view.status = status;
            }
        }
        Action::AskRemove(id) => {
            next.confirm_remove = Some(id);
            next.list_error = None;
        }
        Action::CancelRemove => next.confirm_remove = None,
        Action::Removed(settings) => {
            next.confirm_remove = None;
            next.list_error = None;
            next.load_answer(settings);
            next.servers_epoch += 1;
        }
        Action::RemoveFailed(message) => {
            next.confirm_remove = None;
            next.list_error = Some(message);
        }
        _ => {} // another part's action (`reduce` sends none here)
    }
}

/// The server form: open, edit, test, save.
fn on_form(next: &mut State, action: Action) {
    match action {
        Action::AddServer => {
            next.form = Some(ServerForm::new_server());
            next.confirm_remove = None;
        }
        Action::EditServer(id) => {
            let server = next.settings.as_ref().and_then(|s| s.server(&id));
            next.form = server.map(ServerForm::edit);
            next.confirm_remove = None;
        }
        Action::FormEdit(edit) => {
            if let Some(form) = &mut next.form {
                form.change(edit);
            }
        }
        Action::CloseForm => next.form = None,
        Action::TestStarted => next.with_form(|f| f.test = Pending::Running),
        Action::TestFinished(outcome) => next.with_form(|f| {
            f.take_test_outcome(&outcome);
            f.test = Pending::Done(outcome)
        }),
        Action::TestFailed(message) => next.with_form(|f| f.test = Pending::Failed(message)),
        Action::FormSaving => next.with_form(|f| {
            f.saving = true;
            f.save_error = None;
        }),
        Action::FormSaveFailed(field, message) => next.with_form(|f| {
            f.saving = false;
            f.save_error = Some((field, message));
        }),
        Action::FormSaved(settings) => {
            next.form = None;
            next.load_answer(settings);
            next.servers_epoch += 1;
        }
        _ => {} // another part's action (`reduce` sends none here)
    }
}

/// Importing and exporting the settings.
fn on_import_export(state: &State, next: &mut State, action: Action) {
    match action {
        Action::ImportReading => next.import = ImportView::Reading,
        Action::ImportPreviewed(preview) => next.import = ImportView::Preview(*preview),
        Action::ImportFailed(message) => next.import = ImportView::Failed(message),
        Action::ImportCancel => next.import = ImportView::Idle,
        Action::ImportApplying => {
            if let ImportView::Preview(preview) = &state.import {
                next.import = ImportView::Applying(preview.clone());
            }
        }
        Action::ImportApplied(settings) => {
            let count = match &state.import {
                ImportView::Applying(p) | ImportView::Preview(p) => p.added.len() + p.updated.len(),
                _ => 0,
            };
            next.import = ImportView::Applied(count);
            next.load_answer(settings);
            next.servers_epoch += 1;
        }
        Action::IncludeSecrets(include) => next.include_secrets = include,
        Action::Exported { shortened, blanked } => {
            next.export_error = None;
            next.export_shortened = shortened;
            next.export_blanked = blanked;
        }
        Action::ExportFailed(message) => next.export_error = Some(message),
        _ => {} // another part's action (`reduce` sends none here)
    }
}

impl State {
    /// An edit's answer: the document right after that edit, unless the port told it and
    /// then a later change, which stays shown (form fields included).
    fn load_answer(&mut self, settings: Settings) {
        let told_at = self.told.iter().rposition(|told| *told == settings);
        let later = match told_at {
            Some(at) if at + 1 < self.told.len() => self.told.last().cloned(),
            _ => None,
        };
        self.load_settings(later.unwrap_or(settings));
    }

    fn load_settings(&mut self, settings: Settings) {
        let gemini = &mut self.gemini;
        // A document arriving while the person types must not overwrite what they typed.
        if !gemini.dirty {
            gemini.api_key = settings
                .gemini
                .api_key
                .as_ref()
                .map(|k| k.expose().to_string())
                .unwrap_or_default();
            gemini.model = settings.gemini.chosen_model().unwrap_or_default().to_owned();
            gemini.instructions =
                settings.gemini.chosen_instructions().unwrap_or_default().to_owned();
        }
        // Another page removed the server being edited or confirmed.
        if let Some(id) = self.form.as_ref().and_then(|f| f.editing.as_ref()) {
            if settings.server(id).is_none() {
                self.form = None;
            }
        }
        if self.confirm_remove.as_ref().is_some_and(|id| settings.server(id).is_none()) {
            self.confirm_remove = None;
        }
        // The list shown was another key's or address's.
        if self.settings.as_ref().is_some_and(|s| !s.gemini.same_model_source(&settings.gemini)) {
            self.gemini.models = None;
        }
        // The first settings come with the status and servers the popup asked for at open.
        if self.settings.as_ref().is_some_and(|known| known.servers != settings.servers) {
            self.servers_epoch += 1;
            // The status line counts the servers.
            self.status_epoch += 1;
        }
        self.settings = Some(settings);
        self.settings_error = None;
    }

    fn with_form(&mut self, change: impl FnOnce(&mut ServerForm)) {
        if let Some(form) = &mut self.form {
            change(form);
        }
    }
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
    use gemipanel_core::settings::{
        self, ImportSource, Secret, ServerDraft, SettingsEdit, Skipped,
    };

    fn run(actions: Vec<Action>) -> State {
        actions.into_iter().fold(State::default(), |s, a| reduce(&s, a))
    }

    fn with_server(name: &str) -> (Settings, ServerId) {
        let id = ServerId::generate([7; 16]);
        let edit = SettingsEdit::AddServer {
            id: id.clone(),
            server: ServerDraft::new(name, "https://mcp.example.com/mcp"),
        };
        (settings::apply(&Settings::default(), &edit).unwrap(), id)
    }

    fn view(id: &ServerId) -> ServerView {
        ServerView {
            id: id.clone(),
            name: "A".into(),
            url: "https://mcp.example.com/mcp".into(),
            command_line: None,
            status: ServerStatus::Idle,
            tool_count: None,
            signed_in: None,
        }
    }

    #[test]
    fn the_first_settings_ask_nothing_again_and_a_change_of_servers_does() {
        // At open the popup asks for the status, the servers and the settings at once; the
        // settings' arrival used to count as a change and ask for the other two again.
        let (settings, _) = with_server("A");
        let opened = run(vec![Action::SettingsLoaded(settings.clone())]);
        assert_eq!((opened.status_epoch, opened.servers_epoch), (0, 0));
        let same = reduce(&opened, Action::SettingsLoaded(settings));
        assert_eq!((same.status_epoch, same.servers_epoch), (0, 0));
        let (other, _) = with_server("B");
        let changed = reduce(&same, Action::SettingsLoaded(other));
        assert_eq!((changed.status_epoch, changed.servers_epoch), (1, 1), "the count changed");
    }

    #[test]
    fn a_change_from_another_page_is_not_undone_by_the_older_first_answer() {
        // The popup asks for the settings as it opens and follows changes on its port; another
        // window's save can be told on the port before the answer, read earlier, arrives.
        let (before, _) = with_server("A");
        let (after, _) = with_server("B");
        let state = run(vec![
            Action::SettingsChanged(after.clone()),
            Action::SettingsLoaded(before.clone()),
        ]);
        assert_eq!(state.settings, Some(after.clone()), "the change stays");
        // Without a change first, the answer is the document.
        assert_eq!(
            run(vec![Action::SettingsLoaded(before.clone())]).settings,
            Some(before.clone())
        );
        // A change after the answer replaces it, as every change does.
        let state =
            run(vec![Action::SettingsLoaded(before), Action::SettingsChanged(after.clone())]);
        assert_eq!(state.settings, Some(after));
    }

    #[test]
    fn an_edits_answer_told_before_a_later_change_does_not_undo_it_on_screen() {
        // The answer comes on another channel than the port's changes: here the port told this
        // popup's save, then another window's, before the save's answer arrived.
        let keyed = |key: &str| {
            let mut settings = Settings::default();
            settings.gemini.api_key = Some(Secret::new(key));
            settings
        };
        let (mine, theirs) = (keyed("mine"), keyed("theirs"));
        let state = run(vec![
            Action::SettingsLoaded(Settings::default()),
            Action::GeminiSaving,
            Action::SettingsChanged(mine.clone()),
            Action::SettingsChanged(theirs.clone()),
            Action::GeminiSaved(mine.clone()),
        ]);
        assert_eq!(state.settings, Some(theirs.clone()), "the later change stays");
        assert_eq!(state.gemini.api_key, "theirs", "and the form shows it");
        assert_eq!(state.gemini.save, Pending::Done(()), "the save still says saved");
        // An answer that comes before its change is told is shown.
        let state = run(vec![
            Action::SettingsLoaded(Settings::default()),
            Action::GeminiSaved(mine.clone()),
        ]);
        assert_eq!(state.settings, Some(mine.clone()));
        // As is one whose change was the last told.
        let state = run(vec![
            Action::SettingsChanged(theirs),
            Action::SettingsChanged(mine.clone()),
            Action::GeminiSaved(mine.clone()),
        ]);
        assert_eq!(state.settings, Some(mine));
    }

    #[test]
    fn refreshing_shows_loading_until_the_answer() {
        let status = WorkerStatus {
            extension_version: "0.1.0".into(),
            uptime_ms: 1,
            configured_servers: 0,
            vault: Default::default(),
        };
        let state = reduce(&State::default(), Action::StatusLoaded(status.clone()));
        assert_eq!(state.worker, WorkerView::Ready(status));
        let refreshing = reduce(&state, Action::RefreshStatus);
        assert_eq!((refreshing.worker.clone(), refreshing.status_epoch), (WorkerView::Loading, 1));
        let failed = reduce(&refreshing, Action::StatusFailed("no worker".into()));
        assert_eq!(failed.worker, WorkerView::Failed("no worker".into()));
    }

    #[test]
    fn instructions_fill_the_form_and_are_checked_as_core_checks_them() {
        let mut settings = Settings::default();
        settings.gemini.instructions = Some("Be brief.".into());
        let state = run(vec![Action::SettingsLoaded(settings.clone())]);
        assert_eq!(state.gemini.instructions, "Be brief.");
        let typing = run(vec![
            Action::SettingsLoaded(settings.clone()),
            Action::InstructionsInput("Answer in Japanese.".into()),
            Action::SettingsLoaded(settings),
        ]);
        assert_eq!(typing.gemini.instructions, "Answer in Japanese.", "typing is kept");
        assert!(typing.gemini.dirty);
        assert_eq!(typing.gemini.instructions_error(), None);
        assert_eq!(typing.gemini.choices(None).instructions, "Answer in Japanese.");
        let long = reduce(&typing, Action::InstructionsInput("x".repeat(20_001)));
        let error = long.gemini.instructions_error().expect("too long");
        assert!(error.to_string().contains("20000"), "{error}");
    }

    #[test]
    fn settings_fill_the_gemini_form_until_the_person_types() {
        let mut settings = Settings::default();
        settings.gemini.api_key = Some(Secret::new("AIza-stored"));
        let state = run(vec![Action::SettingsLoaded(settings.clone())]);
        assert_eq!(state.gemini.api_key, "AIza-stored");
        assert_eq!(state.gemini.model, "", "no model chosen: automatic");
        settings.gemini.model = Some("gemini-4-argon".into());
        let chosen = run(vec![Action::SettingsLoaded(settings.clone())]);
        assert_eq!(chosen.gemini.model, "gemini-4-argon");

        let typing = run(vec![
            Action::SettingsLoaded(settings.clone()),
            Action::ApiKeyInput("AIza-typed".into()),
            Action::SettingsLoaded(settings.clone()),
        ]);
        assert_eq!(typing.gemini.api_key, "AIza-typed", "an event must not undo typing");

        let saved = run(vec![
            Action::SettingsLoaded(settings.clone()),
            Action::ApiKeyInput("AIza-typed".into()),
            Action::GeminiSaving,
            Action::SettingsLoaded(settings.clone()),
        ]);
        assert_eq!(saved.gemini.api_key, "AIza-typed", "the first of two edits must not reset");
        let mut stored = settings;
        stored.gemini.api_key = Some(Secret::new("AIza-typed"));
        let saved = reduce(&saved, Action::GeminiSaved(stored));
        assert_eq!(saved.gemini.save, Pending::Done(()));
        assert_eq!(saved.gemini.api_key, "AIza-typed");
        assert!(!saved.gemini.dirty);
    }

    #[test]
    fn model_check_goes_from_running_to_models_or_error() {
        let state = run(vec![Action::CheckStarted]);
        assert!(state.gemini.check.is_running());
        let failed = reduce(&state, Action::ModelsFailed("API key not valid".into()));
        assert_eq!(failed.gemini.check, Pending::Failed("API key not valid".into()));
        let model = ModelInfo {
            id: "gemini-3.8-flash".into(),
            display_name: "Gemini 3.8 Flash".into(),
            stage: gemipanel_core::gemini::Stage::Stable,
            input_token_limit: Some(1_048_576),
            thinking: Some(true),
        };
        let done = reduce(&state, Action::ModelsLoaded(vec![model.clone()]));
        assert_eq!(done.gemini.check, Pending::Done(vec![model.clone()]));
        assert_eq!(done.gemini.models, Some(vec![model]));
    }

    #[test]
    fn the_models_shown_are_those_of_the_key_and_address_shown() {
        // The list is fetched for the key and address of the document shown; one that arrives
        // after another window changed them was listed for the old ones and is not shown.
        let keyed = |key: &str| {
            let mut settings = Settings::default();
            settings.gemini.api_key = Some(Secret::new(key.to_owned()));
            settings
        };
        let model = |id: &str| ModelInfo {
            id: id.into(),
            display_name: id.into(),
            stage: gemipanel_core::gemini::Stage::Stable,
            input_token_limit: None,
            thinking: None,
        };
        let listed = |settings: &Settings, id: &str| {
            Action::KnownModels(ListedModels {
                source: settings.gemini.model_source(),
                models: vec![model(id)],
            })
        };
        let (old, new) = (keyed("AIza-old"), keyed("AIza-new"));
        let state = run(vec![Action::SettingsLoaded(old.clone()), listed(&old, "old-list")]);
        assert_eq!(state.gemini.models, Some(vec![model("old-list")]));
        let changed = reduce(&state, Action::SettingsChanged(new.clone()));
        assert_eq!(changed.gemini.models, None, "the old key's list goes with it");
        let late = reduce(&changed, listed(&old, "late-old-list"));
        assert_eq!(late.gemini.models, None, "not the old key's late list");
        let fresh = reduce(&late, listed(&new, "new-list"));
        assert_eq!(fresh.gemini.models, Some(vec![model("new-list")]));
        // Another address is another list too.
        let mut moved = new.clone();
        moved.gemini.base_url = Some("http://127.0.0.1:9/v1beta".into());
        assert_ne!(moved.gemini.model_source(), new.gemini.model_source());
        // Nothing shown yet: no list is anyone's.
        assert_eq!(reduce(&State::default(), listed(&new, "early")).gemini.models, None);
    }

    #[test]
    fn typing_a_key_drops_the_verdict_about_the_last_one() {
        let model = ModelInfo {
            id: "gemini-3.8-flash".into(),
            display_name: "Gemini 3.8 Flash".into(),
            stage: gemipanel_core::gemini::Stage::Stable,
            input_token_limit: None,
            thinking: None,
        };
        let works = run(vec![Action::CheckStarted, Action::ModelsLoaded(vec![model.clone()])]);
        let typed = reduce(&works, Action::ApiKeyInput("AIza-other".into()));
        assert_eq!(typed.gemini.check, Pending::Idle);
        // The answer of a check started before the typing is about the old key.
        let running = run(vec![Action::CheckStarted, Action::ApiKeyInput("AIza-other".into())]);
        assert_eq!(reduce(&running, Action::ModelsLoaded(vec![model])).gemini.check, Pending::Idle);
        let failed = reduce(&running, Action::ModelsFailed("API key not valid".into()));
        assert_eq!(failed.gemini.check, Pending::Idle);
    }

    #[test]
    fn server_status_events_update_the_listed_server_only() {
        let (_, id) = with_server("A");
        let other = ServerId::generate([9; 16]);
        let state = run(vec![
            Action::ServersLoaded(vec![view(&id)]),
            Action::ServerStatus { id: id.clone(), status: ServerStatus::NeedsSignIn },
            Action::ServerStatus { id: other, status: ServerStatus::Connecting },
        ]);
        assert_eq!(state.servers.len(), 1);
        assert_eq!(state.servers[0].status, ServerStatus::NeedsSignIn);
    }

    #[test]
    fn editing_opens_the_form_from_the_stored_server() {
        let (settings, id) = with_server("A");
        let state = run(vec![Action::SettingsLoaded(settings), Action::EditServer(id.clone())]);
        let form = state.form.expect("form open");
        assert_eq!((form.editing, form.name.as_str()), (Some(id), "A"));

        let missing = run(vec![Action::EditServer(ServerId::generate([1; 16]))]);
        assert_eq!(missing.form, None);
    }

    #[test]
    fn saving_closes_the_form_and_lists_again() {
        let (settings, _) = with_server("A");
        let state = run(vec![
            Action::AddServer,
            Action::FormEdit(FormEdit::Name("B".into())),
            Action::FormSaving,
        ]);
        assert!(state.form.as_ref().is_some_and(|f| f.saving));
        let refused = reduce(&state, Action::FormSaveFailed(None, "worker said no".into()));
        let form = refused.form.as_ref().expect("still open");
        assert_eq!(
            (form.saving, form.save_error.clone()),
            (false, Some((None, "worker said no".into())))
        );
        let saved = reduce(&state, Action::FormSaved(settings));
        assert_eq!(saved.form, None);
        assert!(saved.servers_epoch > state.servers_epoch);
    }

    #[test]
    fn a_server_removed_elsewhere_closes_its_form_and_confirmation() {
        let (settings, id) = with_server("A");
        let state = run(vec![
            Action::SettingsLoaded(settings),
            Action::EditServer(id.clone()),
            Action::AskRemove(id),
            Action::SettingsLoaded(Settings::default()),
        ]);
        assert_eq!((state.form, state.confirm_remove), (None, None));
    }

    #[test]
    fn removal_waits_for_confirmation() {
        let (settings, id) = with_server("A");
        let asked = run(vec![Action::SettingsLoaded(settings), Action::AskRemove(id.clone())]);
        assert_eq!(asked.confirm_remove, Some(id));
        assert_eq!(reduce(&asked, Action::CancelRemove).confirm_remove, None);
        let failed = reduce(&asked, Action::RemoveFailed("gone".into()));
        assert_eq!((failed.confirm_remove, failed.list_error), (None, Some("gone".into())));
        let removed = reduce(&asked, Action::Removed(Settings::default()));
        assert_eq!(removed.settings, Some(Settings::default()));
    }

    #[test]
    fn import_goes_through_a_preview() {
        let (settings, _) = with_server("A");
        let preview = ImportPreview {
            source: ImportSource::GeminiCli,
            added: settings.servers.clone(),
            updated: vec![],
            skipped: vec![Skipped {
                name: "local".into(),
                reason: gemipanel_core::text::Text::new("errImportNoCommand"),
            }],
            warnings: vec![],
            api_key: None,
            model: None,
            instructions: None,
        };
        let previewed =
            run(vec![Action::ImportReading, Action::ImportPreviewed(Box::new(preview.clone()))]);
        assert_eq!(previewed.import, ImportView::Preview(preview.clone()));
        assert_eq!(reduce(&previewed, Action::ImportCancel).import, ImportView::Idle);
        let applying = reduce(&previewed, Action::ImportApplying);
        assert_eq!(applying.import, ImportView::Applying(preview));
        let applied = reduce(&applying, Action::ImportApplied(settings.clone()));
        assert_eq!(applied.import, ImportView::Applied(1));
        assert_eq!(applied.settings, Some(settings));
        // Applying without a preview does nothing.
        assert_eq!(run(vec![Action::ImportApplying]).import, ImportView::Idle);
    }

    #[test]
    fn allowing_a_command_runs_then_lists_again_or_shows_why_not() {
        let (settings, id) = with_server("A");
        let asked = run(vec![Action::AllowingCommand(id.clone())]);
        assert_eq!(asked.allow_command, Some((id.clone(), Pending::Running)));
        let refused = reduce(&asked, Action::AllowCommandFailed(id.clone(), "changed".into()));
        assert_eq!(refused.allow_command, Some((id, Pending::Failed("changed".into()))));
        let allowed = reduce(&asked, Action::CommandAllowed(settings.clone()));
        assert_eq!((allowed.allow_command, allowed.settings), (None, Some(settings)));
        assert!(allowed.servers_epoch > asked.servers_epoch);
    }

    #[test]
    fn editing_a_local_server_opens_the_form_on_its_command() {
        let id = ServerId::generate([8; 16]);
        let local = settings::LocalCommand::new("uvx", vec!["mcp-server-git".into()]);
        let edit =
            SettingsEdit::AddServer { id: id.clone(), server: ServerDraft::local("Git", local) };
        let settings = settings::apply(&Settings::default(), &edit).unwrap();
        let state = run(vec![Action::SettingsLoaded(settings), Action::EditServer(id)]);
        let form = state.form.expect("form open");
        assert_eq!(form.kind, crate::form::ServerKind::Local);
        assert_eq!(form.command_preview().map(|l| l.text()).as_deref(), Some("uvx mcp-server-git"));
    }
}
