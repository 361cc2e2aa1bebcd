//! What "Test connection" found: the tools, a sign-in request, or the error.

use gemipanel_browser::chrome::{counted_message, message, word};
use gemipanel_core::mcp::InvalidTool;
use gemipanel_core::messages::ConnectionOutcome;
use yew::prelude::*;

use crate::state::Pending;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub test: Pending<ConnectionOutcome>,
}

#[function_component]
pub fn TestResult(props: &Props) -> Html {
    let body = match &props.test {
        Pending::Idle => return html! { <div aria-live="polite" data-testid="test-result"></div> },
        Pending::Running => html! {
            <p class="note" data-state="running">
                <span class="spinner" aria-hidden="true"></span>{ message("popupTesting", &[]) }
            </p>
        },
        // Already a sentence: a prompt refused (nothing was tested), or a failure in words.
        Pending::Failed(sentence) => error_line(sentence),
        Pending::Done(ConnectionOutcome::Failed { error }) => {
            error_line(&message("popupTestFailed", &[&word(error)]))
        }
        Pending::Done(ConnectionOutcome::NeedsSignIn { issuer }) => html! {
            <p class="note warn" data-state="sign-in">
                { message("popupTestNeedsSignIn", &[]) }
                if let Some(issuer) = issuer {
                    { " " }{ message("popupTestIssuer", &[issuer]) }
                }
            </p>
        },
        // Test asks for the permission in its click; refused, or revoked since.
        Pending::Done(ConnectionOutcome::NeedsPermission { origin }) => html! {
            <p class="note warn" data-state="needs-permission">
                { message("popupTestNeedsPermission", &[origin]) }</p>
        },
        Pending::Done(ConnectionOutcome::Connected { server_name, tools, invalid, .. }) => {
            let name = server_name.clone().unwrap_or_default();
            html! {
                <div data-state="connected">
                    <p class="note ok">
                        { counted_message("popupTestConnected", tools.len(), &[&name, &tools.len().to_string()]) }
                    </p>
                    <ul class="chips" aria-label={message("popupToolsLabel", &[])}>
                        { for tools.iter().map(|t| html! {
                            <li class="chip" title={t.description.clone().unwrap_or_default()}>
                                { t.name.clone() }</li>
                        }) }
                    </ul>
                    { unreadable(invalid) }
                </div>
            }
        }
    };
    html! { <div class="test-result" aria-live="polite" data-testid="test-result">{ body }</div> }
}

/// Tools the server listed that could not be read: left out of the chat, named here so the
/// person can tell the server's author.
fn unreadable(invalid: &[InvalidTool]) -> Html {
    if invalid.is_empty() {
        return Html::default();
    }
    let count = invalid.len();
    html! {
        <div class="note warn" data-state="unreadable">
            <p>{ counted_message("popupTestUnreadable", count, &[&count.to_string()]) }</p>
            <ul class="unreadable">
                { for invalid.iter().map(|tool| html! {
                    <li>
                        if let Some(name) = &tool.name { <code>{ name.clone() }</code>{ " — " } }
                        { word(&tool.reason) }
                    </li>
                }) }
            </ul>
        </div>
    }
}

fn error_line(sentence: &str) -> Html {
    html! { <p class="note error" role="alert" data-state="failed">{ sentence }</p> }
}
