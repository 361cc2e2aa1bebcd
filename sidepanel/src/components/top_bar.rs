use std::rc::Rc;

use gemipanel_browser::chrome::message;
use gemipanel_core::gemini::ModelInfo;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

use super::model_options::ModelOptions;
use crate::hooks::use_select_value;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub models: Option<Rc<Vec<ModelInfo>>>,
    /// The chat's own choice; `None` follows the default.
    pub chosen: Option<String>,
    /// What the default stands for now (the settings' model or the automatic one).
    pub default_model: String,
    pub history_open: bool,
    pub tools_open: bool,
    /// The chat's model; empty: the default.
    pub on_model: Callback<String>,
    pub on_new_chat: Callback<()>,
    pub on_history: Callback<bool>,
    pub on_tools: Callback<bool>,
}

/// Title, model picker, new chat and history.
#[function_component]
pub fn TopBar(props: &Props) -> Html {
    let on_model =
        props.on_model.reform(|e: Event| e.target_unchecked_into::<HtmlSelectElement>().value());
    let on_new = props.on_new_chat.reform(|_: MouseEvent| ());
    let open = props.history_open;
    let on_history = props.on_history.reform(move |_: MouseEvent| !open);
    let tools_open = props.tools_open;
    let on_tools = props.on_tools.reform(move |_: MouseEvent| !tools_open);
    let models = props.models.as_deref().map(Vec::as_slice).unwrap_or_default();
    let value = props.chosen.clone().unwrap_or_default();
    let select = use_select_value(value.clone());
    html! {
        <header class="topbar">
            <img class="logo" src="icons/icon32.png" alt="" />
            <h1>{ message("appTitle", &[]) }</h1>
            <select ref={select} class="model-picker" onchange={on_model} data-testid="model" aria-label={message("panelModel", &[])}>
                <ModelOptions models={models.to_vec()} value={value}
                    default_label={message("panelModelDefault", &[&name_of(models, &props.default_model)])} />
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

/// A model's display name from the list, else its id.
pub fn name_of(models: &[ModelInfo], id: &str) -> String {
    models.iter().find(|m| m.id == id).map_or_else(|| id.to_owned(), |m| m.display_name.clone())
}
