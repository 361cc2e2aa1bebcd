use std::rc::Rc;

use gemipanel_browser::chrome::{message, word};
use gemipanel_core::gemini::history::edited_parts;
use gemipanel_core::gemini::{availability, prompts, Family, ToolsOff};
use gemipanel_core::mcp::{ElicitAction, ElicitResult};
use gemipanel_core::messages::Request;
use gemipanel_core::settings::SettingsEdit;
use gemipanel_core::slash::PanelCommand;
use yew::prelude::*;

use crate::app_host::AppServices;
use crate::chat_driver::{Decision, TurnSetup};
use crate::chats_store;
use crate::components::{
    activity_view::ActivityView,
    composer::Composer,
    context_chips::ContextChips,
    context_meter::ContextMeterView,
    empty_chat::EmptyChat,
    history_list::{ExportAsked, HistoryList},
    instructions_bar::InstructionsBar,
    model_offer::ModelOffer,
    status_bar::StatusBar,
    thinking_picker::ThinkingPicker,
    tool_browser::{ServerEntry, ToolBrowser},
    tools_menu::{ServerChoice, ToolsMenu},
    top_bar::TopBar,
    transcript_view::{TranscriptActions, TranscriptView},
    whats_new::WhatsNew,
};
use crate::hooks::{
    list_page_tools, use_chat_persistence, use_context_menu_clicks, use_driver, use_page_beside,
    use_page_tool_changes, use_stick_to_bottom, use_worker_port, use_worker_status,
};
use crate::shared::Shared;
use crate::state::{Action, ContextLabel, Entry, State, View};
use gemipanel_core::page::browser_tools::{selection_context, BrowserTool, MAX_SELECTION_CHARS};
use gemipanel_core::resource_updates::{mark_places, FollowedResource};
use gemipanel_core::settings::source::{BROWSER, PAGES};
use gemipanel_core::settings::SourceChange;

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

/// The transcript index of the person's message `at`.
fn entry_of_message(state: &State, at: usize) -> usize {
    state
        .chat
        .entries
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(***e, crate::state::Entry::User { .. }))
        .nth(at)
        .map_or(state.chat.entries.len(), |(i, _)| i)
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

