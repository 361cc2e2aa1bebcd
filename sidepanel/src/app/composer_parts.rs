//! What the composer carries and offers: files, the page chip and the selection, the tools
//! menu's lists (sources, the browser's tools, the page's tools), the `/` menu's servers and
//! commands, and the buttons inside the tools menu.

use std::rc::Rc;

use gemipanel_browser::chrome::{message, word};
use gemipanel_core::gemini::{Family, ToolsOff};
use gemipanel_core::messages::Request;
use gemipanel_core::page::browser_tools::{selection_context, BrowserTool, MAX_SELECTION_CHARS};
use gemipanel_core::resource_updates::FollowedResource;
use gemipanel_core::settings::source::{BROWSER, PAGES};
use gemipanel_core::settings::{SettingsEdit, SourceChange};
use gemipanel_core::slash::PanelCommand;
use yew::prelude::*;

use super::turn_actions::TurnActions;
use super::{emit, Page};
use crate::components::{
    composer::Composer,
    context_chips::ContextChips,
    context_meter::ContextMeterView,
    thinking_picker::ThinkingPicker,
    tools_menu::{ServerChoice, ToolsMenu},
};
use crate::hooks::list_page_tools;
use crate::state::{Action, State, View};

/// Files picked for the next message, and one taken off.
pub(super) struct FileActions {
    pub on_files: Callback<Vec<web_sys::File>>,
    pub on_remove_file: Callback<u32>,
}

#[hook]
pub(super) fn use_file_actions(page: &Page) -> FileActions {
    let file_ids = use_mut_ref(|| 0u32);
    let on_files = {
        let dispatcher = page.dispatcher.clone();
        Callback::from(move |files: Vec<web_sys::File>| {
            let (picked, refused) = crate::files::pick(files, &mut file_ids.borrow_mut());
            dispatcher.dispatch(Action::AttachFiles(picked, refused));
        })
    };
    let on_remove_file = {
        let (dispatcher, files) = (page.dispatcher.clone(), page.state.files.clone());
        Callback::from(move |id: u32| {
            files.iter().filter(|f| f.id == id).for_each(|f| crate::files::release(f));
            dispatcher.dispatch(Action::DetachFile(id));
        })
    };
    FileActions { on_files, on_remove_file }
}

/// The composer with its chips, its meter and its tools menu.
pub(super) fn composer(
    page: &Page,
    turn: &TurnActions,
    files: FileActions,
    changed: Vec<FollowedResource>,
    on_new_chat: Callback<()>,
    on_instructions_editing: Callback<bool>,
) -> Html {
    let (state, dispatcher) = (&page.state, &page.dispatcher);
    let on_command = Callback::from(move |command: PanelCommand| match command {
        PanelCommand::NewChat => on_new_chat.emit(()),
    });
    let FileActions { on_files, on_remove_file } = files;
    html! {
        <Composer busy={state.chat.busy} on_send={turn.on_send.clone()}
            on_stop={turn.on_stop.clone()} on_focus={on_focus(page)}
            servers={prompt_servers(state)} {on_command}
            on_attach={emit(dispatcher, Action::Attach)} prompts_epoch={state.prompts_epoch}
            draft={state.draft.clone()} draft_epoch={state.draft_epoch}
            files={state.files.clone()} file_note={state.file_note.clone()}
            upload={state.upload.clone()} {on_files} {on_remove_file}>
            <ContextChips page={state.page.clone()} selection={state.selection.clone()}
                attachments={state.attachments.clone()} on_page={on_page_chip(page)}
                on_attach_selection={emit(dispatcher, |()| Action::AttachSelection)}
                on_detach={emit(dispatcher, Action::Detach)}
                {changed} on_refresh={turn.on_refresh.clone()} />
            <ContextMeterView meter={state.context_meter()} busy={state.chat.busy}
                summarizing={state.chat.summarizing} on_summarize={turn.on_summarize.clone()} />
            { tools_menu(page, on_instructions_editing) }
        </Composer>
    }
}

