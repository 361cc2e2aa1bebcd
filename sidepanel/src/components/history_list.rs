use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;

use gemipanel_browser::chrome::message;
use gemipanel_core::chats::search::{ChatSearch, Hit, Searchable};
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::chats_store;
use crate::state::ChatSummary;

/// What to export: one chat or every chat, as JSON (`false`) or Markdown (`true`).
#[derive(Debug, Clone, PartialEq)]
pub enum ExportAsked {
    Chat { id: String, markdown: bool },
    All { markdown: bool },
}

#[derive(Properties, PartialEq)]
pub struct Props {
    pub chats: Rc<Vec<ChatSummary>>,
    pub current: String,
    pub on_open: Callback<String>,
    pub on_rename: Callback<(String, String)>,
    /// One chat, the selected ones, or all of them.
    pub on_delete: Callback<Vec<String>>,
    pub on_export: Callback<ExportAsked>,
    pub on_import: Callback<web_sys::File>,
    /// What the last export or import came to, and whether it failed.
    #[prop_or_default]
    pub status: Option<(String, bool)>,
}

/// How many rows the list shows before "Show all": more than a panel's height, few enough
/// that a keystroke's new results render within a frame or two.
const SHOWN: usize = 25;

#[derive(Clone, Copy, PartialEq)]
enum Confirm {
    Selected,
    All,
}

/// The chats searched: at once by their titles, and by their text once it is read.
#[hook]
fn use_chat_search(chats: Rc<Vec<ChatSummary>>) -> Rc<RefCell<ChatSearch>> {
    let by_title = |chats: &[ChatSummary]| {
        ChatSearch::new(chats.iter().map(|c| Searchable::new(&c.id, &c.title, "")).collect())
    };
    let search = use_mut_ref(|| by_title(&chats));
    let update = use_force_update();
    {
        let search = search.clone();
        use_effect_with(chats, move |chats| {
            // The list changed (a chat saved, deleted, imported): titles now, text once read.
            *search.borrow_mut() = by_title(chats);
            update.force_update();
            let titles = chats.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let Ok(all) = chats_store::all().await else { return };
                // A chat not read (damaged) is still found by its title.
                let mut read: std::collections::HashMap<String, Searchable> =
                    all.iter().map(|c| (c.id.clone(), Searchable::of(c))).collect();
                let searchable = titles
                    .iter()
                    .map(|c| {
                        read.remove(&c.id).unwrap_or_else(|| Searchable::new(&c.id, &c.title, ""))
                    })
                    .collect();
                *search.borrow_mut() = ChatSearch::new(searchable);
                update.force_update();
            });
        });
    }
    search
}

thread_local! {
    /// One `Intl.DateTimeFormat` for every row: `toLocaleDateString` builds one per call, which
    /// cost a keystroke more than the search itself.
    static DATES: js_sys::Function = js_sys::Intl::DateTimeFormat::new(
        &js_sys::Array::new(),
        &js_sys::Object::new(),
    )
    .format();
}

fn focus(node: &NodeRef) {
    if let Some(element) = node.cast::<web_sys::HtmlElement>() {
        let _ = element.focus();
    }
}

/// Moves focus among the chats' open buttons (and back up to the search box).
fn move_focus(down: bool) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else { return };
    let Ok(buttons) = document.query_selector_all(".history-list button.open") else { return };
    let active = document.active_element();
    let items: Vec<web_sys::HtmlElement> =
        (0..buttons.length()).filter_map(|i| buttons.item(i)?.dyn_into().ok()).collect();
    let at = items.iter().position(|b| active.as_ref() == Some(b.unchecked_ref()));
    let next = match (at, down) {
        (None, true) => items.first(),
        (Some(i), true) => items.get(i + 1),
        (Some(0), false) => {
            if let Ok(Some(search)) = document.query_selector("#chat-search") {
                let _ = search.unchecked_into::<web_sys::HtmlElement>().focus();
            }
            return;
        }
        (Some(i), false) => items.get(i - 1),
        (None, false) => None,
    };
    if let Some(button) = next {
        let _ = button.focus();
    }
}

