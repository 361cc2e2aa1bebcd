//! The welcome page (`welcome.html`, opened on install): what GemiPanel is, then the first-run
//! steps of `core::first_run` — the Gemini key with a live check and the model it will use,
//! servers imported or added, the shortcut that opens the chat — each one skippable.
//!
//! It is the popup's module in another page: the same state, worker effects and components
//! (the key field, Import, the server form), so what the welcome page does is what the popup
//! does.

use gemipanel_browser::chrome::{counted_message, message};
use gemipanel_core::first_run::{Facts, Progress, Step, StepState, API_KEY_PAGE, SHORTCUTS_PAGE};
use gemipanel_core::gemini::{automatic_model, ModelInfo};
use yew::prelude::*;

use crate::app::{import_callbacks, server_form_view, OPEN_CHAT_COMMAND};
use crate::components::api_key_field::ApiKeyField;
use crate::components::first_run_card::step_name;
use crate::components::import_form::ImportForm;
use crate::effects::{self, Dispatch};
use crate::first_run::{open_tab, use_first_run};
use crate::hooks::{use_open_chat, use_shortcut_read, use_worker};
use crate::state::{Action, GeminiForm, Pending, State};

/// Where a sentence's keyboard shortcut goes, replaced by a `<kbd>`.
const KEYS_MARK: &str = "\u{1}";

/// How long the key must stay as typed or pasted before it is checked.
const CHECK_AFTER: std::time::Duration = std::time::Duration::from_millis(400);

#[function_component]
pub fn Welcome() -> Html {
    let state = use_reducer(State::default);
    use_worker(&state);
    let dispatch = state.dispatcher();
    use_live_check(&state.gemini, &dispatch);
    let shortcut = use_shortcut_read(OPEN_CHAT_COMMAND);
    let (progress, keep) = use_first_run();
    let steps = match (&state.settings, &progress, &shortcut) {
        (Some(settings), Some(progress), Some(shortcut)) => {
            let facts = Facts::of(settings, shortcut.as_deref());
            let step = |step: Step, title: &str, body: Html| {
                let state = progress.state(step, &facts);
                let change = |f: fn(&mut Progress, Step)| {
                    let (keep, progress) = (keep.clone(), progress.clone());
                    Callback::from(move |_: MouseEvent| {
                        let mut next = progress.clone();
                        f(&mut next, step);
                        keep.emit(next);
                    })
                };
                html! {
                    <StepCard {step} {state} title={message(title, &[])}
                        current={progress.current(&facts) == Some(step)}
                        on_skip={change(Progress::skip)} on_reopen={change(Progress::reopen)}>
                        { body }
                    </StepCard>
                }
            };
            let servers = state.settings.as_ref().map_or(0, |s| s.servers.len());
            html! {
                <ol class="steps" aria-label={message("welcomeStepsLabel", &[])}>
                    { step(Step::ApiKey, "welcomeStepKey", key_step(&state, &dispatch)) }
                    { step(Step::Servers, "welcomeStepServers", servers_step(&state, &dispatch, servers)) }
                    { step(Step::Shortcut, "welcomeStepShortcut", shortcut_step(shortcut.as_deref())) }
                </ol>
            }
        }
        _ => html! { <p class="note"><span class="spinner" aria-hidden="true"></span></p> },
    };
    html! {
        <div class="page welcome">
            <header class="welcome-hero">
                <img class="welcome-logo" src="icons/icon128.png" alt="" />
                <div>
                    <h1>{ message("welcomeTitle", &[]) }</h1>
                    <p>{ message("welcomeIntro", &[]) }</p>
                    <p>{ message("welcomeIntroTools", &[]) }</p>
                </div>
            </header>
            <main class="welcome-steps">
                { steps }
                <OpenChat />
            </main>
        </div>
    }
}

