use std::rc::Rc;

use gemipanel_browser::chrome::message;
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::state::ChatSummary;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub chats: Rc<Vec<ChatSummary>>,
    pub current: String,
    pub on_open: Callback<String>,
    pub on_rename: Callback<(String, String)>,
    pub on_delete: Callback<String>,
}

/// Saved chats, most recent first: open, rename in place, delete.
#[function_component]
pub fn HistoryList(props: &Props) -> Html {
    let editing = use_state(|| None::<String>);
    if props.chats.is_empty() {
        return html! { <p class="empty-history">{ message("panelNoSavedChats", &[]) }</p> };
    }
    let when = |ms: u64| -> String {
        let date = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(ms as f64));
        date.to_locale_date_string("default", &wasm_bindgen::JsValue::UNDEFINED).into()
    };
    let rows = props.chats.iter().map(|chat| {
        let id = chat.id.clone();
        let title = if chat.title.is_empty() { message("panelUntitled", &[]) } else { chat.title.clone() };
        let row = if editing.as_deref() == Some(id.as_str()) {
            let (editing, on_rename, id) = (editing.clone(), props.on_rename.clone(), id.clone());
            let onkeydown = Callback::from(move |e: KeyboardEvent| {
                if e.key() == "Enter" {
                    let input: HtmlInputElement = e.target_unchecked_into();
                    on_rename.emit((id.clone(), input.value()));
                    editing.set(None);
                } else if e.key() == "Escape" {
                    editing.set(None);
                }
            });
            html! { <input class="rename" value={title} {onkeydown} data-testid="rename-input" autofocus=true /> }
        } else {
            let onclick = props.on_open.reform({ let id = id.clone(); move |_: MouseEvent| id.clone() });
            html! { <button class="open" {onclick}>{ title }</button> }
        };
        let start_edit = { let (editing, id) = (editing.clone(), id.clone()); Callback::from(move |_: MouseEvent| editing.set(Some(id.clone()))) };
        let delete = props.on_delete.reform({ let id = id.clone(); move |_: MouseEvent| id.clone() });
        html! {
            <li key={chat.id.clone()} class={classes!((chat.id == props.current).then_some("current"))} data-testid="saved-chat">
                { row }
                <span class="when">{ when(chat.updated_ms) }</span>
                <button class="icon-button" onclick={start_edit} title={message("panelRename", &[])} aria-label={message("panelRename", &[])}>{ "✎" }</button>
                <button class="icon-button" onclick={delete} title={message("panelDelete", &[])} aria-label={message("panelDelete", &[])}>{ "✕" }</button>
            </li>
        }
    });
    html! {
        <section class="history">
            <h2>{ message("panelHistory", &[]) }</h2>
            <ul class="history-list">{ for rows }</ul>
        </section>
    }
}