/// Saved chats, most recent first: search, open, rename in place, export, select and delete;
/// import and export of every chat.
#[function_component]
pub fn HistoryList(props: &Props) -> Html {
    let editing = use_state(|| None::<String>);
    let exporting = use_state(|| None::<String>);
    let query = use_state(String::new);
    let show_all = use_state(|| false);
    let selected = use_state(HashSet::<String>::new);
    let confirm = use_state(|| None::<Confirm>);
    let search = use_chat_search(props.chats.clone());
    // Keyboard first: the search box has the focus when the history opens, the confirmation's
    // Delete when it asks.
    let search_box = use_node_ref();
    let confirm_button = use_node_ref();
    {
        let search_box = search_box.clone();
        use_effect_with((), move |_| focus(&search_box));
    }
    {
        let confirm_button = confirm_button.clone();
        use_effect_with(*confirm, move |_| focus(&confirm_button));
    }

    let hits: Vec<Hit> =
        search.borrow_mut().search(&query, if *show_all { usize::MAX } else { SHOWN });
    let by_id: std::collections::HashMap<&str, &ChatSummary> =
        props.chats.iter().map(|c| (c.id.as_str(), c)).collect();
    // Selected chats that are gone (deleted elsewhere) are not counted.
    let chosen: Vec<String> =
        props.chats.iter().filter(|c| selected.contains(&c.id)).map(|c| c.id.clone()).collect();

    let toolbar = toolbar(props);
    let status = status_line(props);
    if props.chats.is_empty() {
        return html! {
            <section class="history">
                { toolbar }
                <div aria-live="polite">{ status }</div>
                <p class="empty-history">{ message("panelNoSavedChats", &[]) }</p>
            </section>
        };
    }

    let on_query = {
        let (query, show_all) = (query.clone(), show_all.clone());
        Callback::from(move |e: InputEvent| {
            query.set(e.target_unchecked_into::<HtmlInputElement>().value());
            show_all.set(false);
        })
    };
    let on_search_key = search_keys(&query, &props.on_open, hits.first().map(|h| h.id.clone()));
    let on_list_key = Callback::from(list_keys);
    let shown = if *show_all { hits.len() } else { hits.len().min(SHOWN) };
    let rows = Rows::new(props, &editing, &exporting, &selected);
    let rows: Html = hits
        .iter()
        .take(shown)
        .filter_map(|hit| Some(rows.row(hit, by_id.get(hit.id.as_str())?)))
        .collect();

    let ask = |which: Confirm| {
        let confirm = confirm.clone();
        Callback::from(move |_: MouseEvent| confirm.set(Some(which)))
    };
    let confirm_bar = confirm
        .map(|which| confirm_bar(props, which, &chosen, &confirm, &selected, &confirm_button));
    let clear_selection = {
        let selected = selected.clone();
        Callback::from(move |_: MouseEvent| selected.set(HashSet::new()))
    };
    let more = (hits.len() > shown).then(|| {
        let show_all = show_all.clone();
        let onclick = Callback::from(move |_: MouseEvent| show_all.set(true));
        html! { <button type="button" class="link show-all" {onclick}>{ message("panelShowAllHits", &[&hits.len().to_string()]) }</button> }
    });
    let searching = !query.trim().is_empty();
    // Every part that comes and goes has a place of its own that stays: Yew matches unkeyed
    // children from the end, so a sibling appearing would replace the search box (and take
    // its focus) instead.
    html! {
        <section class="history">
            <h2>{ message("panelHistory", &[]) }</h2>
            { toolbar }
            <div aria-live="polite">{ status }</div>
            <div class="history-search">
                <input id="chat-search" type="search" value={(*query).clone()} oninput={on_query}
                    onkeydown={on_search_key} placeholder={message("panelSearchHint", &[])}
                    aria-label={message("panelSearchChats", &[])} autocomplete="off" ref={search_box}
                    data-testid="chat-search" />
                <span class="count" aria-live="polite" data-testid="search-count">
                    if searching {
                        { message("panelSearchCount", &[&hits.len().to_string(), &props.chats.len().to_string()]) }
                    }
                </span>
            </div>
            <div class="selection-bar">
                if !chosen.is_empty() {
                    <button type="button" class="danger small" onclick={ask(Confirm::Selected)} data-testid="delete-selected">
                        { message("panelDeleteSelected", &[&chosen.len().to_string()]) }</button>
                    <button type="button" class="secondary small" onclick={clear_selection}>{ message("panelClearSelection", &[]) }</button>
                }
            </div>
            <div class="confirm-slot">{ for confirm_bar }</div>
            <div class="no-matches">
                if searching && hits.is_empty() {
                    <p class="empty-history" data-testid="no-matches">{ message("panelNoMatches", &[query.trim()]) }</p>
                }
            </div>
            <ul class="history-list" onkeydown={on_list_key}>{ rows }</ul>
            <div class="more">{ for more }</div>
            <div class="history-footer">
                <button type="button" class="link danger-link" onclick={ask(Confirm::All)} data-testid="delete-all-chats">
                    { message("panelDeleteAllChats", &[]) }</button>
            </div>
        </section>
    }
}