/// The tools menu, with the thinking picker, the chat's instructions and its activity.
fn tools_menu(page: &Page, on_instructions_editing: Callback<bool>) -> Html {
    let (state, dispatcher) = (&page.state, &page.dispatcher);
    let model = state.model();
    let family = Family::of_listed(&model, state.model_info(&model).and_then(|m| m.thinking));
    let tools_off = ToolsOff::for_chat(state.chat.google_search, &model).map(|r| word(&r.text()));
    let on_menu_open = {
        let dispatcher = dispatcher.clone();
        Callback::from(move |()| list_page_tools(dispatcher.clone()))
    };
    let activity_open = state.view == View::Activity;
    html! {
        <ToolsMenu servers={server_choices(state)} google_search={state.chat.google_search} {tools_off}
            sent={state.chat.tools_sent} browser_tools={browser_tools(state)}
            on_browser_tool={on_browser_tool(page)}
            page_tools={state.page_tools.clone()} on_open={on_menu_open}
            on_toggle={emit(dispatcher, Action::ToggleServer)}
            on_search={emit(dispatcher, Action::SetGoogleSearch)}>
            <ThinkingPicker {family} choice={state.chat.thinking}
                on_change={emit(dispatcher, Action::SetThinking)} />
            <button type="button" class="link instructions-open" data-testid="instructions-open"
                onclick={on_instructions_editing.reform(|_: MouseEvent| true)}>
                { message("panelInstructions", &[]) }</button>
            if !state.chat.activity.is_empty() {
                <button type="button" class="link activity-open" data-testid="activity-open"
                    aria-pressed={activity_open.to_string()}
                    onclick={emit(dispatcher, Action::ShowActivity).reform(move |_: MouseEvent| !activity_open)}>
                    { message("panelActivityCount", &[&state.chat.activity.len().to_string()]) }</button>
            }
        </ToolsMenu>
    }
}

/// The sources the tools menu turns on and off: the browser's, this page's, each server.
fn server_choices(state: &State) -> Vec<ServerChoice> {
    let enabled = state.enabled_servers();
    let browser = ServerChoice {
        id: BROWSER.to_owned(),
        name: message("panelBrowserSource", &[]),
        checked: enabled.contains(BROWSER),
    };
    let this_page = ServerChoice {
        id: PAGES.to_owned(),
        name: message("panelPageSource", &[]),
        checked: enabled.contains(PAGES),
    };
    [browser, this_page]
        .into_iter()
        .chain(state.settings.iter().flat_map(|s| s.servers.iter()).map(|s| ServerChoice {
            id: s.id.as_str().to_owned(),
            name: s.name.clone(),
            checked: enabled.contains(s.id.as_str()),
        }))
        .collect()
}

/// The servers whose prompts the `/` menu offers: the enabled MCP servers.
fn prompt_servers(state: &State) -> Vec<(String, String)> {
    let enabled = state.enabled_servers();
    state
        .settings
        .iter()
        .flat_map(|s| s.servers.iter())
        .filter(|s| enabled.contains(s.id.as_str()))
        .map(|s| (s.id.as_str().to_owned(), s.name.clone()))
        .collect()
}

/// The browser's tools, each with whether the settings leave it on.
fn browser_tools(state: &State) -> Vec<(String, bool)> {
    let excluded =
        state.settings.as_ref().map(|s| s.source(BROWSER).exclude_tools).unwrap_or_default();
    BrowserTool::ALL
        .iter()
        .map(|t| (t.name().to_owned(), !excluded.iter().any(|e| e == t.name())))
        .collect()
}

/// A browser tool turned on or off, in the settings.
fn on_browser_tool(page: &Page) -> Callback<(String, bool)> {
    let port = page.port.clone();
    Callback::from(move |(tool, enabled): (String, bool)| {
        let port = port.clone();
        let change = SourceChange::ToolEnabled(tool, enabled);
        let edit = SettingsEdit::SetSource { source: BROWSER.to_owned(), change };
        wasm_bindgen_futures::spawn_local(async move {
            let _ = port.request(Request::EditSettings { edit }).await;
        });
    })
}

/// The page chip turned on or off.
fn on_page_chip(page: &Page) -> Callback<bool> {
    let state = &page.state;
    let (dispatcher, asked, follows) =
        (page.dispatcher.clone(), state.page.tabs_asked, state.page.follows_tabs);
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
}

/// The composer got the focus: the page's selection, if any, is offered as a chip.
fn on_focus(page: &Page) -> Callback<()> {
    let (dispatcher, tab) = (page.dispatcher.clone(), page.state.page.tab.clone());
    Callback::from(move |()| {
        let (dispatcher, tab) = (dispatcher.clone(), tab.clone());
        let Some(tab) = tab.filter(|t| t.is_visible()) else { return };
        wasm_bindgen_futures::spawn_local(async move {
            let read =
                gemipanel_browser::page::read_selection(Some(tab.id), MAX_SELECTION_CHARS).await;
            let offer = read.ok().and_then(|answer| {
                let url = answer.tab.as_ref().and_then(|t| t.url.clone()).unwrap_or_default();
                let title = answer.title.clone().unwrap_or_default();
                selection_context(&title, &url, answer.text.as_deref().unwrap_or_default())
            });
            dispatcher.dispatch(Action::SelectionOffered(offer.map(Rc::new)));
        });
    })
}
