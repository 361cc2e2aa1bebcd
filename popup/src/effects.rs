//! Requests to the worker, each reporting its outcome to the reducer as [`Action`]s.
//!
//! The popup sends one-shot messages (`request_once`); a `Response::Error` becomes the message
//! shown next to whatever the person clicked.

use gemipanel_browser::chrome;
use gemipanel_browser::gemini_models::{each_model_list, list_models};
use gemipanel_browser::messaging::request_once;
use gemipanel_core::messages::{Recovery, Request, Response};
use gemipanel_core::settings::{
    self, GeminiSettings, Secret, ServerDraft, ServerId, Settings, SettingsEdit,
};
use wasm_bindgen_futures::spawn_local;
use yew::UseReducerDispatcher;

use crate::permissions::{Asked, Needs};
use crate::state::{Action, Pending, State};

pub type Dispatch = UseReducerDispatcher<State>;

async fn ask(request: Request) -> Result<Response, String> {
    match request_once(request).await {
        Ok(Response::Error { error }) => Err(chrome::word(&error)),
        Ok(response) => Ok(response),
        Err(err) => Err(err.to_string()),
    }
}

fn unexpected(response: &Response) -> String {
    format!("the worker answered with an unexpected message ({response:?})")
}

/// Sends an edit; `Ok` with the document after it.
async fn edit(edit: SettingsEdit) -> Result<Settings, String> {
    match ask(Request::EditSettings { edit }).await? {
        Response::Settings { settings } => Ok(settings),
        other => Err(unexpected(&other)),
    }
}

pub fn load_status(dispatch: Dispatch) {
    spawn_local(async move {
        dispatch.dispatch(match ask(Request::Status).await {
            Ok(Response::Status(status)) => Action::StatusLoaded(status),
            Ok(other) => Action::StatusFailed(unexpected(&other)),
            Err(message) => Action::StatusFailed(message),
        });
    });
}

pub fn load_settings(dispatch: Dispatch) {
    spawn_local(async move {
        let settings = match ask(Request::GetSettings).await {
            Ok(Response::Settings { settings }) => settings,
            Ok(other) => return dispatch.dispatch(Action::SettingsFailed(unexpected(&other))),
            Err(message) => return dispatch.dispatch(Action::SettingsFailed(message)),
        };
        dispatch.dispatch(Action::SettingsLoaded(settings));
    });
}

/// The models of the document's key and address: those kept from before at once (offline
/// too), then the live list.
pub fn load_models(dispatch: Dispatch, gemini: GeminiSettings) {
    spawn_local(async move {
        each_model_list(&gemini, |listed| dispatch.dispatch(Action::KnownModels(listed))).await;
    });
}

pub fn load_servers(dispatch: Dispatch) {
    spawn_local(async move {
        dispatch.dispatch(match ask(Request::ListServers).await {
            Ok(Response::Servers { servers }) => Action::ServersLoaded(servers),
            Ok(other) => Action::ServersFailed(unexpected(&other)),
            Err(message) => Action::ServersFailed(message),
        });
    });
}

/// Lists the models for the typed key (or the stored one when the box is empty).
pub fn check_models(dispatch: Dispatch, api_key: String) {
    dispatch.dispatch(Action::CheckStarted);
    let api_key = Some(api_key.trim().to_string()).filter(|k| !k.is_empty()).map(Secret::new);
    spawn_local(async move {
        let models = async {
            let settings = current_settings().await?;
            // Kept as the list of the key it was listed with, typed or stored.
            list_models(&settings.gemini, api_key).await
        };
        dispatch.dispatch(match models.await {
            Ok(models) => Action::ModelsLoaded(models),
            Err(message) => Action::ModelsFailed(message),
        });
    });
}

/// What the Gemini card saves.
pub struct GeminiChoices {
    pub api_key: String,
    pub model: String,
    pub instructions: String,
}