/// Export every chat (JSON, Markdown) and import chats.
fn toolbar(props: &Props) -> Html {
    let on_import = {
        let cb = props.on_import.clone();
        Callback::from(move |e: Event| {
            let input = e.target_unchecked_into::<HtmlInputElement>();
            if let Some(file) = input.files().and_then(|files| files.get(0)) {
                cb.emit(file);
            }
            // Picking the same file again must fire `change` again.
            input.set_value("");
        })
    };
    let export_all =
        |markdown: bool| props.on_export.reform(move |_: MouseEvent| ExportAsked::All { markdown });
    html! {
        <div class="history-tools">
            <button type="button" class="secondary small" onclick={export_all(false)}
                disabled={props.chats.is_empty()} data-testid="export-all-json">{ message("panelExportAllJson", &[]) }</button>
            <button type="button" class="secondary small" onclick={export_all(true)}
                disabled={props.chats.is_empty()} data-testid="export-all-markdown">{ message("panelExportAllMarkdown", &[]) }</button>
            <label class="button secondary small file-button">
                { message("panelImportChats", &[]) }
                <input type="file" accept=".json,application/json" class="visually-hidden"
                    data-testid="import-chats" onchange={on_import} />
            </label>
        </div>
    }
}

/// What the last export or import came to.
fn status_line(props: &Props) -> Html {
    match &props.status {
        Some((text, true)) => {
            html! { <p class="note error" role="alert" data-testid="history-status">{ text }</p> }
        }
        Some((text, false)) => {
            html! { <p class="note ok" data-testid="history-status">{ text }</p> }
        }
        None => html! {},
    }
}

/// Up and down move among the chats' open buttons.
fn list_keys(e: KeyboardEvent) {
    if matches!(e.key().as_str(), "ArrowDown" | "ArrowUp")
        && e.target_unchecked_into::<web_sys::Element>().class_name() == "open"
    {
        e.prevent_default();
        move_focus(e.key() == "ArrowDown");
    }
}

/// The search box's keys: down into the list, Enter opens the first hit, Escape clears.
fn search_keys(
    query: &UseStateHandle<String>,
    on_open: &Callback<String>,
    first: Option<String>,
) -> Callback<KeyboardEvent> {
    let (query, on_open) = (query.clone(), on_open.clone());
    Callback::from(move |e: KeyboardEvent| match e.key().as_str() {
        "ArrowDown" => {
            e.prevent_default();
            move_focus(true);
        }
        "Enter" => {
            if let Some(id) = &first {
                on_open.emit(id.clone());
            }
        }
        "Escape" if !query.is_empty() => {
            e.prevent_default();
            query.set(String::new());
        }
        _ => {}
    })
}

