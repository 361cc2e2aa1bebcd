//! Turns each page request into a response. `port` is the page's port when the request came on
//! one (events for the request go there), `None` for a one-shot message.

use gemipanel_browser::chrome::{self, Port};
use gemipanel_core::messages::{Request, Response, WorkerStatus};

use crate::{calls, servers, settings, store};

pub async fn route(request: Request, port: Option<Port>) -> Response {
    // Requests that need no settings.
    let request = match request {
        Request::EditSettings { edit } => return settings::edit(edit).await,
        Request::CancelToolCall { call_id } => return servers::cancel(&call_id),
        Request::TestConnection { draft } => return servers::test_connection(draft).await,
        Request::AnswerElicitation { elicitation_id, result } => {
            return if calls::answer(&elicitation_id, result) {
                Response::Ok
            } else {
                Response::Error {
                    message: "that question is no longer waiting for an answer".into(),
                }
            };
        }
        Request::DismissSettingsProblem => {
            return match store::dismiss_problem().await {
                Ok(()) => Response::Ok,
                Err(message) => Response::Error { message },
            };
        }
        other => other,
    };
    let settings = match store::read().await {
        Ok(settings) => settings,
        Err(message) => return Response::Error { message },
    };
    match request {
        Request::Status => Response::Status(WorkerStatus {
            extension_version: chrome::extension_version(),
            uptime_ms: crate::uptime_ms(),
            configured_servers: settings.servers.len() as u32,
        }),
        Request::GetSettings => Response::Settings { settings: (*settings).clone() },
        Request::ListServers => servers::list(settings).await,
        Request::ListTools { server_id, refresh } => {
            servers::tools(settings, server_id, refresh).await
        }
        Request::CallTool { call_id, server_id, tool, arguments } => {
            servers::call(settings, port, call_id, server_id, tool, arguments).await
        }
        Request::ReadResource { server_id, uri } => {
            servers::read_resource(settings, server_id, uri).await
        }
        // Handled above.
        Request::EditSettings { .. }
        | Request::CancelToolCall { .. }
        | Request::TestConnection { .. }
        | Request::AnswerElicitation { .. }
        | Request::DismissSettingsProblem => Response::Error { message: "unreachable".into() },
    }
}