/// Saves the key, the model and the instructions as edits, each only when it changed.
pub fn save_gemini(dispatch: Dispatch, stored: Settings, choices: GeminiChoices) {
    let GeminiChoices { api_key, model, instructions } = choices;
    dispatch.dispatch(Action::GeminiSaving);
    spawn_local(async move {
        let api_key = Some(api_key.trim().to_string()).filter(|k| !k.is_empty()).map(Secret::new);
        // Empty: the automatic default.
        let model = Some(model.trim().to_string()).filter(|m| !m.is_empty());
        let mut latest = stored.clone();
        if api_key != stored.gemini.api_key {
            match edit(SettingsEdit::SetApiKey { api_key }).await {
                Ok(settings) => latest = settings,
                Err(message) => return dispatch.dispatch(Action::GeminiSaveFailed(message)),
            }
        }
        if model.as_deref() != stored.gemini.chosen_model() {
            match edit(SettingsEdit::SetModel { model }).await {
                Ok(settings) => latest = settings,
                Err(message) => return dispatch.dispatch(Action::GeminiSaveFailed(message)),
            }
        }
        let instructions = Some(instructions.trim().to_string()).filter(|i| !i.is_empty());
        if instructions.as_deref() != stored.gemini.chosen_instructions() {
            match edit(SettingsEdit::SetInstructions { instructions }).await {
                Ok(settings) => latest = settings,
                Err(message) => return dispatch.dispatch(Action::GeminiSaveFailed(message)),
            }
        }
        dispatch.dispatch(Action::GeminiSaved(latest));
    });
}

/// Tests the form's server. Like saving, it first asks for what the server needs (its site,
/// or leave to start local programs), inside this click; refused, nothing is tested and the
/// form says so.
pub fn test_connection(dispatch: Dispatch, draft: ServerDraft, run: Option<String>) {
    dispatch.dispatch(Action::TestStarted);
    let needs = Needs::of(&draft);
    let asked = needs.ask();
    spawn_local(async move {
        if let Some(asked) = asked {
            if let Err(message) = needs.outcome(Asked::Test, asked.await) {
                return dispatch.dispatch(Action::TestFailed(message));
            }
        }
        let failed = |message: String| chrome::message("popupTestFailed", &[&message]);
        dispatch.dispatch(match ask(Request::TestConnection { draft, run }).await {
            Ok(Response::ConnectionTest { outcome }) => Action::TestFinished(outcome),
            Ok(other) => Action::TestFailed(failed(unexpected(&other))),
            Err(message) => Action::TestFailed(failed(message)),
        });
    });
}

/// A fresh server id from the browser's random source.
pub fn new_server_id() -> Result<ServerId, String> {
    chrome::random_bytes::<16>().map(ServerId::generate).map_err(|e| e.to_string())
}

/// Saves the server form's edit. What the server `needs` (its site, or leave to start local
/// programs) is requested first — synchronously, inside the click — and saving stops if the
/// person declines. `confirm` (a local server's `ConfirmCommand`) follows a successful save:
/// the person saw that line in the form.
pub fn save_server(
    dispatch: Dispatch,
    change: SettingsEdit,
    confirm: Option<SettingsEdit>,
    needs: Needs,
) {
    dispatch.dispatch(Action::FormSaving);
    let asked = needs.ask();
    spawn_local(async move {
        if let Some(asked) = asked {
            let answer = asked.await;
            dispatch.dispatch(Action::LocalPermission(needs.local && answer == Ok(true)));
            if let Err(message) = needs.outcome(Asked::Save, answer) {
                return dispatch.dispatch(Action::FormSaveFailed(None, message));
            }
        }
        let saved = match edit(change).await {
            Ok(settings) => settings,
            Err(message) => return dispatch.dispatch(Action::FormSaveFailed(None, message)),
        };
        let Some(confirm) = confirm else { return dispatch.dispatch(Action::FormSaved(saved)) };
        let id = confirmed_server(&confirm);
        match edit(confirm).await {
            Ok(settings) => dispatch.dispatch(Action::FormSaved(settings)),
            // The server is saved; its row asks again and shows why this did not work.
            Err(message) => {
                dispatch.dispatch(Action::FormSaved(saved));
                if let Some(id) = id {
                    dispatch.dispatch(Action::AllowCommandFailed(id, message));
                }
            }
        }
    });
}

fn confirmed_server(confirm: &SettingsEdit) -> Option<ServerId> {
    match confirm {
        SettingsEdit::ConfirmCommand { id, .. } => Some(id.clone()),
        _ => None,
    }
}