/// A date as the person's locale writes it.
fn when(ms: u64) -> String {
    let date = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(ms as f64));
    DATES
        .with(|format| format.call1(&wasm_bindgen::JsValue::NULL, &date))
        .ok()
        .and_then(|text| text.as_string())
        .unwrap_or_default()
}

/// What every row needs: the list's props and state, and the words every row shares, looked up
/// once a render rather than once a row (each is a call into chrome.i18n, and a keystroke
/// renders up to SHOWN rows).
struct Rows<'a> {
    props: &'a Props,
    editing: UseStateHandle<Option<String>>,
    exporting: UseStateHandle<Option<String>>,
    selected: UseStateHandle<HashSet<String>>,
    rename: AttrValue,
    export: AttrValue,
    delete: AttrValue,
    untitled: AttrValue,
}

impl<'a> Rows<'a> {
    fn new(
        props: &'a Props,
        editing: &UseStateHandle<Option<String>>,
        exporting: &UseStateHandle<Option<String>>,
        selected: &UseStateHandle<HashSet<String>>,
    ) -> Self {
        Rows {
            props,
            editing: editing.clone(),
            exporting: exporting.clone(),
            selected: selected.clone(),
            rename: message("panelRename", &[]).into(),
            export: message("panelExportChat", &[]).into(),
            delete: message("panelDelete", &[]).into(),
            untitled: message("panelUntitled", &[]).into(),
        }
    }

    /// One chat: select, open (or rename in place), its date, rename, export, delete.
    fn row(&self, hit: &Hit, chat: &ChatSummary) -> Html {
        let props = self.props;
        let id = chat.id.clone();
        let title =
            if chat.title.is_empty() { self.untitled.to_string() } else { chat.title.clone() };
        let start_edit = {
            let (editing, id) = (self.editing.clone(), id.clone());
            Callback::from(move |_: MouseEvent| editing.set(Some(id.clone())))
        };
        let toggle_export = {
            let (exporting, id) = (self.exporting.clone(), id.clone());
            Callback::from(move |_: MouseEvent| {
                exporting.set(if exporting.as_deref() == Some(id.as_str()) {
                    None
                } else {
                    Some(id.clone())
                })
            })
        };
        let delete = props.on_delete.reform({
            let id = id.clone();
            move |_: MouseEvent| vec![id.clone()]
        });
        let on_select = {
            let (selected, id) = (self.selected.clone(), id.clone());
            Callback::from(move |e: Event| {
                let mut next = (*selected).clone();
                if e.target_unchecked_into::<HtmlInputElement>().checked() {
                    next.insert(id.clone());
                } else {
                    next.remove(&id);
                }
                selected.set(next);
            })
        };
        let export_open = self.exporting.as_deref() == Some(id.as_str());
        html! {
            <li key={chat.id.clone()} class={classes!((chat.id == props.current).then_some("current"))} data-testid="saved-chat">
                <div class="row">
                    <input type="checkbox" class="select" checked={self.selected.contains(&id)} onchange={on_select}
                        aria-label={message("panelSelectChat", &[&title])} data-testid="select-chat" />
                    { self.title(hit, &id, &title) }
                    <span class="when">{ when(chat.updated_ms) }</span>
                    <button class="icon-button" onclick={start_edit} title={self.rename.clone()} aria-label={self.rename.clone()}>{ "✎" }</button>
                    <button class="icon-button" onclick={toggle_export} aria-expanded={export_open.to_string()}
                        title={self.export.clone()} aria-label={self.export.clone()} data-testid="export-chat">{ "⤓" }</button>
                    <button class="icon-button" onclick={delete} title={self.delete.clone()} aria-label={self.delete.clone()}>{ "✕" }</button>
                </div>
                <div class="export-choice">
                    if export_open {
                        <button type="button" class="secondary small" onclick={self.export_one(&id, false)}
                            aria-label={message("panelExportChatJson", &[&title])} data-testid="export-chat-json">{ message("panelExportJson", &[]) }</button>
                        <button type="button" class="secondary small" onclick={self.export_one(&id, true)}
                            aria-label={message("panelExportChatMarkdown", &[&title])} data-testid="export-chat-markdown">{ message("panelExportMarkdown", &[]) }</button>
                    }
                </div>
            </li>
        }
    }

