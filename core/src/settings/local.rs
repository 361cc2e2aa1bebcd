//! A local (stdio) MCP server: a program on this computer that the bridge runs.
//!
//! The person confirms a command line once before it first runs; the confirmation is kept as a
//! fingerprint of everything that decides what runs (program, arguments, environment, folder),
//! so any change asks again, and as the fingerprint of the line as the bridge runs it
//! (`$VAR`s expanded, see `native::run_line`), which the bridge checks.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::validate::{Field, Invalid};
use crate::native::run_env::changes_what_runs;
use crate::native::run_line::RunLine;
use crate::native::wire::ServerSpec;
use crate::secret::Secret;
use crate::text::Text;

/// How to start a local server, as the person configured it (`$VAR` left for the bridge).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LocalCommand {
    pub command: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Added to the bridge's environment. Values count as secrets (API keys often live here).
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub env: IndexMap<String, Secret>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
}

pub const MAX_ARGS: usize = 256;
const MAX_PART_BYTES: usize = 8 * 1024;

impl LocalCommand {
    pub fn new(command: impl Into<String>, args: Vec<String>) -> Self {
        LocalCommand { command: command.into(), args, ..LocalCommand::default() }
    }

    /// The command line as a person reads it ([`RunLine::text`] of [`LocalCommand::run_line`]):
    /// the values of variables that change what runs, the names of the others, the program and
    /// its arguments quoted where a shell would need it (`"$VAR"` where the bridge expands),
    /// and the folder it runs in.
    pub fn display(&self) -> String {
        self.run_line().text()
    }

    /// The line as configured, before the bridge expands it.
    pub fn run_line(&self) -> RunLine {
        RunLine::configured(&self.spec())
    }

    /// Identifies everything that decides what runs; stored when the person confirms it.
    pub fn fingerprint(&self) -> String {
        let mut hash = Sha256::new();
        hash.update(b"gemipanel local command\0");
        let part = |hash: &mut Sha256, text: &str| {
            hash.update((text.len() as u64).to_le_bytes());
            hash.update(text.as_bytes());
        };
        part(&mut hash, &self.command);
        hash.update((self.args.len() as u64).to_le_bytes());
        for arg in &self.args {
            part(&mut hash, arg);
        }
        hash.update((self.env.len() as u64).to_le_bytes());
        for (name, value) in &self.env {
            part(&mut hash, name);
            part(&mut hash, value.expose());
        }
        part(&mut hash, self.cwd.as_deref().unwrap_or("\0none"));
        hash.finalize()[..16].iter().map(|b| format!("{b:02x}")).collect()
    }

    /// What the bridge is told to run.
    pub fn spec(&self) -> ServerSpec {
        ServerSpec {
            command: self.command.clone(),
            args: self.args.clone(),
            env: self.env.iter().map(|(n, v)| (n.clone(), v.expose().to_owned())).collect(),
            cwd: self.cwd.clone(),
        }
    }

    /// The same command with environment values blanked, for the pages: all but those of
    /// variables that change what runs, which the confirmation shows anyway.
    pub fn for_pages(&self) -> LocalCommand {
        let mut view = self.clone();
        for (name, value) in view.env.iter_mut() {
            if !changes_what_runs(name) {
                *value = Secret::default();
            }
        }
        view
    }

    /// Keeps stored values for the environment names whose new value is blank (the pages'
    /// masked copy), as the server form sends them.
    pub fn keep_values_from(&mut self, stored: &LocalCommand) {
        for (name, value) in self.env.iter_mut() {
            if value.is_empty() {
                if let Some(old) = stored.env.get(name) {
                    *value = old.clone();
                }
            }
        }
    }
}

