//! Turns each page request into a response. `port` is the page's port when the request came on
//! one (events for the request go there), `None` for a one-shot message.
//!
//! Each handler runs as a boxed future of its own, so one request kind's state does not make
//! every other's larger.

use std::future::{ready, Future};
use std::pin::Pin;
use std::rc::Rc;

use gemipanel_browser::chrome::{self, Port};
use gemipanel_core::messages::{Request, Response, WorkerStatus};
use gemipanel_core::settings::Settings;
use gemipanel_core::text::Text;

use crate::{calls, passphrase, servers, settings, store, vault};

type Handling = Pin<Box<dyn Future<Output = Response>>>;

fn boxed(handling: impl Future<Output = Response> + 'static) -> Handling {
    Box::pin(handling)
}

pub fn route(request: Request, port: Option<Port>) -> Handling {
    match request {
        // Requests that need no settings.
        Request::EditSettings { edit } => boxed(settings::edit(edit)),
        Request::CancelToolCall { call_id } => boxed(ready(servers::cancel(&call_id))),
        Request::TestConnection { draft, run } => boxed(servers::test_connection(draft, run)),
        Request::AnswerElicitation { elicitation_id, result } => {
            boxed(ready(if calls::answer(&elicitation_id, result) {
                Response::Ok
            } else {
                Response::Error { error: Text::new("errElicitationGone") }
            }))
        }
        Request::ExportSettings { include_secrets } => boxed(settings::export(include_secrets)),
        Request::RecoverSettings { action } => boxed(settings::recover(action)),
        Request::SettingsSync { enabled } => boxed(crate::settings_sync::request(enabled)),
        Request::SetPassphrase { passphrase, current } => {
            boxed(async move { done(passphrase::rekey(Some(&passphrase), current.as_ref()).await) })
        }
        Request::RemovePassphrase { passphrase } => {
            boxed(async move { done(passphrase::rekey(None, Some(&passphrase)).await) })
        }
        Request::Unlock { passphrase } => {
            boxed(async move { done(passphrase::unlock(&passphrase).await) })
        }
        // Locked too: a forgotten passphrase must not keep the data in.
        Request::DeleteEverything => boxed(crate::reset::delete_everything()),
        other => boxed(with_settings(other, port)),
    }
}

fn done(result: Result<(), Text>) -> Response {
    match result {
        Ok(()) => Response::Ok,
        Err(error) => Response::Error { error },
    }
}

async fn with_settings(request: Request, port: Option<Port>) -> Response {
    let settings = match store::read().await {
        Ok(settings) => settings,
        Err(error) => return Response::Error { error },
    };
    // Locked secrets (`vault`): nothing that sends one to a server runs until they are opened.
    let needs_secrets = matches!(
        request,
        Request::ListTools { .. }
            | Request::CallTool { .. }
            | Request::ListResources { .. }
            | Request::ReadResource { .. }
            | Request::ReadApp { .. }
            | Request::ListResourcePage { .. }
            | Request::ListResourceTemplates { .. }
            | Request::FollowResources { .. }
            | Request::ListPrompts { .. }
            | Request::GetPrompt { .. }
            | Request::Complete { .. }
            | Request::SignIn { .. }
            | Request::SignOut { .. }
    );
    if needs_secrets && vault::is_locked().await {
        return Response::Error { error: Text::new("errVaultLocked") };
    }
    with(settings, request, port).await
}

async fn status(settings: Rc<Settings>) -> Response {
    Response::Status(WorkerStatus {
        extension_version: chrome::extension_version(),
        uptime_ms: crate::worker::uptime_ms(),
        configured_servers: settings.servers.len() as u32,
        vault: vault::state().await,
    })
}

/// The requests that need the settings, each a future of its own (see the top of the module).
fn with(settings: Rc<Settings>, request: Request, port: Option<Port>) -> Handling {
    match request {
        Request::Status => boxed(status(settings)),
        Request::GetSettings => boxed(ready(Response::Settings { settings: settings.for_pages() })),
        Request::ListServers => boxed(servers::list(settings)),
        Request::ListTools { server_id, refresh } => {
            boxed(servers::tools(settings, server_id, refresh))
        }
        Request::CallTool { call_id, server_id, tool, arguments, caller, consent } => {
            let call = servers::Call { call_id, server_id, tool, arguments, caller, consent };
            boxed(servers::call(settings, port, call))
        }
        Request::ListResources { server_id } => boxed(servers::resources(settings, server_id)),
        Request::ReadResource { server_id, uri } => {
            boxed(servers::read_resource(settings, server_id, uri))
        }
        Request::ReadApp { server_id, uri, held } => {
            boxed(servers::read_app(settings, server_id, uri, held))
        }
        Request::ListResourcePage { server_id, cursor } => {
            boxed(servers::resource_page(settings, server_id, cursor))
        }
        Request::ListResourceTemplates { server_id } => {
            boxed(servers::resource_templates(settings, server_id))
        }
        Request::FollowResources { resources } => {
            boxed(ready(crate::resource_watch::follow(port, resources)))
        }
        Request::ListPrompts { server_id } => boxed(servers::prompts(settings, server_id)),
        Request::GetPrompt { server_id, name, arguments } => {
            boxed(servers::get_prompt(settings, server_id, name, arguments))
        }
        Request::Complete { server_id, reference, argument, value, filled } => {
            boxed(servers::complete(settings, server_id, reference, argument, value, filled))
        }
        Request::SignIn { server_id } => boxed(servers::sign_in(settings, server_id)),
        Request::SignOut { server_id } => boxed(servers::sign_out(settings, server_id)),
        Request::ServerLog { server_id } => boxed(servers::log(settings, server_id)),
        Request::PreviewCommand { server_id, local } => {
            boxed(servers::preview_command(settings, server_id, local))
        }
        // Routed by `route`.
        Request::EditSettings { .. }
        | Request::CancelToolCall { .. }
        | Request::TestConnection { .. }
        | Request::AnswerElicitation { .. }
        | Request::ExportSettings { .. }
        | Request::RecoverSettings { .. }
        | Request::SettingsSync { .. }
        | Request::SetPassphrase { .. }
        | Request::RemovePassphrase { .. }
        | Request::Unlock { .. }
        | Request::DeleteEverything => boxed(ready(Response::Error {
            error: Text::new("errWorkerBadRequest").arg("misrouted"),
        })),
    }
}
