//! A local server's command line as the person is asked to allow it: what will run, with every
//! variable that changes what runs ([`super::run_env`]) shown with its value and the rest of
//! the environment by name only (values are often API keys).
//!
//! Two views of one [`ServerSpec`]: [`RunLine::configured`], as the configuration says it
//! (`$VAR` left for the bridge to expand), which a page can show without the bridge, and
//! [`RunLine::resolved`], which the bridge makes: `$VAR` expanded from its environment as it
//! will be when it starts the server, and the variables that change what runs which the
//! server inherits from the bridge's environment. The bridge's `PATH` is the one left out:
//! every program the person starts inherits it, and a confirmation that covered it would ask
//! again whenever Chrome was started from another shell (a `PATH` the configuration sets is
//! shown like any other).
//!
//! Its [`RunLine::fingerprint`] covers everything that decides what runs, secrets included:
//! the expanded program, arguments, folder, every environment value and the inherited
//! variables shown. The bridge starts a server only with the fingerprint the person allowed,
//! so a change of any of them, in the configuration or in the bridge's environment, asks
//! again. A line nothing was expanded in and nothing inherited has the same fingerprint in
//! both views: allowing it where no bridge could be asked holds once there is one.

use std::cell::RefCell;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::expand::{expand, expand_spec};
use super::run_env::changes_what_runs;
use super::wire::ServerSpec;
use crate::secret_words::looks_secret;

/// What stands for a value kept secret.
pub const HIDDEN: &str = "…";

/// One environment variable of a line: set by the configuration, or inherited from the
/// bridge's environment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShownVariable {
    pub name: String,
    /// The value (expanded when the line is), for a variable that changes what runs; `None`
    /// for a value kept secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// From the bridge's environment, not the configuration.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub inherited: bool,
}

impl ShownVariable {
    /// Shown with its value because it changes what runs.
    pub fn changes_what_runs(&self) -> bool {
        self.value.is_some()
    }
}

/// A local server's command line as the person is asked to allow it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunLine {
    /// The configuration's variables in its order, then the inherited ones by name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<ShownVariable>,
    pub command: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Whether the bridge expanded `$VAR`s from its environment (what a secret-looking
    /// variable gives shows as [`HIDDEN`]); otherwise they are as configured.
    #[serde(default)]
    pub expanded: bool,
    /// The variables the line refers to (`$HOME`, `${TOKEN:-x}`), by name, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variables: Vec<String>,
    /// Everything that decides what runs, secrets included, hashed (see the module).
    pub fingerprint: String,
}

impl RunLine {
    /// The line as configured, nothing expanded and nothing inherited.
    pub fn configured(spec: &ServerSpec) -> RunLine {
        RunLine {
            env: spec
                .env
                .iter()
                .map(|(name, value)| ShownVariable {
                    name: name.clone(),
                    value: changes_what_runs(name).then(|| without_password(value)),
                    inherited: false,
                })
                .collect(),
            command: spec.command.clone(),
            args: spec.args.clone(),
            cwd: spec.cwd.clone(),
            expanded: false,
            variables: referenced(spec),
            fingerprint: fingerprint(spec, &[]),
        }
    }

    /// The line as the bridge will run it: expanded through `lookup` (the bridge's
    /// environment), with the variables of `environment` (all of the bridge's) that change
    /// what runs and that the configuration does not set.
    pub fn resolved(
        spec: &ServerSpec,
        lookup: &dyn Fn(&str) -> Option<String>,
        environment: &[(String, String)],
    ) -> RunLine {
        let runs = expand_spec(spec, lookup);
        let hiding = |name: &str| {
            let value = lookup(name)?;
            Some(if looks_secret(name) { HIDDEN.to_owned() } else { value })
        };
        let shown = expand_spec(spec, &hiding);
        let mut inherited: Vec<(String, String)> = environment
            .iter()
            .filter(|(name, _)| {
                changes_what_runs(name)
                    && !name.eq_ignore_ascii_case("PATH")
                    && !spec.env.contains_key(name)
            })
            .cloned()
            .collect();
        inherited.sort();
        let mut line = RunLine::configured(&shown);
        line.env.extend(inherited.iter().map(|(name, value)| ShownVariable {
            name: name.clone(),
            value: Some(without_password(value)),
            inherited: true,
        }));
        line.expanded = true;
        line.variables = referenced(spec);
        line.fingerprint = fingerprint(&runs, &inherited);
        line
    }

