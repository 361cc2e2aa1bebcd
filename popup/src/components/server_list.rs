//! The MCP servers card: the list, or the add/edit form in its place.

use gemipanel_browser::chrome::message;
use gemipanel_core::messages::{ServerView, SignInOutcome};
use gemipanel_core::settings::ServerId;
use yew::prelude::*;

use super::server_row::ServerRow;
use crate::state::Pending;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub servers: Vec<ServerView>,
    pub confirm_remove: Option<ServerId>,
    /// Listing or removing failed.
    pub error: Option<String>,
    /// The form, when open, replaces the Add button.
    pub children: Html,
    pub form_open: bool,
    pub on_add: Callback<()>,
    pub on_edit: Callback<ServerId>,
    pub on_remove: Callback<ServerId>,
    pub on_confirm: Callback<ServerId>,
    pub on_cancel: Callback<()>,
    pub on_allow: Callback<String>,
    pub on_allow_local: Callback<()>,
    pub sign_in: Option<(ServerId, Pending<SignInOutcome>)>,
    pub on_sign_in: Callback<ServerId>,
    pub on_sign_out: Callback<ServerId>,
    pub on_allow_sign_in: Callback<(ServerId, String)>,
    pub allow_command: Option<(ServerId, Pending<()>)>,
    pub on_allow_command: Callback<(ServerId, String, String)>,
}

#[function_component]
pub fn ServerList(props: &Props) -> Html {
    html! {
        <section class="card" aria-labelledby="servers-heading">
            <h2 id="servers-heading">{ message("popupServersSection", &[]) }</h2>
            if props.servers.is_empty() {
                <p class="muted">{ message("popupNoServers", &[]) }</p>
            } else {
                <ul class="servers" data-testid="server-list">
                    { for props.servers.iter().map(|server| html! {
                        <ServerRow key={server.id.as_str()} server={server.clone()}
                            confirming={props.confirm_remove.as_ref() == Some(&server.id)}
                            on_edit={props.on_edit.clone()} on_remove={props.on_remove.clone()}
                            on_confirm={props.on_confirm.clone()} on_cancel={props.on_cancel.clone()}
                            on_allow={props.on_allow.clone()}
                            on_allow_local={props.on_allow_local.clone()}
                            sign_in={props.sign_in.as_ref().filter(|(id, _)| *id == server.id).map(|(_, s)| s.clone())}
                            on_sign_in={props.on_sign_in.clone()} on_sign_out={props.on_sign_out.clone()}
                            on_allow_sign_in={props.on_allow_sign_in.clone()}
                            allow_command={props.allow_command.as_ref().filter(|(id, _)| *id == server.id).map(|(_, p)| p.clone())}
                            on_allow_command={props.on_allow_command.clone()} />
                    }) }
                </ul>
            }
            if let Some(error) = &props.error {
                <p class="note error" role="alert">{ error }</p>
            }
            if props.form_open {
                { props.children.clone() }
            } else {
                <div class="actions">
                    <button type="button" class="primary" data-testid="add-server"
                        onclick={props.on_add.reform(|_: MouseEvent| ())}>
                        { message("popupAddServer", &[]) }</button>
                </div>
            }
        </section>
    }
}
