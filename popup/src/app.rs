//! The popup page: wires the state, the worker effects and the components together.

use gemipanel_browser::{chrome, chrome::message, worker_status_text};
use gemipanel_core::first_run::{self, Facts, Step};
use gemipanel_core::settings::{ServerId, SettingsEdit};
use gemipanel_core::vault::VaultState;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::components::delete_everything::DeleteEverythingCard;
use crate::components::first_run_card::FirstRunCard;
use crate::components::gemini_card::GeminiCard;
use crate::components::import_export::ImportExport;
use crate::components::server_form::ServerFormView;
use crate::components::server_list::ServerList;
use crate::components::settings_problem::SettingsProblemBanner;
use crate::components::sync_card::SyncCard;
use crate::components::vault_card::VaultCard;
use crate::effects::{self, Dispatch};
use crate::hooks::{use_open_chat, use_shortcut, use_shortcut_read, use_worker};
use crate::permissions::Needs;
use crate::state::{Action, State, WorkerView};

/// The manifest command that opens the side panel (handled by the worker).
pub(crate) const OPEN_CHAT_COMMAND: &str = "open-side-panel";

#[function_component]
pub fn App() -> Html {
    let state = use_reducer(State::default);
    use_worker(&state);
    let dispatch = state.dispatcher();
    let act = |make: fn() -> Action| {
        let d = dispatch.clone();
        Callback::from(move |_| d.dispatch(make()))
    };
    let with = |make: fn(ServerId) -> Action| {
        let d = dispatch.clone();
        Callback::from(move |id| d.dispatch(make(id)))
    };

    let on_check = {
        let (d, key) = (dispatch.clone(), state.gemini.api_key.clone());
        Callback::from(move |()| effects::check_models(d.clone(), key.clone()))
    };
    let on_save_gemini = {
        let (d, settings, form) = (dispatch.clone(), state.settings.clone(), state.gemini.clone());
        Callback::from(move |()| {
            if let Some(settings) = settings.clone() {
                effects::save_gemini(d.clone(), settings, form.choices(None));
            }
        })
    };
    let on_use_model = {
        let (d, settings, form) = (dispatch.clone(), state.settings.clone(), state.gemini.clone());
        Callback::from(move |model: String| {
            d.dispatch(Action::ModelInput(model.clone()));
            if let Some(settings) = settings.clone() {
                effects::save_gemini(d.clone(), settings, form.choices(Some(model.clone())));
            }
        })
    };
    let server_form = server_form_view(&state, &dispatch);
    let on_remove_confirmed = {
        let d = dispatch.clone();
        Callback::from(move |id: ServerId| effects::remove_server(d.clone(), id))
    };
    let (on_file, on_paste, on_apply_import) = import_callbacks(&dispatch);
    let on_export = {
        let (d, include) = (dispatch.clone(), state.include_secrets);
        Callback::from(move |()| effects::export(d.clone(), include))
    };
    let vault = match &state.worker {
        WorkerView::Ready(status) => Some(status.vault),
        _ => None,
    };
    let on_vault_changed = {
        let d = dispatch.clone();
        Callback::from(move |()| {
            d.dispatch(Action::RefreshStatus);
            d.dispatch(Action::RefreshServers);
            effects::load_settings(d.clone());
        })
    };
    let locked = vault == Some(VaultState::Locked);
    let first_run = use_first_run_card(&state, &dispatch);

    html! {
        <div class="page popup">
            <TopBar />
            <main class="content">
                { first_run }
                if let Some(problem) = &state.settings_problem {
                    <SettingsProblemBanner problem={problem.clone()} recovery={state.recovery.clone()}
                        on_recover={{ let d = dispatch.clone(); Callback::from(move |action| effects::recover(d.clone(), action)) }} />
                }
                if let Some(error) = &state.settings_error {
                    <p class="banner error" role="alert">{ message("popupSettingsUnavailable", &[error]) }</p>
                }
                if locked {
                    <VaultCard state={VaultState::Locked} on_changed={on_vault_changed.clone()} />
                }
                <GeminiCard form={state.gemini.clone()} loaded={state.settings.is_some()}
                    on_key={dispatch_with(&dispatch, Action::ApiKeyInput)}
                    on_model={dispatch_with(&dispatch, Action::ModelInput)}
                    on_instructions={dispatch_with(&dispatch, Action::InstructionsInput)}
                    {on_use_model} on_check={on_check} on_save={on_save_gemini} />
                <ServerList servers={state.servers.clone()} confirm_remove={state.confirm_remove.clone()}
                    error={state.list_error.clone().or_else(|| state.servers_error.clone())}
                    form_open={state.form.is_some()}
                    on_add={act(|| Action::AddServer)} on_edit={with(Action::EditServer)}
                    on_remove={with(Action::AskRemove)} on_confirm={on_remove_confirmed}
                    on_cancel={act(|| Action::CancelRemove)}
                    on_allow={{ let d = dispatch.clone(); Callback::from(move |origin| effects::allow_origin(d.clone(), origin)) }}
                    on_allow_local={{ let d = dispatch.clone(); Callback::from(move |()| effects::allow_local(d.clone())) }}
                    sign_in={state.sign_in.clone()}
                    on_sign_in={{ let d = dispatch.clone(); Callback::from(move |id| effects::sign_in(d.clone(), id)) }}
                    on_sign_out={{ let d = dispatch.clone(); Callback::from(move |id| effects::sign_out(d.clone(), id)) }}
                    on_allow_sign_in={{ let d = dispatch.clone(); Callback::from(move |(id, origin)| effects::allow_and_sign_in(d.clone(), id, origin)) }}
                    allow_command={state.allow_command.clone()}
                    on_allow_command={{ let d = dispatch.clone(); Callback::from(move |(id, line, run)| effects::allow_command(d.clone(), id, line, run)) }}>
                    { server_form.unwrap_or_default() }
                </ServerList>
                <ImportExport import={state.import.clone()} include_secrets={state.include_secrets}
                    export_error={state.export_error.clone()} on_file={on_file} on_paste={on_paste}
                    on_apply={on_apply_import} on_cancel={act(|| Action::ImportCancel)}
                    on_export={on_export} export_shortened={state.export_shortened.clone()}
                    export_blanked={state.export_blanked.clone()}
                    on_include_secrets={dispatch_with(&dispatch, Action::IncludeSecrets)} />
                <SyncCard />
                if let Some(state) = vault.filter(|_| !locked) {
                    <VaultCard {state} on_changed={on_vault_changed.clone()} />
                }
                <DeleteEverythingCard on_deleted={on_vault_changed} {locked} />
            </main>
            <StatusBar worker={state.worker.clone()} on_refresh={act(|| Action::RefreshStatus)} />
        </div>
    }
}