/// Checks the key against the model list once the person stops typing or has pasted it; a
/// key loaded from the settings is not checked again.
#[hook]
fn use_live_check(form: &GeminiForm, dispatch: &Dispatch) {
    let typed = Some(form.api_key.trim().to_owned()).filter(|k| form.dirty && !k.is_empty());
    use_effect_with(typed, {
        let dispatch = dispatch.clone();
        move |typed: &Option<String>| {
            let current = std::rc::Rc::new(std::cell::Cell::new(true));
            if let Some(key) = typed.clone() {
                let still = current.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    gemipanel_browser::timers::sleep(CHECK_AFTER).await;
                    if still.get() {
                        effects::check_models(dispatch, key);
                    }
                });
            }
            move || current.set(false)
        }
    });
}

fn key_step(state: &State, dispatch: &Dispatch) -> Html {
    let form = &state.gemini;
    let on_key = {
        let d = dispatch.clone();
        Callback::from(move |key| d.dispatch(Action::ApiKeyInput(key)))
    };
    let on_check = {
        let (d, key) = (dispatch.clone(), form.api_key.clone());
        Callback::from(move |()| effects::check_models(d.clone(), key.clone()))
    };
    let on_save = {
        let (d, settings, form) = (dispatch.clone(), state.settings.clone(), form.clone());
        Callback::from(move |_: MouseEvent| {
            if let Some(settings) = settings.clone() {
                effects::save_gemini(d.clone(), settings, form.choices(None));
            }
        })
    };
    let works = matches!(form.check, Pending::Done(_));
    let saved = match &form.save {
        Pending::Done(()) => html! { <p class="note ok">{ message("welcomeKeySaved", &[]) }</p> },
        Pending::Failed(error) => html! { <p class="note error" role="alert">{ error }</p> },
        _ => html! {},
    };
    html! {
        <>
            <p>
                <a href={API_KEY_PAGE} target="_blank" rel="noopener" data-testid="get-key">
                    { message("welcomeKeyGet", &[]) }{ " ↗" }</a>
            </p>
            <ApiKeyField value={form.api_key.clone()} check={form.check.clone()}
                oninput={on_key} oncheck={on_check} hint={message("welcomeKeyHint", &[])} />
            { model_line(&form.model, form.models.as_deref()) }
            <div class="actions">
                <div class="grow" aria-live="polite" data-testid="welcome-key-saved">{ saved }</div>
                <button type="button" class="primary" data-testid="save-key" onclick={on_save}
                    disabled={!works || !form.dirty || form.save.is_running()}>
                    { message("welcomeKeySave", &[]) }</button>
            </div>
        </>
    }
}

/// The model chats will use: the one chosen, else the automatic default from the list.
fn model_line(chosen: &str, models: Option<&[ModelInfo]>) -> Html {
    let listed = models.filter(|m| !m.is_empty());
    let id = if chosen.is_empty() { automatic_model(listed) } else { chosen };
    let name = listed
        .and_then(|m| m.iter().find(|m| m.id == id))
        .map_or_else(|| id.to_owned(), |m| m.display_name.clone());
    let text = if chosen.is_empty() {
        message("welcomeModelDefault", &[&name])
    } else {
        message("welcomeModelChosen", &[&name])
    };
    html! { <p class="note welcome-model" data-testid="welcome-model">{ text }</p> }
}

fn servers_step(state: &State, dispatch: &Dispatch, servers: usize) -> Html {
    let (on_file, on_paste, on_apply) = import_callbacks(dispatch);
    let on_cancel = {
        let d = dispatch.clone();
        Callback::from(move |()| d.dispatch(Action::ImportCancel))
    };
    let on_add = {
        let d = dispatch.clone();
        Callback::from(move |_: MouseEvent| d.dispatch(Action::AddServer))
    };
    let form = server_form_view(state, dispatch);
    html! {
        <>
            <p class="note">{ message("welcomeServersIntro", &[]) }</p>
            if servers > 0 {
                <p class="note ok" data-testid="welcome-servers">
                    { counted_message("welcomeServersDone", servers, &[&servers.to_string()]) }</p>
            }
            <ImportForm import={state.import.clone()} {on_file} {on_paste} {on_apply} {on_cancel} />
            if let Some(form) = form {
                <div class="welcome-form">{ form }</div>
            } else {
                <div class="actions">
                    <button type="button" class="secondary" data-testid="add-server" onclick={on_add}>
                        { message("welcomeAddServer", &[]) }</button>
                </div>
            }
        </>
    }
}

