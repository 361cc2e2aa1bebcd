//! Why a server is in the state it is in: the status a failed request puts a server in and the
//! message the page shows, and the status shown before anything failed.
//!
//! The worker asks the browser what these need to know (may the extension reach this origin,
//! may it talk to the native bridge, what did the bridge say) and passes it in; the bridge's
//! answers are asked for only when the decision gets to them, as before this moved here.

use std::time::Duration;

use crate::mcp;
use crate::messages::ServerStatus;
use crate::native::link::Problem;
use crate::native::run_line::RunLine;
use crate::settings::Server;
use crate::text::Text;
use crate::web_url;

/// The host permission worth asking the browser about after `err`: Chrome reports a missing
/// host permission exactly like a refused connection. `None` when `err` is no connection
/// failure, or asks for a sign-in (which comes first).
pub fn permission_to_check(url: &str, err: &mcp::Error) -> Option<String> {
    if err.is_auth_required() || !err.is_connect() {
        return None;
    }
    web_url::origin_pattern(url)
}

/// The status a remote server's failed request puts it in, and its message. `missing` is the
/// pattern of [`permission_to_check`] when the browser said the extension lacks it: then the
/// status asks the page to offer the permission (inside the person's click), and the message
/// says so.
pub fn explain_remote(err: &mcp::Error, missing: Option<&str>) -> (ServerStatus, Text) {
    let message = err.text();
    if err.is_auth_required() {
        return (ServerStatus::NeedsSignIn, message);
    }
    if let Some(pattern) = missing {
        let origin = web_url::pattern_origin(pattern);
        let message = Text::new("errNeedsPermission").arg(&origin).with(message);
        return (ServerStatus::NeedsPermission { origin }, message);
    }
    (ServerStatus::Error { error: message.clone() }, message)
}

/// What the worker knows of a local server when one of its requests failed.
pub struct LocalFacts<R, P> {
    /// The extension may talk to the native bridge (`nativeMessaging` granted).
    pub can_connect_native: bool,
    /// The line the person is to allow (the bridge's when it showed one).
    pub run_line: R,
    /// What the bridge knows is wrong with the server.
    pub problem: P,
}

/// A local server's status and message: waiting for the person's confirmation, what the bridge
/// knows (not installed, not allowed, crashed with its stderr), or else the error itself, the
/// server named by its name (its address is internal). `None` for remote servers.
pub fn explain_local(
    server: &Server,
    err: &mcp::Error,
    facts: LocalFacts<impl FnOnce() -> RunLine, impl FnOnce() -> Option<Problem>>,
) -> Option<(ServerStatus, Text)> {
    server.local.as_ref()?;
    if !facts.can_connect_native {
        return Some(local_problem(server, &Problem::NoPermission));
    }
    if !server.command_confirmed() {
        let message = Text::new("errNeedsConfirmation").arg(&server.name);
        let line = (facts.run_line)();
        return Some((ServerStatus::NeedsConfirmation { line, changed: false }, message));
    }
    // An error the server answered, or a cancellation, is not the bridge's to explain.
    let by_bridge = err.rpc_error().is_none() && !err.is_cancelled();
    if let Some(problem) = if by_bridge { (facts.problem)() } else { None } {
        // The bridge would run another line than the one allowed: the person sees that one.
        if let Problem::NotConfirmed(line) = &problem {
            let message = Text::new("errOnServer").arg(&server.name).with(problem.text());
            let (line, changed) = ((**line).clone(), server.confirmed_run.is_some());
            return Some((ServerStatus::NeedsConfirmation { line, changed }, message));
        }
        return Some(local_problem(server, &problem));
    }
    let message = err.text_naming(&server.name);
    Some((ServerStatus::Error { error: message.clone() }, message))
}

/// The status of a local server the bridge reported a problem of, and its message.
pub fn local_problem(server: &Server, problem: &Problem) -> (ServerStatus, Text) {
    let message = Text::new("errOnServer").arg(&server.name).with(problem.text());
    if *problem == Problem::NoPermission {
        return (ServerStatus::NeedsLocalPermission, message);
    }
    (ServerStatus::Error { error: message.clone() }, message)
}