/// Getting started: the first-run steps left, once the settings, the shortcut and the stored
/// progress are known (nothing flashes in before).
#[hook]
fn use_first_run_card(state: &State, dispatch: &Dispatch) -> Html {
    let shortcut = use_shortcut_read(OPEN_CHAT_COMMAND);
    let (progress, keep) = crate::first_run::use_first_run();
    let (Some(settings), Some(progress), Some(shortcut)) = (&state.settings, progress, shortcut)
    else {
        return html! {};
    };
    let steps = progress.left(&Facts::of(settings, shortcut.as_deref()));
    if steps.is_empty() {
        return html! {};
    }
    let on_action = {
        let d = dispatch.clone();
        Callback::from(move |step: Step| match step {
            // The key's field is just below: take the person there.
            Step::ApiKey => focus("api-key"),
            Step::Servers => d.dispatch(Action::AddServer),
            Step::Shortcut => crate::first_run::open_tab(first_run::SHORTCUTS_PAGE),
        })
    };
    let on_dismiss = Callback::from(move |()| {
        let mut next = progress.clone();
        next.dismissed = true;
        keep.emit(next);
    });
    let on_welcome = Callback::from(|()| crate::first_run::open_tab(first_run::WELCOME_PAGE));
    html! { <FirstRunCard {steps} {on_action} {on_welcome} {on_dismiss} /> }
}

fn focus(id: &str) {
    let element =
        web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(id));
    if let Some(element) = element.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
        element.scroll_into_view();
        let _ = element.focus();
    }
}

/// The server form when open (Add server, Edit), wired to test and save: the popup's server
/// card and the welcome page's servers step show the same one.
pub(crate) fn server_form_view(state: &State, dispatch: &Dispatch) -> Option<Html> {
    let form = state.form.clone()?;
    let on_test = {
        let (d, form) = (dispatch.clone(), form.clone());
        Callback::from(move |()| {
            if let Some(mut draft) = form.draft() {
                // The worker names the test connection; an unnamed draft is still testable.
                if draft.name.is_empty() {
                    draft.name = "test".into();
                }
                let run = form.bridge_line_fingerprint();
                effects::test_connection(d.clone(), draft, run);
            }
        })
    };
    let on_save = save_server_callback(dispatch.clone(), state);
    let on_cancel = {
        let d = dispatch.clone();
        Callback::from(move |()| d.dispatch(Action::CloseForm))
    };
    Some(html! {
        <ServerFormView form={form} on_test={on_test} on_save={on_save}
            local_allowed={state.local_permission != Some(false)}
            on_edit={dispatch_with(dispatch, Action::FormEdit)} {on_cancel} />
    })
}