fn shortcut_step(shortcut: Option<&str>) -> Html {
    let open = Callback::from(|_: MouseEvent| open_tab(SHORTCUTS_PAGE));
    let said = match shortcut {
        Some(keys) => {
            // The keys go where the sentence puts them (before or after the verb, by language),
            // as a <kbd>: the message is worded around a marker, split there.
            let sentence = message("welcomeShortcutSet", &[KEYS_MARK]);
            let (before, after) = sentence.split_once(KEYS_MARK).unwrap_or((&sentence, ""));
            html! {
                <p data-testid="welcome-shortcut">
                    { before }<kbd>{ keys }</kbd>{ after }
                    <br /><span class="note">{ message("welcomeShortcutChange", &[]) }</span>
                </p>
            }
        }
        None => {
            html! { <p data-testid="welcome-shortcut">{ message("welcomeShortcutNone", &[]) }</p> }
        }
    };
    html! {
        <>
            { said }
            <div class="actions">
                <button type="button" class="secondary" data-testid="open-shortcuts" onclick={open}>
                    { message("welcomeShortcutOpen", &[]) }</button>
            </div>
        </>
    }
}

#[derive(Properties, PartialEq)]
struct StepProps {
    step: Step,
    state: StepState,
    title: AttrValue,
    current: bool,
    on_skip: Callback<MouseEvent>,
    on_reopen: Callback<MouseEvent>,
    children: Html,
}

/// One step: its title with its state (Skip while open), its content while not skipped.
#[function_component]
fn StepCard(props: &StepProps) -> Html {
    let (badge, state) = match props.state {
        StepState::Done => (Some(message("welcomeStepDone", &[])), "done"),
        StepState::Skipped => (Some(message("welcomeStepSkippedBadge", &[])), "skipped"),
        StepState::Open => (None, "open"),
    };
    let heading = format!("step-{}", step_name(props.step));
    html! {
        <li class={classes!("card", "step", props.current.then_some("current"))}
            data-step={step_name(props.step)} data-state={state} aria-labelledby={heading.clone()}>
            <div class="card-head">
                <h2 id={heading}>{ props.title.clone() }</h2>
                if let Some(badge) = badge {
                    <span class={classes!("badge", state)}>{ badge }</span>
                } else {
                    <button type="button" class="link-button" data-testid="skip" onclick={props.on_skip.clone()}>
                        { message("welcomeSkip", &[]) }</button>
                }
            </div>
            if props.state == StepState::Skipped {
                <div class="actions skipped-line">
                    <p class="note grow">{ message("welcomeSkipped", &[]) }</p>
                    <button type="button" class="secondary" data-testid="reopen" onclick={props.on_reopen.clone()}>
                        { message("welcomeReopen", &[]) }</button>
                </div>
            } else {
                { props.children.clone() }
            }
        </li>
    }
}

/// Opens the side panel of this window (inside the click, as Chrome requires).
#[function_component]
fn OpenChat() -> Html {
    let (onclick, error) = use_open_chat(false);
    html! {
        <footer class="welcome-finish">
            <button type="button" class="primary" data-testid="welcome-open-chat" {onclick}>
                { message("welcomeOpenChat", &[]) }</button>
            <p class="note">{ message("welcomeFinish", &[]) }</p>
            if let Some(error) = &error {
                <p class="note error" role="alert">{ error }</p>
            }
        </footer>
    }
}
