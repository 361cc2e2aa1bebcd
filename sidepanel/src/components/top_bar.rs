use std::rc::Rc;

use gemipanel_browser::chrome::message;
use gemipanel_core::gemini::ModelInfo;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub models: Rc<Vec<ModelInfo>>,
    pub model: String,
    pub history_open: bool,
    pub tools_open: bool,
    pub on_model: Callback<String>,
    pub on_new_chat: Callback<()>,
    pub on_history: Callback<bool>,
    pub on_tools: Callback<bool>,
}

/// Title, model picker, new chat and history.
#[function_component]
pub fn TopBar(props: &Props) -> Html {
    let mut options: Vec<(String, String)> =
        props.models.iter().map(|m| (m.id.clone(), m.display_name.clone())).collect();
    if !options.iter().any(|(id, _)| *id == props.model) {
        options.insert(0, (props.model.clone(), props.model.clone()));
    }
    let options = options.into_iter().map(|(id, name)| {
        html! { <option value={id.clone()} selected={id == props.model}>{ name }</option> }
    });
    let on_model =
        props.on_model.reform(|e: Event| e.target_unchecked_into::<HtmlSelectElement>().value());
    let on_new = props.on_new_chat.reform(|_: MouseEvent| ());
    let open = props.history_open;
    let on_history = props.on_history.reform(move |_: MouseEvent| !open);
    let tools_open = props.tools_open;
    let on_tools = props.on_tools.reform(move |_: MouseEvent| !tools_open);
    html! {
        <header class="topbar">
            <img class="logo" src="icons/icon32.png" alt="" />
            <h1>{ message("appTitle", &[]) }</h1>
            <select class="model-picker" onchange={on_model} data-testid="model" aria-label={message("panelModel", &[])}>
                { for options }
            </select>
            <button type="button" class={classes!("icon-button", tools_open.then_some("active"))} onclick={on_tools}
                data-testid="tools" title={message("panelToolsTitle", &[])} aria-label={message("panelToolsTitle", &[])}>{ "⚒" }</button>
            <button type="button" class={classes!("icon-button", open.then_some("active"))} onclick={on_history}
                data-testid="history" title={message("panelHistory", &[])} aria-label={message("panelHistory", &[])}>{ "☰" }</button>
            <button type="button" class="icon-button" onclick={on_new} data-testid="new-chat"
                title={message("panelNewChat", &[])} aria-label={message("panelNewChat", &[])}>{ "＋" }</button>
        </header>
    }
}