    /// The chat's open button (title and search snippet), or its title being renamed.
    fn title(&self, hit: &Hit, id: &str, title: &str) -> Html {
        if self.editing.as_deref() == Some(id) {
            let (editing, on_rename, id) =
                (self.editing.clone(), self.props.on_rename.clone(), id.to_owned());
            let onkeydown = Callback::from(move |e: KeyboardEvent| {
                if e.key() == "Enter" {
                    let input: HtmlInputElement = e.target_unchecked_into();
                    on_rename.emit((id.clone(), input.value()));
                    editing.set(None);
                } else if e.key() == "Escape" {
                    editing.set(None);
                }
            });
            html! { <input class="rename" value={title.to_owned()} {onkeydown} data-testid="rename-input" autofocus=true /> }
        } else {
            let id = id.to_owned();
            let onclick = self.props.on_open.reform(move |_: MouseEvent| id.clone());
            html! {
                <button class="open" {onclick}>
                    <span class="title">{ title.to_owned() }</span>
                    if let Some(snippet) = &hit.snippet {
                        <span class="snippet" data-testid="search-snippet">{ snippet }</span>
                    }
                </button>
            }
        }
    }

    fn export_one(&self, id: &str, markdown: bool) -> Callback<MouseEvent> {
        let (id, exporting) = (id.to_owned(), self.exporting.clone());
        self.props.on_export.reform(move |_: MouseEvent| {
            exporting.set(None);
            ExportAsked::Chat { id: id.clone(), markdown }
        })
    }
}

/// Delete the selected chats, or all of them? Yes deletes and clears the selection.
fn confirm_bar(
    props: &Props,
    which: Confirm,
    chosen: &[String],
    confirm: &UseStateHandle<Option<Confirm>>,
    selected: &UseStateHandle<HashSet<String>>,
    confirm_button: &NodeRef,
) -> Html {
    let (ids, question) = match which {
        Confirm::All => (
            props.chats.iter().map(|c| c.id.clone()).collect::<Vec<_>>(),
            message("panelDeleteAllAsk", &[&props.chats.len().to_string()]),
        ),
        Confirm::Selected => {
            (chosen.to_vec(), message("panelDeleteSelectedAsk", &[&chosen.len().to_string()]))
        }
    };
    let on_yes = {
        let (confirm, selected, cb) = (confirm.clone(), selected.clone(), props.on_delete.clone());
        Callback::from(move |_: MouseEvent| {
            cb.emit(ids.clone());
            selected.set(HashSet::new());
            confirm.set(None);
        })
    };
    let on_no = {
        let confirm = confirm.clone();
        Callback::from(move |_: MouseEvent| confirm.set(None))
    };
    html! {
        <div class="confirm-delete" role="alertdialog" aria-label={question.clone()} data-testid="confirm-delete">
            <p>{ question }</p>
            <button type="button" class="danger small" onclick={on_yes} ref={confirm_button.clone()} data-testid="confirm-delete-yes">{ message("panelDeleteConfirm", &[]) }</button>
            <button type="button" class="secondary small" onclick={on_no}>{ message("panelCancel", &[]) }</button>
        </div>
    }
}