/// Lets a local server's command line run: the line the person was shown (its fingerprint,
/// `run`), for the command as configured (`command_line`), which the worker refuses if the
/// stored command changed meanwhile.
pub fn allow_command(dispatch: Dispatch, id: ServerId, command_line: String, run: String) {
    dispatch.dispatch(Action::AllowingCommand(id.clone()));
    spawn_local(async move {
        let confirm = SettingsEdit::ConfirmCommand { id: id.clone(), command_line, run: Some(run) };
        dispatch.dispatch(match edit(confirm).await {
            Ok(settings) => Action::CommandAllowed(settings),
            Err(message) => Action::AllowCommandFailed(id, message),
        });
    });
}

/// Asks for access to `origin` (a server whose connection the browser refused), inside this
/// click, then lists the servers again so they connect.
pub fn allow_origin(dispatch: Dispatch, origin: String) {
    let needs = Needs::site(Some(format!("{}/*", origin.trim_end_matches('/'))));
    ask_then_refresh(dispatch, needs);
}

/// Asks for `nativeMessaging` (local servers), inside this click, then lists the servers
/// again so they connect.
pub fn allow_local(dispatch: Dispatch) {
    ask_then_refresh(dispatch, Needs::local());
}

fn ask_then_refresh(dispatch: Dispatch, needs: Needs) {
    let Some(asked) = needs.ask() else { return };
    spawn_local(async move {
        let answer = asked.await;
        if needs.local {
            dispatch.dispatch(Action::LocalPermission(answer == Ok(true)));
        }
        match needs.outcome(Asked::Allow, answer) {
            Ok(()) => dispatch.dispatch(Action::PermissionGranted),
            Err(message) => dispatch.dispatch(Action::ServersFailed(message)),
        }
    });
}

/// Whether local servers may run (`nativeMessaging` granted), for the form's line saying why
/// Chrome will ask.
pub fn load_local_permission(dispatch: Dispatch) {
    spawn_local(async move {
        let granted = chrome::has_permission(chrome::NATIVE_MESSAGING).await;
        dispatch.dispatch(Action::LocalPermission(granted));
    });
}

/// Signs in to a saved server: the worker opens the browser's sign-in window and answers when
/// it is done. (A toolbar popup closes when that window takes the focus; the worker finishes
/// the sign-in anyway and the popup shows it when opened again.)
pub fn sign_in(dispatch: Dispatch, id: ServerId) {
    dispatch.dispatch(Action::SigningIn(id.clone()));
    spawn_local(async move {
        let outcome = match ask(Request::SignIn { server_id: id.clone() }).await {
            Ok(Response::SignIn { outcome }) => Pending::Done(outcome),
            Ok(other) => Pending::Failed(unexpected(&other)),
            Err(message) => Pending::Failed(message),
        };
        dispatch.dispatch(Action::SignInDone(id, outcome));
    });
}

/// Asks for access to the authorization server's origin inside this click, then signs in.
pub fn allow_and_sign_in(dispatch: Dispatch, id: ServerId, origin: String) {
    let needs = Needs::site(Some(format!("{}/*", origin.trim_end_matches('/'))));
    let Some(asked) = needs.ask() else { return };
    spawn_local(async move {
        match needs.outcome(Asked::SignIn, asked.await) {
            Ok(()) => sign_in(dispatch, id),
            Err(message) => dispatch.dispatch(Action::SignInDone(id, Pending::Failed(message))),
        }
    });
}

pub fn sign_out(dispatch: Dispatch, id: ServerId) {
    spawn_local(async move {
        match ask(Request::SignOut { server_id: id.clone() }).await {
            Ok(_) => dispatch.dispatch(Action::SignInDone(id, Pending::Idle)),
            Err(message) => dispatch.dispatch(Action::SignInDone(id, Pending::Failed(message))),
        }
    });
}

pub fn remove_server(dispatch: Dispatch, id: ServerId) {
    spawn_local(async move {
        dispatch.dispatch(match edit(SettingsEdit::RemoveServer { id }).await {
            Ok(settings) => Action::Removed(settings),
            Err(message) => Action::RemoveFailed(message),
        });
    });
}