    /// The command line as a shell would read it, the folder first: the configuration's
    /// variables (values that change what runs, `NAME=…` for the others), the program and its
    /// arguments, quoted where a shell would need it. Unexpanded, a word the bridge will
    /// expand is in double quotes, where a shell expands `$VAR` too; expanded, every word is
    /// literal.
    pub fn text(&self) -> String {
        let word = |text: &str| {
            if !self.expanded && refers(text) {
                expanding_quote(text)
            } else {
                shell_quote(text)
            }
        };
        let mut parts: Vec<String> = self
            .env
            .iter()
            .filter(|v| !v.inherited)
            .map(|v| match &v.value {
                Some(value) => format!("{}={}", v.name, word(value)),
                None => format!("{}={HIDDEN}", v.name),
            })
            .collect();
        parts.push(word(&self.command));
        parts.extend(self.args.iter().map(|a| word(a)));
        let line = parts.join(" ");
        match &self.cwd {
            Some(cwd) => format!("(cd {} && {line})", word(cwd)),
            None => line,
        }
    }

    /// The variables shown with their value: those that change what runs.
    pub fn run_changing(&self) -> impl Iterator<Item = &ShownVariable> {
        self.env.iter().filter(|v| v.changes_what_runs())
    }
}

/// Hashes what runs: the (expanded) spec with every value, and the inherited variables.
fn fingerprint(spec: &ServerSpec, inherited: &[(String, String)]) -> String {
    let mut hash = Sha256::new();
    hash.update(b"gemipanel run line\0");
    let part = |hash: &mut Sha256, text: &str| {
        hash.update((text.len() as u64).to_le_bytes());
        hash.update(text.as_bytes());
    };
    part(&mut hash, &spec.command);
    hash.update((spec.args.len() as u64).to_le_bytes());
    for arg in &spec.args {
        part(&mut hash, arg);
    }
    hash.update((spec.env.len() as u64).to_le_bytes());
    for (name, value) in &spec.env {
        part(&mut hash, name);
        part(&mut hash, value);
    }
    part(&mut hash, spec.cwd.as_deref().unwrap_or("\0none"));
    hash.update((inherited.len() as u64).to_le_bytes());
    for (name, value) in inherited {
        part(&mut hash, name);
        part(&mut hash, value);
    }
    hash.finalize()[..16].iter().map(|b| format!("{b:02x}")).collect()
}

/// The variables `spec` refers to, each once, in order.
fn referenced(spec: &ServerSpec) -> Vec<String> {
    let names = RefCell::new(Vec::<String>::new());
    let note = |name: &str| {
        let mut names = names.borrow_mut();
        if !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
        Some(String::new())
    };
    let words = std::iter::once(&spec.command)
        .chain(&spec.args)
        .chain(spec.env.values())
        .chain(spec.cwd.as_ref());
    for word in words {
        expand(word, &note);
    }
    names.into_inner()
}

/// Whether the bridge would expand something in `text`.
fn refers(text: &str) -> bool {
    expand(text, &|_| Some(String::new())) != text
}

/// A URL's password (`https://user:secret@host/`) as [`HIDDEN`]: index URLs carry them.
fn without_password(value: &str) -> String {
    let Some(scheme_end) = value.find("://") else { return value.to_owned() };
    let rest = &value[scheme_end + 3..];
    let authority = &rest[..rest.find(['/', '?', '#', ' ']).unwrap_or(rest.len())];
    match authority.rfind('@').and_then(|at| authority[..at].find(':').map(|colon| (colon, at))) {
        Some((colon, at)) => {
            let start = scheme_end + 3;
            format!("{}{HIDDEN}{}", &value[..start + colon + 1], &value[start + at..])
        }
        None => value.to_owned(),
    }
}

