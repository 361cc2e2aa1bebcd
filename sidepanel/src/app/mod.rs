//! The side panel's page. `App` only composes: the worker's link and effects
//! (`worker_effects`), what the person does to the turns (`turn_actions`) and to whole chats
//! (`chats_actions`), the composer and its menus (`composer_parts`), and the main area's view
//! switch (`main_view`); the top bar, the notices and the status bar are drawn here.

mod chats_actions;
mod composer_parts;
mod main_view;
mod turn_actions;
mod worker_effects;

use std::rc::Rc;

use gemipanel_browser::port::WorkerPort;
use gemipanel_core::gemini::{availability, prompts};
use gemipanel_core::messages::Request;
use gemipanel_core::settings::SettingsEdit;
use yew::prelude::*;

use crate::app_host::AppServices;
use crate::chat_driver::{Driver, TurnSetup};
use crate::components::{
    instructions_bar::InstructionsBar, model_offer::ModelOffer, status_bar::StatusBar,
    top_bar::TopBar, whats_new::WhatsNew,
};
use crate::hooks::use_stick_to_bottom;
use crate::state::{Action, State, View};

/// The apps shown in `main` are asked to clean up before what replaces its content (another
/// chat, the history, the tool browser) takes their frames along.
fn depart_apps_in(main: &NodeRef) {
    if let Some(main) = main.cast::<web_sys::Element>() {
        gemipanel_browser::app_frame::depart_within(&main);
    }
}

/// The apps shown in the transcript from entry `from` on are asked to clean up: a new version
/// of the chat replaces those entries.
fn depart_apps_from(main: &NodeRef, from: usize) {
    let Some(main) = main.cast::<web_sys::Element>() else { return };
    let Ok(Some(list)) = main.query_selector(".transcript") else { return };
    let entries = list.children();
    for i in from..entries.length() as usize {
        if let Some(entry) = entries.item(i as u32) {
            gemipanel_browser::app_frame::depart_within(&entry);
        }
    }
}

/// Like [`emit`], for an action that replaces the content of `main`.
fn emit_leaving<T: 'static>(
    dispatcher: &UseReducerDispatcher<State>,
    make: fn(T) -> Action,
    main: &NodeRef,
) -> Callback<T> {
    let (dispatcher, main) = (dispatcher.clone(), main.clone());
    Callback::from(move |value| {
        depart_apps_in(&main);
        dispatcher.dispatch(make(value))
    })
}

pub(crate) fn new_chat_id() -> String {
    format!(
        "{:x}{:06x}",
        js_sys::Date::now() as u64,
        (js_sys::Math::random() * 16_777_216.0) as u32
    )
}

/// A callback that dispatches the action made from its value.
fn emit<T: 'static>(
    dispatcher: &UseReducerDispatcher<State>,
    make: fn(T) -> Action,
) -> Callback<T> {
    let dispatcher = dispatcher.clone();
    Callback::from(move |value| dispatcher.dispatch(make(value)))
}

/// What the chat's next turn is sent with, as chosen in the UI.
fn turn_setup(state: &State) -> TurnSetup {
    let model = state.model();
    TurnSetup {
        model_thinks: state.model_info(&model).and_then(|m| m.thinking),
        thinking: state.chat.thinking,
        model,
        servers: state.enabled_servers(),
        google_search: state.chat.google_search,
        page: state.page.tab.clone().filter(|_| state.page.on),
        attachments: state.attachments.clone(),
        files: state.files.clone(),
        system_instruction: prompts::system_instruction(
            state.settings.as_ref().and_then(|s| s.gemini.chosen_instructions()),
            state.chat.instructions.as_deref(),
        ),
    }
}

/// What every part of the page's wiring needs.
#[derive(Clone)]
struct Page {
    state: UseReducerHandle<State>,
    dispatcher: UseReducerDispatcher<State>,
    port: Rc<WorkerPort>,
    driver: Driver,
    /// The main area, whose apps are asked to clean up before its content is replaced.
    main: NodeRef,
}

