//! One configured server: status, name, address, tool count, Edit and Remove.

use gemipanel_browser::chrome::{counted_message, message, word};
use gemipanel_core::messages::{ServerStatus, ServerView};
use gemipanel_core::settings::ServerId;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub server: ServerView,
    /// The person clicked Remove and has to confirm.
    pub confirming: bool,
    pub on_edit: Callback<ServerId>,
    pub on_remove: Callback<ServerId>,
    pub on_confirm: Callback<ServerId>,
    pub on_cancel: Callback<()>,
    /// Asks for access to an origin the browser refused (inside the click).
    pub on_allow: Callback<String>,
}

/// The dot's colour class, the status in words, and the `data-state` tests look for.
pub fn status_parts(status: &ServerStatus) -> (&'static str, String, &'static str) {
    match status {
        ServerStatus::Idle => ("", message("popupStatusIdle", &[]), "idle"),
        ServerStatus::Connecting => {
            ("pending", message("popupStatusConnecting", &[]), "connecting")
        }
        ServerStatus::Ready { .. } => ("ok", message("popupStatusReady", &[]), "ready"),
        ServerStatus::NeedsSignIn => ("pending", message("popupStatusSignIn", &[]), "sign-in"),
        ServerStatus::NeedsPermission { .. } => {
            ("pending", message("popupStatusNeedsPermission", &[]), "needs-permission")
        }
        ServerStatus::Error { error } => {
            ("error", message("popupStatusError", &[&word(error)]), "error")
        }
    }
}

#[function_component]
pub fn ServerRow(props: &Props) -> Html {
    let server = &props.server;
    let (dot, status, state) = status_parts(&server.status);
    let id = server.id.clone();
    let click = |cb: &Callback<ServerId>| {
        let (cb, id) = (cb.clone(), id.clone());
        Callback::from(move |_: MouseEvent| cb.emit(id.clone()))
    };
    let tools = server
        .tool_count
        .map(|n| counted_message("popupToolCount", n as usize, &[&n.to_string()]))
        .unwrap_or_default();
    html! {
        <li class="server" data-testid="server-row" data-name={server.name.clone()}
            data-state={state}>
            <span class={classes!("dot", dot)} title={status.clone()} aria-hidden="true"></span>
            <div class="server-main">
                <div class="server-name">{ &server.name }</div>
                <div class="server-url" title={server.url.clone()}>{ &server.url }</div>
                <div class={classes!("server-status", (state == "error").then_some("error"))}>
                    { status }
                    if !tools.is_empty() { { " · " }<span data-testid="tool-count">{ tools }</span> }
                </div>
                if let ServerStatus::NeedsPermission { origin } = &server.status {
                    <button type="button" class="primary small" data-testid="allow-access"
                        onclick={{ let (cb, origin) = (props.on_allow.clone(), origin.clone());
                                   Callback::from(move |_: MouseEvent| cb.emit(origin.clone())) }}>
                        { message("popupAllowAccess", &[]) }</button>
                }
            </div>
            if props.confirming {
                <div class="confirm" role="group" aria-label={message("popupConfirmRemove", &[&server.name])}>
                    <span class="confirm-text">{ message("popupConfirmRemove", &[&server.name]) }</span>
                    <button type="button" class="danger" onclick={click(&props.on_confirm)}>
                        { message("popupRemove", &[]) }</button>
                    <button type="button" class="secondary"
                        onclick={props.on_cancel.reform(|_: MouseEvent| ())}>
                        { message("popupCancel", &[]) }</button>
                </div>
            } else {
                <div class="row-actions">
                    <button type="button" class="secondary" onclick={click(&props.on_edit)}
                        aria-label={message("popupEditNamed", &[&server.name])}>
                        { message("popupEdit", &[]) }</button>
                    <button type="button" class="secondary" onclick={click(&props.on_remove)}
                        aria-label={message("popupRemoveNamed", &[&server.name])}>
                        { message("popupRemove", &[]) }</button>
                </div>
            }
        </li>
    }
}