/// Quotes a word the way a POSIX shell would need it, so the line shown is the line that runs.
fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,~…".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// A word in double quotes, where a shell expands `$VAR` as the bridge will.
fn expanding_quote(word: &str) -> String {
    let mut quoted = String::with_capacity(word.len() + 2);
    quoted.push('"');
    for c in word.chars() {
        if matches!(c, '"' | '\\' | '`') {
            quoted.push('\\');
        }
        quoted.push(c);
    }
    quoted.push('"');
    quoted
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> ServerSpec {
        ServerSpec {
            command: "npx".into(),
            args: vec![
                "-y".into(),
                "pkg".into(),
                "$HOME/my dir".into(),
                "--token=$GH_TOKEN".into(),
            ],
            env: [
                ("NODE_OPTIONS", "--require ./hook.js"),
                ("API_KEY", "sk-secret"),
                ("npm_config_registry", "https://me:pw@registry.example/npm/"),
                ("DATA", "${HOME}/data"),
            ]
            .into_iter()
            .map(|(n, v)| (n.to_owned(), v.to_owned()))
            .collect(),
            cwd: Some("/srv/it's".into()),
        }
    }

    fn environment(name: &str) -> Option<String> {
        match name {
            "HOME" => Some("/home/me".into()),
            "GH_TOKEN" => Some("ghp_secret".into()),
            _ => None,
        }
    }

    #[test]
    fn the_configured_line_shows_what_changes_what_runs_and_marks_what_the_bridge_expands() {
        let line = RunLine::configured(&spec());
        assert_eq!(
            line.text(),
            "(cd '/srv/it'\\''s' && NODE_OPTIONS='--require ./hook.js' API_KEY=… \
             npm_config_registry=https://me:…@registry.example/npm/ DATA=… \
             npx -y pkg \"$HOME/my dir\" \"--token=$GH_TOKEN\")"
        );
        assert_eq!(line.variables, ["HOME", "GH_TOKEN"]);
        let shown: Vec<&str> = line.run_changing().map(|v| v.name.as_str()).collect();
        assert_eq!(shown, ["NODE_OPTIONS", "npm_config_registry"]);
        assert!(!line.expanded);
        assert!(!format!("{line:?}").contains("sk-secret"));
    }

    #[test]
    fn the_resolved_line_is_what_runs_with_secret_looking_expansions_hidden() {
        let bridge_env = [
            ("LD_PRELOAD".to_owned(), "/usr/lib/inject.so".to_owned()),
            ("PATH".to_owned(), "/usr/bin".to_owned()),
            ("NODE_OPTIONS".to_owned(), "--inspect".to_owned()),
            ("HOME".to_owned(), "/home/me".to_owned()),
        ];
        let line = RunLine::resolved(&spec(), &environment, &bridge_env);
        assert_eq!(
            line.text(),
            "(cd '/srv/it'\\''s' && NODE_OPTIONS='--require ./hook.js' API_KEY=… \
             npm_config_registry=https://me:…@registry.example/npm/ DATA=… \
             npx -y pkg '/home/me/my dir' --token=…)"
        );
        // Inherited: LD_PRELOAD; not PATH, not HOME, not NODE_OPTIONS (the configuration's).
        let inherited: Vec<(&str, Option<&str>)> = line
            .env
            .iter()
            .filter(|v| v.inherited)
            .map(|v| (v.name.as_str(), v.value.as_deref()))
            .collect();
        assert_eq!(inherited, [("LD_PRELOAD", Some("/usr/lib/inject.so"))]);
        assert!(line.expanded);
        let shown = serde_json::to_string(&line).unwrap();
        assert!(!shown.contains("ghp_secret") && !shown.contains("sk-secret"), "{shown}");
    }

    #[test]
    fn the_fingerprint_covers_the_expansion_and_the_inherited_variables() {
        let base = RunLine::resolved(&spec(), &environment, &[]).fingerprint;
        // Another value behind $GH_TOKEN (hidden in the line) is another run.
        let other_token = |name: &str| match name {
            "GH_TOKEN" => Some("ghp_other".into()),
            _ => environment(name),
        };
        assert_ne!(RunLine::resolved(&spec(), &other_token, &[]).fingerprint, base);
        let preload = [("LD_PRELOAD".to_owned(), "/x.so".to_owned())];
        assert_ne!(RunLine::resolved(&spec(), &environment, &preload).fingerprint, base);
        // The bridge's PATH and variables that change nothing are not part of it.
        let plain = [("PATH".to_owned(), "/bin".to_owned()), ("LANG".to_owned(), "C".to_owned())];
        assert_eq!(RunLine::resolved(&spec(), &environment, &plain).fingerprint, base);
        // A line with nothing to expand and nothing inherited is the same run in both views.
        let mut plain_spec = spec();
        plain_spec.args.truncate(2);
        plain_spec.env.shift_remove("DATA");
        let configured = RunLine::configured(&plain_spec).fingerprint;
        assert_eq!(RunLine::resolved(&plain_spec, &environment, &plain).fingerprint, configured);
        assert_ne!(RunLine::configured(&spec()).fingerprint, base, "$HOME expands");
    }

    #[test]
    fn passwords_in_urls_are_hidden_and_the_rest_is_kept() {
        let cases = [
            ("https://user:pw@host/simple", "https://user:…@host/simple"),
            ("https://token@host/simple", "https://token@host/simple"),
            ("https://host/a@b:c", "https://host/a@b:c"),
            ("plain value", "plain value"),
            ("x https://u:p@h y", "x https://u:…@h y"),
        ];
        for (value, shown) in cases {
            assert_eq!(without_password(value), shown, "{value}");
        }
    }
}
