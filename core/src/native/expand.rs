//! `$VAR` and `${VAR}` in a local server's command line, replaced from the bridge's own
//! environment, as gemini-cli does for its `mcpServers` (it expands every string of its
//! settings, so the command, arguments, environment values and folder alike). Like gemini-cli,
//! a variable that is not set stays as written, and `$VAR` takes letters, digits and `_`.
//! `${VAR:-default}` (Claude Code's form, and the shell's) gives `default` when `VAR` is unset
//! or empty. Claude Desktop expands nothing, so its configurations are unaffected unless they
//! contain a `$` meant literally.

use super::wire::ServerSpec;

/// `value` with its variables replaced through `lookup`.
pub fn expand(value: &str, lookup: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(dollar) = rest.find('$') {
        out.push_str(&rest[..dollar]);
        let after = &rest[dollar + 1..];
        let (replacement, consumed) = variable(after, lookup);
        match replacement {
            Some(text) => out.push_str(&text),
            None => out.push_str(&rest[dollar..dollar + 1 + consumed]),
        }
        rest = &after[consumed..];
    }
    out.push_str(rest);
    out
}

/// The variable at the start of `text` (just after a `$`): its value, or `None` to keep it as
/// written, and how many bytes it spans.
fn variable(text: &str, lookup: &dyn Fn(&str) -> Option<String>) -> (Option<String>, usize) {
    if let Some(braced) = text.strip_prefix('{') {
        let Some(close) = braced.find('}') else { return (None, 0) };
        let inner = &braced[..close];
        let consumed = close + 2;
        if inner.is_empty() {
            return (None, 0);
        }
        return match inner.split_once(":-") {
            Some((name, default)) => {
                let value = lookup(name).filter(|v| !v.is_empty());
                (Some(value.unwrap_or_else(|| default.to_owned())), consumed)
            }
            None => (lookup(inner), consumed),
        };
    }
    let name_len =
        text.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(text.len());
    if name_len == 0 {
        return (None, 0);
    }
    (lookup(&text[..name_len]), name_len)
}

/// The command line with every string expanded; environment names stay as they are.
pub fn expand_spec(spec: &ServerSpec, lookup: &dyn Fn(&str) -> Option<String>) -> ServerSpec {
    ServerSpec {
        command: expand(&spec.command, lookup),
        args: spec.args.iter().map(|a| expand(a, lookup)).collect(),
        env: spec.env.iter().map(|(k, v)| (k.clone(), expand(v, lookup))).collect(),
        cwd: spec.cwd.as_deref().map(|c| expand(c, lookup)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "HOME" => Some("/home/me".into()),
            "TOKEN" => Some("t0k".into()),
            "EMPTY" => Some(String::new()),
            "A_1" => Some("one".into()),
            _ => None,
        }
    }

    #[test]
    fn table() {
        let cases = [
            ("plain", "plain"),
            ("$HOME/x", "/home/me/x"),
            ("${HOME}/x", "/home/me/x"),
            ("Bearer $TOKEN", "Bearer t0k"),
            ("$A_1-$A_1", "one-one"),
            ("$HOMEX", "$HOMEX"),
            ("$UNSET and ${UNSET}", "$UNSET and ${UNSET}"),
            ("${UNSET:-fallback}", "fallback"),
            ("${EMPTY:-fallback}", "fallback"),
            ("${TOKEN:-fallback}", "t0k"),
            ("${EMPTY}", ""),
            ("$", "$"),
            ("a$", "a$"),
            ("$$TOKEN", "$t0k"),
            ("$-x", "$-x"),
            ("${}", "${}"),
            ("${HOME", "${HOME"),
            ("${HOME}${TOKEN}", "/home/met0k"),
            ("ü$TOKEN語", "üt0k語"),
            ("$語", "$語"),
            ("C:\\$TOKEN\\", "C:\\t0k\\"),
        ];
        for (input, expected) in cases {
            assert_eq!(expand(input, &env), expected, "{input}");
        }
    }

    #[test]
    fn a_spec_is_expanded_everywhere_but_in_names() {
        let spec = ServerSpec {
            command: "$HOME/bin/srv".into(),
            args: vec!["--token=${TOKEN}".into(), "$UNSET".into()],
            env: [("TOKEN".to_owned(), "$TOKEN".to_owned())].into_iter().collect(),
            cwd: Some("${HOME}".into()),
        };
        let out = expand_spec(&spec, &env);
        assert_eq!(out.command, "/home/me/bin/srv");
        assert_eq!(out.args, ["--token=t0k", "$UNSET"]);
        assert_eq!(out.env.get("TOKEN").map(String::as_str), Some("t0k"));
        assert_eq!(out.cwd.as_deref(), Some("/home/me"));
    }
}