/// Import's callbacks (a picked file, pasted text, the previewed edit applied), for the
/// popup's card and the welcome page alike.
pub(crate) fn import_callbacks(
    dispatch: &Dispatch,
) -> (Callback<web_sys::File>, Callback<String>, Callback<SettingsEdit>) {
    let on_file = {
        let d = dispatch.clone();
        Callback::from(move |file: web_sys::File| {
            d.dispatch(Action::ImportReading);
            let d = d.clone();
            wasm_bindgen_futures::spawn_local(async move {
                match crate::download::read_text(file).await {
                    Ok(text) => effects::preview_import(d, text),
                    Err(message) => d.dispatch(Action::ImportFailed(message)),
                }
            });
        })
    };
    let on_paste = {
        let d = dispatch.clone();
        Callback::from(move |text: String| {
            d.dispatch(Action::ImportReading);
            effects::preview_import(d.clone(), text)
        })
    };
    let on_apply = {
        let d = dispatch.clone();
        Callback::from(move |edit: SettingsEdit| effects::apply_import(d.clone(), edit))
    };
    (on_file, on_paste, on_apply)
}

fn dispatch_with<T: 'static>(dispatch: &Dispatch, make: fn(T) -> Action) -> Callback<T> {
    let d = dispatch.clone();
    Callback::from(move |value| d.dispatch(make(value)))
}

/// Save checks the form against the current document and, for a remote https server, asks for
/// the host permission inside this click before sending the edit. A local server's command
/// line is confirmed right after it is saved.
fn save_server_callback(dispatch: Dispatch, state: &State) -> Callback<()> {
    let (settings, form) = (state.settings.clone(), state.form.clone());
    Callback::from(move |()| {
        let (Some(settings), Some(form)) = (settings.as_ref(), form.as_ref()) else { return };
        let id = match effects::new_server_id() {
            Ok(id) => id,
            Err(message) => return dispatch.dispatch(Action::FormSaveFailed(None, message)),
        };
        match form.save_edit(settings, id) {
            Ok(edit) => {
                let confirm = form.confirm_edit(&edit);
                let needs = form.draft().map(|d| Needs::of(&d)).unwrap_or_default();
                effects::save_server(dispatch.clone(), edit, confirm, needs)
            }
            Err((field, message)) => {
                let message = message.as_ref().map(chrome::word).unwrap_or_default();
                dispatch.dispatch(Action::FormSaveFailed(field, message))
            }
        }
    })
}

#[function_component]
fn TopBar() -> Html {
    let (onclick, error) = use_open_chat(true);
    let shortcut = use_shortcut(OPEN_CHAT_COMMAND);
    let title = match &shortcut {
        Some(keys) => message("popupOpenChatShortcut", &[keys]),
        None => message("popupOpenChat", &[]),
    };
    html! {
        <header class="topbar">
            <img class="logo" src="icons/icon32.png" alt="" />
            <h1>{ message("appTitle", &[]) }</h1>
            <button type="button" class="primary" data-testid="open-chat" {onclick} title={title}>
                { message("popupOpenChat", &[]) }
                if let Some(keys) = &shortcut { <kbd>{ keys }</kbd> }
            </button>
            if let Some(error) = &error {
                <p class="note error topbar-error" role="alert">{ error }</p>
            }
        </header>
    }
}

#[derive(Properties, PartialEq)]
struct StatusBarProps {
    worker: WorkerView,
    on_refresh: Callback<()>,
}

#[function_component]
fn StatusBar(props: &StatusBarProps) -> Html {
    let (dot, text) = match &props.worker {
        WorkerView::Loading => ("pending", message("workerConnecting", &[])),
        WorkerView::Ready(status) => ("ok", worker_status_text(status)),
        WorkerView::Failed(err) => ("error", message("workerError", &[err])),
    };
    html! {
        <footer class="statusbar" role="status" data-testid="worker-status" data-state={dot}>
            <span class={classes!("dot", dot)} aria-hidden="true"></span>
            <span class="status-text">{ text }</span>
            <button type="button" class="icon-button" onclick={props.on_refresh.reform(|_: MouseEvent| ())}
                title={message("refreshStatus", &[])} aria-label={message("refreshStatus", &[])}>{ "↻" }</button>
        </footer>
    }
}
