//! The MCP servers card: the list, or the add/edit form in its place.

use gemipanel_browser::chrome::message;
use gemipanel_core::messages::ServerView;
use gemipanel_core::settings::ServerId;
use yew::prelude::*;

use super::server_row::ServerRow;

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
                            on_allow={props.on_allow.clone()} />
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