/// Checks a command line: a program, bounded parts on one line each, environment names a shell
/// could set.
pub fn validate_local(local: &LocalCommand) -> Result<(), Invalid> {
    let bad = |key: &'static str| Invalid::new(Field::Command, Text::new(key));
    let one_line = |text: &str| text.len() <= MAX_PART_BYTES && !text.contains(['\0', '\n', '\r']);
    if local.command.trim().is_empty() {
        return Err(bad("errSettingsNoCommand"));
    }
    if local.command.trim() != local.command || !one_line(&local.command) {
        return Err(bad("errSettingsCommand"));
    }
    if local.args.len() > MAX_ARGS || !local.args.iter().all(|a| one_line(a)) {
        return Err(Invalid::new(Field::Command, Text::new("errSettingsArgs").arg(MAX_ARGS)));
    }
    for (name, value) in &local.env {
        let name_ok = !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if !name_ok {
            return Err(Invalid::new(
                Field::Command,
                Text::new("errSettingsEnvName").arg(name.escape_debug()),
            ));
        }
        if !value.expose().is_empty() && !one_line(value.expose()) {
            return Err(Invalid::new(Field::Command, Text::new("errSettingsEnvValue").arg(name)));
        }
    }
    if local.cwd.as_deref().is_some_and(|c| c.trim().is_empty() || !one_line(c)) {
        return Err(bad("errSettingsCwd"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filesystem() -> LocalCommand {
        let mut local = LocalCommand::new(
            "npx",
            vec![
                "-y".into(),
                "@modelcontextprotocol/server-filesystem".into(),
                "/tmp/my dir".into(),
            ],
        );
        local.env.insert("API_KEY".into(), Secret::new("s3cret"));
        local
    }

    #[test]
    fn the_line_shown_quotes_like_a_shell_and_hides_values() {
        let mut local = filesystem();
        assert_eq!(
            local.display(),
            "API_KEY=… npx -y @modelcontextprotocol/server-filesystem '/tmp/my dir'"
        );
        // What changes what runs is shown with its value; a `$VAR` reads as the bridge will
        // expand it, in double quotes as a shell would, not as a literal in single quotes.
        local.env.insert("NODE_OPTIONS".into(), Secret::new("--require /tmp/hook.js"));
        local.args.push("$HOME/notes".into());
        assert_eq!(
            local.display(),
            "API_KEY=… NODE_OPTIONS='--require /tmp/hook.js' npx -y \
             @modelcontextprotocol/server-filesystem '/tmp/my dir' \"$HOME/notes\""
        );
        local.env.shift_remove("NODE_OPTIONS");
        local.args.pop();
        local.cwd = Some("/home/a b".into());
        local.args.push("it's".into());
        let shown = local.display();
        assert!(shown.starts_with("(cd '/home/a b' && API_KEY=… npx"), "{shown}");
        assert!(shown.ends_with(r"'it'\''s')"), "{shown}");
        assert!(!shown.contains("s3cret"));
    }

    #[test]
    fn any_change_to_what_runs_changes_the_fingerprint() {
        let base = filesystem();
        let print = base.fingerprint();
        assert_eq!(print, filesystem().fingerprint());
        let mut changed = Vec::new();
        let mut c = base.clone();
        c.command = "node".into();
        changed.push(c);
        let mut c = base.clone();
        c.args.push("--extra".into());
        changed.push(c);
        // Moving a space between arguments is a different command line.
        let mut c = base.clone();
        c.args = vec!["-y @modelcontextprotocol/server-filesystem".into(), "/tmp/my dir".into()];
        changed.push(c);
        let mut c = base.clone();
        c.env.insert("API_KEY".into(), Secret::new("other"));
        changed.push(c);
        let mut c = base.clone();
        c.env.insert("NODE_OPTIONS".into(), Secret::new("--require x"));
        changed.push(c);
        let mut c = base.clone();
        c.cwd = Some("/".into());
        changed.push(c);
        for c in changed {
            assert_ne!(c.fingerprint(), print, "{c:?}");
        }
    }

    #[test]
    fn masked_values_are_blank_and_come_back_from_the_stored_command() {
        let mut stored = filesystem();
        stored.env.insert("PYTHONPATH".into(), Secret::new("/opt/lib"));
        let mut form = stored.for_pages();
        assert_eq!(form.env["API_KEY"].expose(), "");
        assert_eq!(form.env["PYTHONPATH"].expose(), "/opt/lib", "shown in the confirmation");
        assert_eq!(form.display(), stored.display());
        form.env.insert("NEW".into(), Secret::new("v"));
        form.keep_values_from(&stored);
        assert_eq!(form.env["API_KEY"].expose(), "s3cret");
        assert_eq!(form.env["NEW"].expose(), "v");
    }

    #[test]
    fn validation_names_what_is_wrong() {
        assert!(validate_local(&filesystem()).is_ok());
        let key = |local: LocalCommand| validate_local(&local).unwrap_err().message.key.to_string();
        assert_eq!(key(LocalCommand::new(" ", vec![])), "errSettingsNoCommand");
        assert_eq!(key(LocalCommand::new("npx\nrm", vec![])), "errSettingsCommand");
        assert_eq!(key(LocalCommand::new("npx", vec!["a\0".into()])), "errSettingsArgs");
        let mut bad_env = filesystem();
        bad_env.env.insert("1X".into(), Secret::new("v"));
        assert_eq!(key(bad_env), "errSettingsEnvName");
        let mut bad_cwd = filesystem();
        bad_cwd.cwd = Some(" ".into());
        assert_eq!(key(bad_cwd), "errSettingsCwd");
    }
}
