//! A changed resource read again (the mark's Refresh): attached fresh to the next message, as
//! the `@` menu attaches one; what failed or was cut said in the transcript.

use std::rc::Rc;

use gemipanel_browser::chrome::{message, word};
use gemipanel_browser::port::WorkerPort;
use gemipanel_core::mentions;
use gemipanel_core::messages::{Request, Response};
use gemipanel_core::resource_updates::FollowedResource;
use gemipanel_core::settings::Settings;
use yew::UseReducerDispatcher;

use crate::state::{Action, State};

/// Reads `resource` (shown as `title`) again and attaches it; its mark goes with the fresh
/// chip (`Action::Attach`).
pub fn refresh(
    port: Rc<WorkerPort>,
    settings: Option<Rc<Settings>>,
    resource: FollowedResource,
    title: String,
    dispatcher: UseReducerDispatcher<State>,
) {
    let server = settings.as_ref().and_then(|s| s.server(&resource.server_id).cloned());
    let Some(server) = server else {
        let gone = message("panelResourceServerGone", &[&title]);
        return dispatcher.dispatch(Action::Notice(gone));
    };
    wasm_bindgen_futures::spawn_local(async move {
        let request = Request::ReadResource {
            server_id: resource.server_id.clone(),
            uri: resource.uri.clone(),
        };
        let error = match port.request(request).await {
            Ok(Response::Resource { result }) => {
                let attached =
                    mentions::attach(&server.id, &server.name, &title, &resource.uri, &result);
                dispatcher.dispatch(Action::Attach(Rc::new(attached.part)));
                for notice in &attached.notices {
                    dispatcher.dispatch(Action::Notice(word(notice)));
                }
                // The button went with the mark: the keyboard goes on in the composer.
                focus_input();
                return;
            }
            Ok(Response::Error { error } | Response::SignInNeeded { error, .. }) => word(&error),
            Ok(_) => message("errWorkerUnexpectedAnswer", &[]),
            Err(err) => err.to_string(),
        };
        dispatcher
            .dispatch(Action::Notice(message("panelResourceRefreshFailed", &[&title, &error])));
    });
}

fn focus_input() {
    use wasm_bindgen::JsCast;
    let input = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector("[data-testid='input']").ok().flatten())
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
    if let Some(input) = input {
        let _ = input.focus();
    }
}
