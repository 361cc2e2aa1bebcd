//! One configured server: status, name, address (or command line), tool count, sign-in, the
//! command line to allow, Edit and Remove.

use gemipanel_browser::chrome::{counted_message, message, word};
use gemipanel_core::mcp;
use gemipanel_core::messages::{ServerStatus, ServerView, SignInOutcome, SignedInView};
use gemipanel_core::native::run_line::RunLine;
use gemipanel_core::settings::ServerId;
use yew::prelude::*;

use super::run_line::RunLineView;
use super::server_log::ServerLog;
use crate::state::Pending;

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
    /// Asks for `nativeMessaging`, which local servers need (inside the click).
    pub on_allow_local: Callback<()>,
    /// This server's last Sign in, when it was the last one clicked.
    pub sign_in: Option<Pending<SignInOutcome>>,
    pub on_sign_in: Callback<ServerId>,
    pub on_sign_out: Callback<ServerId>,
    /// Asks for access to the authorization server's origin, then signs in.
    pub on_allow_sign_in: Callback<(ServerId, String)>,
    /// This server's last "Allow to run", when it was the last one clicked.
    pub allow_command: Option<Pending<()>>,
    /// Lets the line shown run: the server, its command line as configured, and the
    /// fingerprint of the line shown.
    pub on_allow_command: Callback<(ServerId, String, String)>,
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
        ServerStatus::NeedsConfirmation { .. } => {
            ("pending", message("popupStatusNeedsConfirmation", &[]), "needs-confirmation")
        }
        ServerStatus::NeedsLocalPermission => {
            ("pending", message("popupStatusNeedsLocal", &[]), "needs-local-permission")
        }
        // The row names the server already.
        ServerStatus::Error { error } => {
            let error = word(&mcp::Error::without_server(error));
            ("error", message("popupStatusError", &[&error]), "error")
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
                { address(server) }
                <div class={classes!("server-status", (state == "error").then_some("error"))}>
                    { status }
                    // Tools listed before an error would read as part of it (its stderr lines).
                    if !tools.is_empty() && state != "error" {
                        { " · " }<span data-testid="tool-count">{ tools }</span>
                    }
                </div>
                if let ServerStatus::NeedsPermission { origin } = &server.status {
                    <button type="button" class="primary small" data-testid="allow-access"
                        onclick={{ let (cb, origin) = (props.on_allow.clone(), origin.clone());
                                   Callback::from(move |_: MouseEvent| cb.emit(origin.clone())) }}>
                        { message("popupAllowAccess", &[]) }</button>
                }
                if server.status == ServerStatus::NeedsLocalPermission {
                    <p class="note">{ message("popupLocalPermissionWhy", &[]) }</p>
                    <button type="button" class="primary small" data-testid="allow-local"
                        onclick={props.on_allow_local.reform(|_: MouseEvent| ())}>
                        { message("popupAllowLocal", &[]) }</button>
                }
                if let ServerStatus::NeedsConfirmation { line, changed } = &server.status {
                    { command_to_allow(props, line, *changed) }
                } else if server.command_line.is_some() {
                    <ServerLog server_id={server.id.clone()} />
                }
                if let Some(view) = &server.signed_in {
                    <div class="signed-in" data-testid="signed-in">{ signed_in_line(view) }</div>
                }
                { sign_in_note(props) }
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
                    if wants_sign_in(props) {
                        <button type="button" class="primary" data-testid="sign-in"
                            onclick={click(&props.on_sign_in)}
                            aria-label={message("popupSignInNamed", &[&server.name])}>
                            { message("popupSignIn", &[]) }</button>
                    }
                    if server.signed_in.is_some() {
                        <button type="button" class="secondary" data-testid="sign-out"
                            onclick={click(&props.on_sign_out)}
                            aria-label={message("popupSignOutNamed", &[&server.name])}>
                            { message("popupSignOut", &[]) }</button>
                    }
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

/// Where the server is: its URL, or for a local server the command line the bridge runs.
fn address(server: &ServerView) -> Html {
    match &server.command_line {
        Some(line) => html! {
            <div class="server-url server-command" data-testid="server-command" title={line.clone()}>
                { line }</div>
        },
        None => html! { <div class="server-url" title={server.url.clone()}>{ &server.url }</div> },
    }
}

/// A local server that waits for the person: the whole line as it will run, what allowing it
/// means, and the button that allows exactly this line.
fn command_to_allow(props: &Props, line: &RunLine, changed: bool) -> Html {
    let running = matches!(props.allow_command, Some(Pending::Running));
    let onclick = {
        let configured = props.server.command_line.clone().unwrap_or_default();
        let (cb, id, run) =
            (props.on_allow_command.clone(), props.server.id.clone(), line.fingerprint.clone());
        Callback::from(move |_: MouseEvent| cb.emit((id.clone(), configured.clone(), run.clone())))
    };
    let explain_id = format!("command-explain-{}", props.server.id.as_str());
    html! {
        <div class="command-confirm">
            if changed {
                <p class="note warn" data-testid="run-changed">{ message("popupRunChanged", &[]) }</p>
            }
            <p class="note warn" id={explain_id.clone()}>{ message("popupCommandConfirmExplain", &[]) }</p>
            <RunLineView line={line.clone()} testid="command-to-confirm" to_confirm=true />
            <button type="button" class="primary small" data-testid="confirm-command"
                disabled={running} aria-describedby={explain_id}
                aria-label={message("popupAllowRunNamed", &[&props.server.name])} {onclick}>
                if running { <span class="spinner" aria-hidden="true"></span> }
                { message("popupAllowRun", &[]) }</button>
            if let Some(Pending::Failed(error)) = &props.allow_command {
                <p class="note error" role="alert" data-testid="confirm-command-error">{ error }</p>
            }
        </div>
    }
}

/// Sign in is offered when the server asks for it and no sign-in is under way.
fn wants_sign_in(props: &Props) -> bool {
    let running = matches!(props.sign_in, Some(Pending::Running));
    props.server.status == ServerStatus::NeedsSignIn && !running
}

/// "Signed in at auth.example.com · mcp:tools files:read"
fn signed_in_line(view: &SignedInView) -> String {
    let issuer = gemipanel_core::web_url::parse(&view.issuer)
        .and_then(|url| url.host_str().map(str::to_owned))
        .unwrap_or_else(|| view.issuer.clone());
    if view.scopes.is_empty() {
        message("popupSignedIn", &[&issuer])
    } else {
        message("popupSignedInScopes", &[&issuer, &view.scopes.join(" ")])
    }
}

/// How the last Sign in of this server went, when there is something to say.
fn sign_in_note(props: &Props) -> Html {
    let Some(outcome) = &props.sign_in else { return Html::default() };
    match outcome {
        Pending::Idle | Pending::Done(SignInOutcome::SignedIn { .. }) => Html::default(),
        Pending::Running => html! {
            <p class="note" data-testid="sign-in-note" data-state="running">
                <span class="spinner" aria-hidden="true"></span>{ message("popupSigningIn", &[]) }
            </p>
        },
        Pending::Done(SignInOutcome::Cancelled) => html! {
            <p class="note warn" data-testid="sign-in-note" data-state="cancelled">
                { message("popupSignInCancelled", &[]) }</p>
        },
        Pending::Done(SignInOutcome::NeedsPermission { origin }) => {
            let (cb, id, origin) =
                (props.on_allow_sign_in.clone(), props.server.id.clone(), origin.clone());
            html! {
                <div class="note warn" data-testid="sign-in-note" data-state="needs-permission">
                    <p>{ message("popupSignInNeedsPermission", &[&origin]) }</p>
                    <button type="button" class="primary small" data-testid="allow-sign-in"
                        onclick={Callback::from(move |_: MouseEvent| cb.emit((id.clone(), origin.clone())))}>
                        { message("popupAllowAndSignIn", &[]) }</button>
                </div>
            }
        }
        Pending::Done(SignInOutcome::Failed { error }) => failed(&word(error)),
        Pending::Failed(message) => failed(message),
    }
}

fn failed(message: &str) -> Html {
    html! {
        <p class="note error" role="alert" data-testid="sign-in-note" data-state="failed">
            { message.to_owned() }</p>
    }
}