#[function_component]
pub fn App() -> Html {
    let state = use_reducer(|| {
        let mut state = State::default();
        state.chat = crate::state::ChatView::new(new_chat_id(), js_sys::Date::now() as u64);
        state
    });
    let port = use_worker_port(state.dispatcher());
    use_worker_status(port.clone(), state.status_epoch, state.dispatcher());
    let driver = use_driver(port.clone(), state.dispatcher());
    use_chat_persistence(state.clone());
    use_page_beside(state.dispatcher());
    use_context_menu_clicks(state.dispatcher());
    use_page_tool_changes(state.dispatcher(), state.page_tools.is_some());
    let dispatcher = state.dispatcher();
    let model = state.model();
    let last = state.chat.entries.last().map_or(0, |e| Rc::as_ptr(e) as usize);
    let (main_ref, on_scroll) = use_stick_to_bottom((state.chat.entries.len(), last));

    // The tools are asked for as soon as the settings say which servers are on, so that the
    // first message usually finds them.
    {
        let driver = driver.clone();
        let wanted = (state.settings.clone(), state.enabled_servers());
        use_effect_with(wanted, move |(settings, servers)| {
            if let Some(settings) = settings {
                driver.prefetch_tools(settings, servers);
            }
        });
    }
    // The worker follows what the chat sent, told again when the worker started anew.
    let followed = state.followed_resources();
    {
        let port = port.clone();
        use_effect_with((followed, state.status_epoch), move |(resources, _)| {
            let resources = resources.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let _ = port.request(Request::FollowResources { resources }).await;
            });
        });
    }
    let changed = state.changed_resources();
    let on_refresh = {
        let (port, settings, dispatcher) =
            (port.clone(), state.settings.clone(), dispatcher.clone());
        Callback::from(move |(resource, title): (FollowedResource, String)| {
            let (port, settings) = (port.clone(), settings.clone());
            crate::resource_refresh::refresh(port, settings, resource, title, dispatcher.clone());
        })
    };
    let on_send = {
        let (driver, state, main) = (driver.clone(), state.clone(), main_ref.clone());
        Callback::from(move |text: String| {
            // Sending from the history or the tool browser shows the chat in their place.
            if state.view != View::Chat {
                depart_apps_in(&main);
            }
            driver.send(text, turn_setup(&state));
        })
    };
    let file_ids = use_mut_ref(|| 0u32);
    let on_files = {
        let dispatcher = dispatcher.clone();
        Callback::from(move |files: Vec<web_sys::File>| {
            let (picked, refused) = crate::files::pick(files, &mut file_ids.borrow_mut());
            dispatcher.dispatch(Action::AttachFiles(picked, refused));
        })
    };
    let on_remove_file = {
        let (dispatcher, files) = (dispatcher.clone(), state.files.clone());
        Callback::from(move |id: u32| {
            files.iter().filter(|f| f.id == id).for_each(|f| crate::files::release(f));
            dispatcher.dispatch(Action::DetachFile(id));
        })
    };
    let on_continue = {
        let (driver, state) = (driver.clone(), state.clone());
        Callback::from(move |()| driver.continue_reply(turn_setup(&state)))
    };
    let on_summarize = {
        let (driver, state) = (driver.clone(), state.clone());
        Callback::from(move |()| driver.summarize(turn_setup(&state)))
    };
    let on_retry_now = {
        let driver = driver.clone();
        Callback::from(move |()| driver.retry_now())
    };
    let on_notice_sign_in = {
        let driver = driver.clone();
        Callback::from(move |(server, origin)| driver.sign_in_from_notice(server, origin))
    };
    // A new version from message `at`: sent again with `text` (edited) or as it was.
    let branch = {
        let (driver, state, main) = (driver.clone(), state.clone(), main_ref.clone());
        Callback::from(move |(at, text): (usize, Option<String>)| {
            let Some(point) = state.chat.branch_point(at) else { return };
            let (text, parts) = match text {
                Some(new) => (new.clone(), edited_parts(&point.parts, &point.text, &new)),
                None => (point.text.clone(), point.parts.clone()),
            };
            depart_apps_from(&main, entry_of_message(&state, at));
            driver.reset(point.history, &state.chat.call_ids());
            state.dispatch(Action::Branch { at });
            driver.send_parts(text, parts, turn_setup(&state));
        })
    };
    let on_edit = branch.reform(|(at, text): (usize, String)| (at, Some(text)));
    let on_regenerate = branch.reform(|at: usize| (at, None));
    let on_switch = {
        let (driver, state, main) = (driver.clone(), state.clone(), main_ref.clone());
        Callback::from(move |(at, to): (usize, usize)| {
            if state.chat.busy {
                return;
            }
            // What the driver continues from is the version about to show; nothing of the
            // one it replaces runs again, and nothing of the one it brings back runs anew.
            let next = state.chat.switched(at, to);
            depart_apps_from(&main, entry_of_message(&state, at));
            driver.reset((*next.history).clone(), &next.call_ids());
            state.dispatch(Action::SwitchVersion { at, to });
            let shown: Vec<_> = next.entries.iter().map(|e| (**e).clone()).collect();
            driver.load_missing_apps(&shown);
        })
    };
    let instructions_editing = use_state(|| false);
    let on_instructions_editing = {
        let editing = instructions_editing.clone();
        Callback::from(move |open: bool| editing.set(open))
    };
    let on_instructions_save = {
        let (editing, dispatcher) = (instructions_editing.clone(), dispatcher.clone());
        Callback::from(move |instructions: Option<String>| {
            dispatcher.dispatch(Action::SetInstructions(instructions));
            editing.set(false);
        })
    };
    let on_stop = {
        let driver = driver.clone();
        Callback::from(move |_| driver.stop())
    };
    let on_new_chat = {
        let (driver, dispatcher, main) = (driver.clone(), dispatcher.clone(), main_ref.clone());
        Callback::from(move |_| {
            driver.stop();
            depart_apps_in(&main);
            driver.reset(Vec::new(), &[]);
            dispatcher.dispatch(Action::NewChat {
                id: new_chat_id(),
                now_ms: js_sys::Date::now() as u64,
            });
        })
    };
    let on_open = {
        let (driver, dispatcher) = (driver.clone(), dispatcher.clone());
        Callback::from(move |id: String| {
            let (driver, dispatcher) = (driver.clone(), dispatcher.clone());
            driver.stop();
            wasm_bindgen_futures::spawn_local(async move {
                match chats_store::load(&id).await {
                    Ok(saved) => {
                        // (The chat's apps went when the history was shown.)
                        let entries = saved.entries.clone();
                        driver.reset(saved.history.clone(), &saved.call_ids());
                        dispatcher.dispatch(Action::ChatOpened(Box::new(saved)));
                        driver.load_missing_apps(&entries);
                    }
                    Err(err) => dispatcher.dispatch(Action::Notice(err.to_string())),
                }
            });
        })
    };
    let index_update =
        |dispatcher: UseReducerDispatcher<State>, result: Result<Vec<_>, _>| match result {
            Ok(index) => dispatcher.dispatch(Action::ChatsListed(index)),
            Err(err) => crate::hooks::warn(&format!("updating saved chats: {err}")),
        };
    let on_rename = {
        let dispatcher = dispatcher.clone();
        Callback::from(move |(id, title): (String, String)| {
            let dispatcher = dispatcher.clone();
            wasm_bindgen_futures::spawn_local(async move {
                index_update(dispatcher, chats_store::rename(&id, &title).await);
            });
        })
    };
    let on_delete = {
        let (driver, dispatcher, open) =
            (driver.clone(), dispatcher.clone(), state.chat.id.clone());
        Callback::from(move |ids: Vec<String>| {
            // The open chat among them: it closes, or its next change would save it again.
            if ids.contains(&open) {
                driver.stop();
                driver.reset(Vec::new(), &[]);
                let now_ms = js_sys::Date::now() as u64;
                dispatcher.dispatch(Action::OpenChatDeleted { id: new_chat_id(), now_ms });
            }
            let dispatcher = dispatcher.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let result = match ids.as_slice() {
                    [id] => chats_store::delete(id).await,
                    _ => chats_store::delete_many(&ids).await,
                };
                index_update(dispatcher, result);
            });
        })
    };
    let history_status = use_state(|| None::<(String, bool)>);
    let on_export = {
        let history_status = history_status.clone();
        Callback::from(move |asked: ExportAsked| {
            let history_status = history_status.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let failed = |text: String| Some((message("panelExportFailed", &[&text]), true));
                history_status.set(match crate::chat_files::export(asked).await {
                    Ok(()) => None,
                    Err(text) => failed(text),
                });
            });
        })
    };
    let on_import = {
        let (dispatcher, history_status) = (dispatcher.clone(), history_status.clone());
        Callback::from(move |file: web_sys::File| {
            let (dispatcher, history_status) = (dispatcher.clone(), history_status.clone());
            wasm_bindgen_futures::spawn_local(async move {
                match crate::chat_files::import(file).await {
                    Ok((index, said)) => {
                        dispatcher.dispatch(Action::ChatsListed(index));
                        history_status.set(Some((said, false)));
                    }
                    Err(text) => {
                        history_status.set(Some((message("panelImportFailed", &[&text]), true)))
                    }
                }
            });
        })
    };
    let on_decide = {
        let driver = driver.clone();
        Callback::from(move |(id, d): (String, Decision)| driver.decide(&id, d))
    };
    let on_elicit = {
        let (port, dispatcher) = (port.clone(), dispatcher.clone());
        Callback::from(move |(elicitation_id, result): (String, ElicitResult)| {
            let answer = match result.action {
                ElicitAction::Accept => "panelAccepted",
                ElicitAction::Decline => "panelDeclined",
                ElicitAction::Cancel => "panelCancelled",
            };
            let answer = gemipanel_browser::chrome::message(answer, &[]);
            dispatcher.dispatch(Action::ElicitationAnswered {
                elicitation_id: elicitation_id.clone(),
                answer,
            });
            let port = port.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let _ = port.request(Request::AnswerElicitation { elicitation_id, result }).await;
            });
        })
    };

    // A model the API no longer offers as it is: this chat's own choice is replaced in the
    // chat, the settings' choice in the settings (every chat that follows them).
    let offer = {
        let listed = state.models.as_deref().map(Vec::as_slice);
        let automatic = state.automatic_model().to_owned();
        let chosen = state.chat.model.clone().or_else(|| state.settings_model().map(str::to_owned));
        chosen.map(|chosen| (availability(&chosen, listed), chosen)).map(
            |(availability, chosen)| {
                let in_chat = state.chat.model.is_some();
                let (dispatcher, port) = (dispatcher.clone(), port.clone());
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
                html! { <ModelOffer model={chosen} {availability} {models} {on_use} /> }
            },
        )
    };
    let family = Family::of_listed(&model, state.model_info(&model).and_then(|m| m.thinking));
    let default_model =
        state.settings_model().map_or_else(|| state.automatic_model().to_owned(), str::to_owned);
    let enabled = state.enabled_servers();
    let browser = ServerChoice {
        id: BROWSER.to_owned(),
        name: gemipanel_browser::chrome::message("panelBrowserSource", &[]),
        checked: enabled.contains(BROWSER),
    };
    let this_page = ServerChoice {
        id: PAGES.to_owned(),
        name: gemipanel_browser::chrome::message("panelPageSource", &[]),
        checked: enabled.contains(PAGES),
    };
    let servers: Vec<ServerChoice> = [browser, this_page]
        .into_iter()
        .chain(state.settings.iter().flat_map(|s| s.servers.iter()).map(|s| ServerChoice {
            id: s.id.as_str().to_owned(),
            name: s.name.clone(),
            checked: enabled.contains(s.id.as_str()),
        }))
        .collect();
    // The servers whose prompts the `/` menu offers: the enabled MCP servers.
    let prompt_servers: Vec<(String, String)> = state
        .settings
        .iter()
        .flat_map(|s| s.servers.iter())
        .filter(|s| enabled.contains(s.id.as_str()))
        .map(|s| (s.id.as_str().to_owned(), s.name.clone()))
        .collect();
    let on_command = {
        let on_new_chat = on_new_chat.clone();
        Callback::from(move |command: PanelCommand| match command {
            PanelCommand::NewChat => on_new_chat.emit(()),
        })
    };
    let excluded =
        state.settings.as_ref().map(|s| s.source(BROWSER).exclude_tools).unwrap_or_default();
    let browser_tools: Vec<(String, bool)> = BrowserTool::ALL
        .iter()
        .map(|t| (t.name().to_owned(), !excluded.iter().any(|e| e == t.name())))
        .collect();
    let on_browser_tool = {
        let port = port.clone();
        Callback::from(move |(tool, enabled): (String, bool)| {
            let port = port.clone();
            let change = SourceChange::ToolEnabled(tool, enabled);
            let edit = SettingsEdit::SetSource { source: BROWSER.to_owned(), change };
            wasm_bindgen_futures::spawn_local(async move {
                let _ = port.request(Request::EditSettings { edit }).await;
            });
        })
    };
    let on_page = {
        let (dispatcher, asked, follows) =
            (dispatcher.clone(), state.page.tabs_asked, state.page.follows_tabs);
        Callback::from(move |on: bool| {
            dispatcher.dispatch(Action::SetPageChip(on));
            // The first time: may the chip follow every tab? Asked inside this click.
            if on && !asked && !follows {
                let request = gemipanel_browser::page::request_tabs_permission();
                dispatcher.dispatch(Action::TabsAsked);
                let dispatcher = dispatcher.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let _ = gemipanel_browser::chrome::local_set(
                        crate::hooks::TABS_ASKED_KEY,
                        &true.into(),
                    )
                    .await;
                    dispatcher.dispatch(Action::TabsPermission(request.await));
                });
            }
        })
    };
    let on_menu_open = {
        let dispatcher = dispatcher.clone();
        Callback::from(move |()| list_page_tools(dispatcher.clone()))
    };
    let on_focus = {
        let (dispatcher, tab) = (dispatcher.clone(), state.page.tab.clone());
        Callback::from(move |()| {
            let (dispatcher, tab) = (dispatcher.clone(), tab.clone());
            let Some(tab) = tab.filter(|t| t.is_visible()) else { return };
            wasm_bindgen_futures::spawn_local(async move {
                let read =
                    gemipanel_browser::page::read_selection(Some(tab.id), MAX_SELECTION_CHARS)
                        .await;
                let offer = read.ok().and_then(|answer| {
                    let url = answer.tab.as_ref().and_then(|t| t.url.clone()).unwrap_or_default();
                    let title = answer.title.clone().unwrap_or_default();
                    selection_context(&title, &url, answer.text.as_deref().unwrap_or_default())
                });
                dispatcher.dispatch(Action::SelectionOffered(offer.map(Rc::new)));
            });
        })
    };
    let activity_open = state.view == View::Activity;
    let tools_off = ToolsOff::for_chat(state.chat.google_search, &model).map(|r| word(&r.text()));
    let main = match state.view {
        View::History => html! {
            <HistoryList chats={state.saved.clone()} current={state.chat.id.clone()}
                {on_open} {on_rename} {on_delete} {on_export} {on_import}
                status={(*history_status).clone()} />
        },
        View::Tools => {
            let servers = state
                .settings
                .iter()
                .flat_map(|s| s.servers.iter())
                .map(|s| ServerEntry { id: s.id.as_str().to_owned(), name: s.name.clone() })
                .collect::<Vec<_>>();
            html! { <ToolBrowser {servers} /> }
        }
        View::Activity => html! {
            <ActivityView activity={state.chat.activity.clone()}
                on_close={emit(&dispatcher, |()| Action::ShowActivity(false))} />
        },
        View::Chat if state.chat.entries.is_empty() => {
            html! { <EmptyChat has_key={state.settings.is_none() || state.has_api_key()} /> }
        }
        View::Chat => {
            let actions = TranscriptActions {
                on_decide,
                on_elicit,
                on_continue,
                on_retry_now,
                on_edit,
                on_regenerate,
                on_switch,
                on_notice_sign_in,
                on_refresh: on_refresh.clone(),
            };
            let sent: Vec<&[ContextLabel]> = state
                .chat
                .entries
                .iter()
                .filter_map(|e| match &**e {
                    Entry::User { context, .. } => Some(context.as_slice()),
                    _ => None,
                })
                .collect();
            let marks = Shared(Rc::new(mark_places(&sent, &changed)));
            html! {
                <TranscriptView entries={Shared(Rc::new(state.chat.entries.clone()))}
                    messages={Shared(Rc::new(state.chat.message_info()))}
                    busy={state.chat.busy} {marks} {actions} />
            }
        }
    };
    let services = {
        let (port, driver, dispatcher) = (port.clone(), driver.clone(), dispatcher.clone());
        use_memo((), move |_| AppServices {
            port,
            driver,
            offer: emit(&dispatcher, Action::OfferDraft),
        })
    };
    html! {
        <ContextProvider<AppServices> context={(*services).clone()}>
        <div class="page sidepanel">
            <TopBar models={state.models.clone()} chosen={state.chat.model.clone()} {default_model}
                history_open={state.view == View::History}
                tools_open={state.view == View::Tools}
                on_tools={emit_leaving(&dispatcher, Action::ShowTools, &main_ref)}
                on_model={emit(&dispatcher, Action::SetModel)}
                on_new_chat={on_new_chat}
                on_history={emit_leaving(&dispatcher, Action::ShowHistory, &main_ref)} />
            { for offer }
            <WhatsNew />
            <InstructionsBar every_chat={state.settings.as_ref()
                    .and_then(|s| s.gemini.chosen_instructions()).map(|i| AttrValue::from(i.to_owned()))}
                this_chat={state.chat.instructions.clone().map(AttrValue::from)}
                editing={*instructions_editing} on_editing={on_instructions_editing.clone()}
                on_save={on_instructions_save} />
            <main class="content" ref={main_ref} onscroll={on_scroll}
                // Reachable with the keyboard to scroll it, whatever it shows.
                tabindex="0">{ main }</main>
            <Composer busy={state.chat.busy} {on_send} {on_stop} {on_focus}
                servers={prompt_servers} {on_command}
                on_attach={emit(&dispatcher, Action::Attach)} prompts_epoch={state.prompts_epoch}
                draft={state.draft.clone()} draft_epoch={state.draft_epoch}
                files={state.files.clone()} file_note={state.file_note.clone()}
                upload={state.upload.clone()} {on_files} {on_remove_file}>
                <ContextChips page={state.page.clone()} selection={state.selection.clone()}
                    attachments={state.attachments.clone()} {on_page}
                    on_attach_selection={emit(&dispatcher, |()| Action::AttachSelection)}
                    on_detach={emit(&dispatcher, Action::Detach)}
                    changed={changed.clone()} on_refresh={on_refresh.clone()} />
                <ContextMeterView meter={state.context_meter()} busy={state.chat.busy}
                    summarizing={state.chat.summarizing} {on_summarize} />
                <ToolsMenu {servers} google_search={state.chat.google_search} {tools_off}
                    sent={state.chat.tools_sent} {browser_tools} {on_browser_tool}
                    page_tools={state.page_tools.clone()} on_open={on_menu_open}
                    on_toggle={emit(&dispatcher, Action::ToggleServer)}
                    on_search={emit(&dispatcher, Action::SetGoogleSearch)}>
                    <ThinkingPicker {family} choice={state.chat.thinking}
                        on_change={emit(&dispatcher, Action::SetThinking)} />
                    <button type="button" class="link instructions-open" data-testid="instructions-open"
                        onclick={on_instructions_editing.reform(|_: MouseEvent| true)}>
                        { gemipanel_browser::chrome::message("panelInstructions", &[]) }</button>
                    if !state.chat.activity.is_empty() {
                        <button type="button" class="link activity-open" data-testid="activity-open"
                            aria-pressed={(state.view == View::Activity).to_string()}
                            onclick={emit(&dispatcher, Action::ShowActivity).reform(move |_: MouseEvent| !activity_open)}>
                            { gemipanel_browser::chrome::message("panelActivityCount", &[&state.chat.activity.len().to_string()]) }</button>
                    }
                </ToolsMenu>
            </Composer>
            <StatusBar worker={state.worker.clone()} on_refresh={emit(&dispatcher, |()| Action::RefreshStatus)} />
        </div>
        </ContextProvider<AppServices>>
    }
}
