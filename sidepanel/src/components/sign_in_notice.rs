//! A notice that a server's tools are missing until the person signs in: it carries the
//! Sign in (and, once signed in, a Retry that sends the turn again with the server's tools).

use gemipanel_browser::chrome::message;
use yew::prelude::*;

use crate::state::{NoticeSignIn, SignInStep};

#[derive(Properties, PartialEq)]
pub struct Props {
    pub text: String,
    pub offer: NoticeSignIn,
    /// (server id, the origin to allow first).
    pub on_sign_in: Callback<(String, Option<String>)>,
    /// Sends the turn again; `None` when this notice's turn is not the last or one runs.
    pub on_retry: Option<Callback<()>>,
}

#[function_component]
pub fn SignInNoticeView(props: &Props) -> Html {
    let offer = &props.offer;
    let name = offer.server_name.as_str();
    let body = match &offer.step {
        SignInStep::Offered { problem, origin } => {
            let onclick = {
                let (id, origin) = (offer.server_id.clone(), origin.clone());
                props.on_sign_in.reform(move |_: MouseEvent| (id.clone(), origin.clone()))
            };
            let label = if origin.is_some() {
                message("panelAllowAndSignIn", &[])
            } else {
                message("panelSignIn", &[name])
            };
            html! {
                <>
                    if let Some(problem) = problem {
                        <p class="detail" data-testid="sign-in-problem">{ problem }</p>
                    }
                    <button type="button" class="primary" {onclick} data-testid="notice-sign-in">
                        { label }</button>
                </>
            }
        }
        SignInStep::Busy => html! {
            <p class="detail" data-state="busy"><span class="spinner" aria-hidden="true"></span>
                { message("panelNoticeSigningIn", &[]) }</p>
        },
        SignInStep::SignedIn => {
            let retry = props.on_retry.as_ref().map(|on| {
                let onclick = on.reform(|_: MouseEvent| ());
                html! {
                    <button type="button" class="primary" {onclick} data-testid="notice-retry">
                        { message("panelRetryWithTools", &[]) }</button>
                }
            });
            html! {
                <>
                    <p class="detail" data-testid="signed-in">{ message("panelNoticeSignedIn", &[name]) }</p>
                    { for retry }
                </>
            }
        }
    };
    let state = match offer.step {
        SignInStep::Offered { .. } => "offered",
        SignInStep::Busy => "busy",
        SignInStep::SignedIn => "signed-in",
    };
    html! {
        <div class="notice sign-in-notice" data-testid="sign-in-notice" data-state={state}>
            <p>{ props.text.clone() }</p>
            { body }
        </div>
    }
}