/// The stored document as it is now (not the popup's copy, which may be a moment old).
async fn current_settings() -> Result<Settings, String> {
    match ask(Request::GetSettings).await? {
        Response::Settings { settings } => Ok(settings),
        other => Err(unexpected(&other)),
    }
}

/// Reads the file against the current settings; nothing is applied until the person says so.
pub fn preview_import(dispatch: Dispatch, text: String) {
    spawn_local(async move {
        let preview = async {
            let settings = current_settings().await?;
            let seed = chrome::random_bytes::<16>().map_err(|err| err.to_string())?;
            settings::preview_import(&text, &settings, seed)
                .map_err(|err| chrome::word(&err.text()))
        };
        dispatch.dispatch(match preview.await {
            Ok(preview) => Action::ImportPreviewed(Box::new(preview)),
            Err(message) => Action::ImportFailed(message),
        });
    });
}

/// Applies an import, first asking (inside this click) for what its servers need: their
/// sites, and leave to start local programs when it brings local servers.
pub fn apply_import(dispatch: Dispatch, change: SettingsEdit) {
    dispatch.dispatch(Action::ImportApplying);
    let mut needs = Needs::default();
    if let SettingsEdit::Import { servers, .. } = &change {
        for server in servers {
            match &server.local {
                Some(_) => needs.local = true,
                None => needs.origins.extend(crate::form::host_permission(&server.url)),
            }
        }
    }
    needs.origins.sort();
    needs.origins.dedup();
    let asked = needs.ask();
    spawn_local(async move {
        if let Some(asked) = asked {
            let answer = asked.await;
            if needs.local {
                dispatch.dispatch(Action::LocalPermission(answer == Ok(true)));
            }
            if let Err(message) = needs.outcome(Asked::Import, answer) {
                return dispatch.dispatch(Action::ImportFailed(message));
            }
        }
        dispatch.dispatch(match edit(change).await {
            Ok(settings) => Action::ImportApplied(settings),
            Err(message) => Action::ImportFailed(message),
        });
    });
}

/// Carries out the person's choice about settings that could not be read.
pub fn recover(dispatch: Dispatch, action: Recovery) {
    dispatch.dispatch(Action::Recovering);
    spawn_local(async move {
        dispatch.dispatch(match ask(Request::RecoverSettings { action }).await {
            Ok(Response::Settings { settings }) => Action::Recovered(settings),
            Ok(Response::Exported { export }) => {
                match crate::download::save_text("gemipanel-settings-kept.json", &export.text) {
                    Ok(()) => Action::RecoveryExported,
                    Err(message) => Action::RecoveryFailed(message),
                }
            }
            Ok(other) => Action::RecoveryFailed(unexpected(&other)),
            Err(message) => Action::RecoveryFailed(message),
        });
    });
}

/// Exports the settings (made by the worker, which holds the secrets) and hands them to the
/// browser as a download.
pub fn export(dispatch: Dispatch, include_secrets: bool) {
    spawn_local(async move {
        dispatch.dispatch(match ask(Request::ExportSettings { include_secrets }).await {
            Ok(Response::Exported { export }) => {
                match crate::download::save_text("gemipanel-settings.json", &export.text) {
                    Ok(()) => Action::Exported {
                        shortened: export.urls_shortened,
                        blanked: export.args_blanked,
                    },
                    Err(message) => Action::ExportFailed(message),
                }
            }
            Ok(other) => Action::ExportFailed(unexpected(&other)),
            Err(message) => Action::ExportFailed(message),
        });
    });
}

/// The line as the bridge would run the form's command, reported as a form change; nothing
/// when the bridge cannot be asked (the form keeps showing the line as configured).
pub fn preview_command(
    on_edit: yew::Callback<crate::form::FormEdit>,
    server_id: Option<ServerId>,
    local: settings::LocalCommand,
) {
    spawn_local(async move {
        let request = Request::PreviewCommand { server_id, local: local.clone() };
        if let Ok(Response::CommandPreview { line }) = ask(request).await {
            on_edit.emit(crate::form::FormEdit::BridgeLine(local, Box::new(line)));
        }
    });
}