/// The status shown for `server`: a local server waits for `nativeMessaging` (without it the
/// bridge cannot even say how it would run the line), then for its command line to be
/// confirmed; otherwise what the worker knows (`known`).
pub fn shown(
    server: &Server,
    facts: LocalFacts<impl FnOnce() -> RunLine, ()>,
    known: impl FnOnce() -> ServerStatus,
) -> ServerStatus {
    match &server.local {
        Some(_) if !facts.can_connect_native => ServerStatus::NeedsLocalPermission,
        Some(_) if !server.command_confirmed() => {
            ServerStatus::NeedsConfirmation { line: (facts.run_line)(), changed: false }
        }
        _ => known(),
    }
}

/// The message of a server that waits for the person to sign in.
pub fn sign_in_message(server: &Server) -> Text {
    Text::new("errNeedsSignIn").arg(&server.name)
}

/// The longest a listing of `server`'s tools may take in all (every page, every retry of the
/// connection): a server that never finishes must not keep the pages waiting for it.
pub fn listing_deadline(server: &Server) -> Duration {
    Duration::from_millis(server.timeout_ms.saturating_mul(2))
}

/// The message of a listing that did not finish within `limit`.
pub fn listing_timed_out(server: &Server, limit: Duration) -> Text {
    Text::new("errListingTimeout").arg(&server.name).arg(limit.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonrpc::ErrorObject;
    use crate::mcp::error::Kind;
    use crate::mcp::TransportError;
    use crate::settings::{LocalCommand, ServerId};

    const URL: &str = "https://mcp.example.com:8443/mcp";

    fn refused() -> mcp::Error {
        mcp::Error::new(Kind::Transport(TransportError::connect("refused")), URL)
    }

    fn unauthorized() -> mcp::Error {
        let http = Kind::Http { status: 401, message: None, www_authenticate: None, rpc: None };
        mcp::Error::new(http, URL)
    }

    fn answered() -> mcp::Error {
        mcp::Error::new(Kind::Rpc(Box::new(ErrorObject::new(-32602, "bad arguments"))), URL)
    }

    fn remote() -> Server {
        let mut server = Server::blank(ServerId::generate([1; 16]), "Files".into());
        server.url = URL.into();
        server
    }

    fn local(confirmed: bool) -> Server {
        let mut server = remote();
        let command = LocalCommand { command: "npx".into(), ..Default::default() };
        if confirmed {
            server.confirmed_command = Some(command.fingerprint());
            server.confirmed_run = Some(command.run_line().fingerprint);
        }
        server.local = Some(command);
        server
    }

    fn bridge_line() -> RunLine {
        RunLine { command: "/usr/bin/npx".into(), ..local(false).local.unwrap().run_line() }
    }

    fn facts(
        can_connect_native: bool,
        problem: Option<Problem>,
    ) -> LocalFacts<impl FnOnce() -> RunLine, impl FnOnce() -> Option<Problem>> {
        LocalFacts { can_connect_native, run_line: bridge_line, problem: move || problem }
    }

    fn never_asked<T>() -> T {
        panic!("the bridge was asked though the answer was already known")
    }

    #[test]
    fn a_refused_connection_asks_about_the_origin_without_its_port() {
        assert_eq!(
            permission_to_check(URL, &refused()).as_deref(),
            Some("https://mcp.example.com/*")
        );
        assert_eq!(permission_to_check(URL, &unauthorized()), None);
        assert_eq!(permission_to_check(URL, &answered()), None);
    }

    #[test]
    fn a_missing_permission_names_the_origin_to_grant() {
        let (status, message) = explain_remote(&refused(), Some("https://mcp.example.com/*"));
        let origin = "https://mcp.example.com".to_owned();
        assert_eq!(status, ServerStatus::NeedsPermission { origin: origin.clone() });
        assert_eq!(message.key, "errNeedsPermission");
        assert!(message.to_string().contains(&origin), "{message}");
    }

    #[test]
    fn a_refused_connection_with_the_permission_is_an_error() {
        let (status, message) = explain_remote(&refused(), None);
        assert_eq!(status, ServerStatus::Error { error: message.clone() });
        assert_eq!(message, refused().text());
    }

    #[test]
    fn a_401_waits_for_sign_in_whatever_the_permission() {
        let (status, _) = explain_remote(&unauthorized(), Some("https://mcp.example.com/*"));
        assert_eq!(status, ServerStatus::NeedsSignIn);
    }

    #[test]
    fn remote_servers_are_not_explained_as_local() {
        let facts = LocalFacts {
            can_connect_native: true,
            run_line: never_asked::<RunLine>,
            problem: never_asked::<Option<Problem>>,
        };
        assert!(explain_local(&remote(), &refused(), facts).is_none());
    }

    #[test]
    fn without_native_messaging_the_page_asks_for_it_before_the_bridge_is_asked() {
        let facts = LocalFacts {
            can_connect_native: false,
            run_line: never_asked::<RunLine>,
            problem: never_asked::<Option<Problem>>,
        };
        let (status, message) = explain_local(&local(true), &refused(), facts).unwrap();
        assert_eq!(status, ServerStatus::NeedsLocalPermission);
        assert_eq!(message.key, "errOnServer");
    }

    #[test]
    fn an_unconfirmed_line_is_shown_as_the_bridge_would_run_it() {
        let (status, message) =
            explain_local(&local(false), &refused(), facts(true, None)).unwrap();
        assert_eq!(status, ServerStatus::NeedsConfirmation { line: bridge_line(), changed: false });
        assert_eq!(message.key, "errNeedsConfirmation");
    }

    #[test]
    fn a_line_that_changed_since_it_was_allowed_asks_again_saying_so() {
        let problem = Problem::NotConfirmed(Box::new(bridge_line()));
        let (status, _) =
            explain_local(&local(true), &refused(), facts(true, Some(problem))).unwrap();
        assert_eq!(status, ServerStatus::NeedsConfirmation { line: bridge_line(), changed: true });
    }

    #[test]
    fn a_crash_is_the_bridges_to_explain_but_not_a_servers_own_answer() {
        let crashed = Problem::Exited { code: Some(1), signal: None, stderr_tail: "boom".into() };
        let (status, message) =
            explain_local(&local(true), &refused(), facts(true, Some(crashed.clone()))).unwrap();
        assert_eq!(status, ServerStatus::Error { error: message.clone() });
        assert_eq!(message, local_problem(&local(true), &crashed).1);
        let answer = LocalFacts {
            can_connect_native: true,
            run_line: never_asked::<RunLine>,
            problem: never_asked::<Option<Problem>>,
        };
        let (_, message) = explain_local(&local(true), &answered(), answer).unwrap();
        assert_eq!(message, answered().text_naming("Files"));
    }

    #[test]
    fn the_shown_status_waits_for_permission_then_confirmation() {
        let no_native =
            LocalFacts { can_connect_native: false, run_line: bridge_line, problem: () };
        assert_eq!(
            shown(&local(false), no_native, never_asked::<ServerStatus>),
            ServerStatus::NeedsLocalPermission
        );
        let native = LocalFacts { can_connect_native: true, run_line: bridge_line, problem: () };
        assert_eq!(
            shown(&local(false), native, never_asked::<ServerStatus>),
            ServerStatus::NeedsConfirmation { line: bridge_line(), changed: false }
        );
        let native = LocalFacts { can_connect_native: true, run_line: bridge_line, problem: () };
        assert_eq!(
            shown(&local(true), native, || ServerStatus::Connecting),
            ServerStatus::Connecting
        );
        let remote_facts =
            LocalFacts { can_connect_native: false, run_line: never_asked::<RunLine>, problem: () };
        assert_eq!(shown(&remote(), remote_facts, || ServerStatus::Idle), ServerStatus::Idle);
    }

    #[test]
    fn a_listing_may_take_twice_the_request_timeout() {
        let mut server = remote();
        server.timeout_ms = 30_000;
        assert_eq!(listing_deadline(&server), Duration::from_secs(60));
        server.timeout_ms = u64::MAX;
        assert_eq!(listing_deadline(&server), Duration::from_millis(u64::MAX));
        assert_eq!(listing_timed_out(&server, Duration::from_secs(60)).key, "errListingTimeout");
    }
}
