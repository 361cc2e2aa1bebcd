//! Which scopes to ask for (MCP "Scope Selection Strategy" and "Step-Up Authorization Flow").
//!
//! Scopes are kept as an ordered list without duplicates: the order the server gave them is the
//! order they are sent in, which keeps requests reproducible.

/// The scopes of a space-separated `scope` value (RFC 6749 §3.3).
pub fn split(value: &str) -> Vec<String> {
    let mut scopes = Vec::new();
    for scope in value.split([' ', '\t']).filter(|s| !s.is_empty()) {
        push_unique(&mut scopes, scope);
    }
    scopes
}

/// The `scope` value for a list; `None` when empty, so the parameter is left out.
pub fn join(scopes: &[String]) -> Option<String> {
    (!scopes.is_empty()).then(|| scopes.join(" "))
}

fn push_unique(scopes: &mut Vec<String>, scope: &str) {
    if !scopes.iter().any(|s| s == scope) {
        scopes.push(scope.to_owned());
    }
}

/// The scope that asks the authorization server for a refresh token (OpenID Connect).
pub const OFFLINE_ACCESS: &str = "offline_access";

/// What a sign-in asks for.
///
/// * the scopes of the challenge that asked for sign-in, which are authoritative for that
///   request; else the protected resource's `scopes_supported`; else none (no `scope` at all);
/// * on a step-up or a new sign-in with the same authorization server, also every scope asked
///   for before, so permissions granted earlier are not lost (2026-07-28);
/// * `offline_access` when the authorization server lists it and something else is asked for
///   (alone it would change what an empty request means to the server).
pub fn choose(
    challenged: &[String],
    resource_supported: Option<&[String]>,
    previous: &[String],
    server_supported: Option<&[String]>,
) -> Vec<String> {
    let base =
        if challenged.is_empty() { resource_supported.unwrap_or_default() } else { challenged };
    let mut scopes = Vec::new();
    for scope in previous.iter().chain(base) {
        push_unique(&mut scopes, scope);
    }
    let offered = server_supported.is_some_and(|s| s.iter().any(|s| s == OFFLINE_ACCESS));
    if offered && !scopes.is_empty() {
        push_unique(&mut scopes, OFFLINE_ACCESS);
    }
    scopes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(value: &str) -> Vec<String> {
        split(value)
    }

    #[test]
    fn selection_follows_the_specification() {
        /// Challenge, resource `scopes_supported`, previous, AS `scopes_supported` → request.
        type Case<'a> = (&'a str, Option<&'a str>, &'a str, Option<&'a str>, &'a str);
        let cases: &[Case] = &[
            ("mcp:basic", Some("a b"), "", None, "mcp:basic"),
            ("", Some("a b c"), "", None, "a b c"),
            ("", None, "", None, ""),
            ("", None, "", Some("offline_access"), ""),
            ("mcp:write", None, "mcp:basic", None, "mcp:basic mcp:write"),
            ("a", None, "", Some("a offline_access"), "a offline_access"),
            ("a", None, "", Some("a b"), "a"),
            ("a offline_access", None, "", Some("offline_access"), "a offline_access"),
            ("b a b", None, "a", None, "a b"),
        ];
        for (challenge, resource, previous, server, expected) in cases {
            let resource = resource.map(list);
            let server = server.map(list);
            let chosen =
                choose(&list(challenge), resource.as_deref(), &list(previous), server.as_deref());
            assert_eq!(join(&chosen).unwrap_or_default(), *expected, "{challenge:?} {previous:?}");
        }
    }
}