#[function_component]
pub fn App() -> Html {
    let state = use_reducer(|| {
        let mut state = State::default();
        state.chat = crate::state::ChatView::new(new_chat_id(), js_sys::Date::now() as u64);
        state
    });
    let (port, driver) = worker_effects::use_worker(&state);
    let last = state.chat.entries.last().map_or(0, |e| Rc::as_ptr(e) as usize);
    let (main_ref, on_scroll) = use_stick_to_bottom((state.chat.entries.len(), last));
    let page = Page { dispatcher: state.dispatcher(), state, port, driver, main: main_ref };
    let turn = turn_actions::turn_actions(&page);
    let history = chats_actions::use_history_actions(&page);
    let files = composer_parts::use_file_actions(&page);
    let on_new_chat = chats_actions::new_chat(&page);
    let instructions_editing = use_state(|| false);
    let on_instructions_editing = {
        let editing = instructions_editing.clone();
        Callback::from(move |open: bool| editing.set(open))
    };
    let on_instructions_save = {
        let (editing, dispatcher) = (instructions_editing.clone(), page.dispatcher.clone());
        Callback::from(move |instructions: Option<String>| {
            dispatcher.dispatch(Action::SetInstructions(instructions));
            editing.set(false);
        })
    };
    let services = {
        let (port, driver, dispatcher) =
            (page.port.clone(), page.driver.clone(), page.dispatcher.clone());
        use_memo((), move |_| AppServices {
            port,
            driver,
            offer: emit(&dispatcher, Action::OfferDraft),
        })
    };
    let (state, dispatcher) = (&page.state, &page.dispatcher);
    let changed = state.changed_resources();
    let transcript = turn_actions::use_steady_transcript_actions(turn_actions::transcript_actions(
        &page,
        turn.on_refresh.clone(),
    ));
    let main = main_view::main_view(&page, history, transcript, &changed);
    let composer = composer_parts::composer(
        &page,
        &turn,
        files,
        changed,
        on_new_chat.clone(),
        on_instructions_editing.clone(),
    );
    html! {
        <ContextProvider<AppServices> context={(*services).clone()}>
        <div class="page sidepanel">
            { top_bar(&page, on_new_chat) }
            { for model_offer(&page) }
            <WhatsNew />
            <InstructionsBar every_chat={state.settings.as_ref()
                    .and_then(|s| s.gemini.chosen_instructions()).map(|i| AttrValue::from(i.to_owned()))}
                this_chat={state.chat.instructions.clone().map(AttrValue::from)}
                editing={*instructions_editing} on_editing={on_instructions_editing}
                on_save={on_instructions_save} />
            <main class="content" ref={page.main.clone()} onscroll={on_scroll}
                // Reachable with the keyboard to scroll it, whatever it shows.
                tabindex="0">{ main }</main>
            { composer }
            <StatusBar worker={state.worker.clone()} on_refresh={emit(dispatcher, |()| Action::RefreshStatus)} />
        </div>
        </ContextProvider<AppServices>>
    }
}

fn top_bar(page: &Page, on_new_chat: Callback<()>) -> Html {
    let (state, dispatcher) = (&page.state, &page.dispatcher);
    let default_model =
        state.settings_model().map_or_else(|| state.automatic_model().to_owned(), str::to_owned);
    html! {
        <TopBar models={state.models.clone()} chosen={state.chat.model.clone()} {default_model}
            history_open={state.view == View::History}
            tools_open={state.view == View::Tools}
            on_tools={emit_leaving(dispatcher, Action::ShowTools, &page.main)}
            on_model={emit(dispatcher, Action::SetModel)}
            {on_new_chat}
            on_history={emit_leaving(dispatcher, Action::ShowHistory, &page.main)} />
    }
}

/// A model the API no longer offers as it is: this chat's own choice is replaced in the chat,
/// the settings' choice in the settings (every chat that follows them).
fn model_offer(page: &Page) -> Option<Html> {
    let state = &page.state;
    let listed = state.models.as_deref().map(Vec::as_slice);
    let automatic = state.automatic_model().to_owned();
    let chosen = state.chat.model.clone().or_else(|| state.settings_model().map(str::to_owned))?;
    let availability = availability(&chosen, listed);
    let in_chat = state.chat.model.is_some();
    let (dispatcher, port) = (page.dispatcher.clone(), page.port.clone());
    let on_use = Callback::from(move |to: String| {
        if in_chat {
            return dispatcher.dispatch(Action::SetModel(to));
        }
        let model = (to != automatic).then_some(to);
        let port = port.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let edit = SettingsEdit::SetModel { model };
            let _ = port.request(Request::EditSettings { edit }).await;
        });
    });
    let models = state.models.as_deref().cloned().unwrap_or_default();
    Some(html! { <ModelOffer model={chosen} {availability} {models} {on_use} /> })
}
