//! The server form: what the person typed, and the checks that run as they type.
//!
//! Every rule comes from core: the URL from `url_policy`, the headers from
//! `settings::parse_headers`, and everything else by applying the edit to a copy of the current
//! document with `settings::apply`, exactly as the worker will. The worker checks again.
//! A local server's command line is checked by `settings::validate_local`.

use gemipanel_core::settings::{
    self, parse_headers, pkcs8_from_pem, validate_local, Field, IdentityProvider, LocalCommand,
    OAuthClient, Secret, Server, ServerDraft, ServerId, ServerPatch, Settings, SettingsEdit,
    SignInMethod,
};
use gemipanel_core::text::Text;
use gemipanel_core::url_policy::{self, Policy, UrlRefusal};
use gemipanel_core::web_url;

use crate::state::Pending;
use gemipanel_core::messages::ConnectionOutcome;
use gemipanel_core::native::run_line::RunLine;

/// Where a server runs: reached at a URL, or started on this computer by the bridge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ServerKind {
    #[default]
    Remote,
    Local,
}

/// The fields of the add/edit form, as text where the person types text.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ServerForm {
    /// `None` while adding a new server.
    pub editing: Option<ServerId>,
    /// Which of the two sets of fields is shown and saved; the other keeps what was typed in
    /// case the person switches back.
    pub kind: ServerKind,
    /// The server as the form was opened: saving sends only what differs from it, so a change
    /// made meanwhile elsewhere (trust, tool filters) is not undone.
    pub opened: Option<ServerDraft>,
    /// The person confirmed that the saved headers may go to the server's new address.
    pub headers_to_new_origin: bool,
    pub name: String,
    pub url: String,
    pub local_network: bool,
    pub headers: String,
    /// While editing, the stored headers are kept unless the person types into the box.
    pub headers_touched: bool,
    /// Number of headers the stored server has (their values stay out of the form).
    pub stored_headers: usize,
    /// Seconds; empty means the default.
    pub timeout: String,
    pub trust: bool,
    /// Comma-separated tool names; empty means all tools.
    pub include: String,
    pub exclude: String,
    pub enabled_by_default: bool,
    /// Sign-in (Advanced): how, a client id and secret or private key of the person's own
    /// with the authorization server they belong to, a client metadata document's URL, and
    /// for enterprise sign-in the identity provider. Stored secrets stay out of the form; an
    /// empty box keeps them.
    pub sign_in_method: SignInMethod,
    pub client_id: String,
    pub client_secret: String,
    pub has_stored_secret: bool,
    pub private_key: String,
    pub has_stored_key: bool,
    pub issuer: String,
    pub client_metadata_url: String,
    pub idp_issuer: String,
    pub idp_client_id: String,
    pub idp_client_secret: String,
    pub has_stored_idp_secret: bool,
    /// A local server's program, its arguments one per line, its environment one `NAME=value`
    /// per line (stored values stay out of the form: a blank value keeps the stored one) and
    /// its working folder (empty: the bridge's own).
    pub command: String,
    pub args: String,
    pub env: String,
    pub cwd: String,
    /// The line the bridge showed for the command as it was then.
    pub bridge_line: Option<(LocalCommand, RunLine)>,
    pub test: Pending<ConnectionOutcome>,
    pub saving: bool,
    /// An error from the save attempt: next to its field, or for the whole form.
    pub save_error: Option<(Option<Field>, String)>,
}

/// One change the person makes to the form.
#[derive(Debug, Clone, PartialEq)]
pub enum FormEdit {
    Name(String),
    Url(String),
    LocalNetwork(bool),
    Headers(String),
    Timeout(String),
    Trust(bool),
    Include(String),
    Exclude(String),
    EnabledByDefault(bool),
    HeadersToNewOrigin(bool),
    SignInMethod(SignInMethod),
    ClientId(String),
    ClientSecret(String),
    PrivateKey(String),
    Issuer(String),
    ClientMetadataUrl(String),
    IdpIssuer(String),
    IdpClientId(String),
    IdpClientSecret(String),
    Kind(ServerKind),
    Command(String),
    Args(String),
    Env(String),
    Cwd(String),
    /// The bridge's line for this command (`Request::PreviewCommand`): not typed, but what
    /// the preview shows and saving allows while the command stays as it is.
    BridgeLine(LocalCommand, Box<RunLine>),
}

/// The local server's fields, to show a problem next to the one it is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LocalField {
    Command,
    Args,
    Env,
    Cwd,
}

/// A problem with the command line as typed.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalProblem {
    pub field: LocalField,
    pub message: Text,
}

impl LocalProblem {
    /// Core reports every command-line problem on `Field::Command`; its message says which
    /// part is wrong.
    fn from_core(message: Text) -> Self {
        let field = match message.key.as_ref() {
            "errSettingsArgs" => LocalField::Args,
            "errSettingsEnvName" | "errSettingsEnvValue" => LocalField::Env,
            "errSettingsCwd" => LocalField::Cwd,
            _ => LocalField::Command,
        };
        LocalProblem { field, message }
    }

    fn env(message: Text) -> Self {
        LocalProblem { field: LocalField::Env, message }
    }
}

/// Problems found as the person types, shown next to their fields.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LiveErrors {
    pub url: Option<UrlRefusal>,
    pub headers: Option<Text>,
    pub timeout: bool,
    pub local: Option<LocalProblem>,
    /// A pasted private key that is not a P-256 key in PKCS #8.
    pub private_key: Option<Text>,
    /// A secret or key without the authorization server it belongs to: it would be sent to
    /// none (issue 22, item 8), so saving waits for it.
    pub issuer_missing: bool,
}

impl LiveErrors {
    pub fn any(&self) -> bool {
        self.url.is_some()
            || self.headers.is_some()
            || self.timeout
            || self.local.is_some()
            || self.private_key.is_some()
            || self.issuer_missing
    }

    /// The message to show next to one of the local server's fields.
    pub fn local_at(&self, field: LocalField) -> Option<&Text> {
        self.local.as_ref().filter(|p| p.field == field).map(|p| &p.message)
    }
}

impl ServerForm {
    pub fn new_server() -> Self {
        ServerForm { enabled_by_default: true, ..Default::default() }
    }

    /// The form for editing `server`; header and environment values stay out of it.
    pub fn edit(server: &Server) -> Self {
        let local = server.local.as_ref().map(LocalCommand::for_pages);
        let provider = server.oauth.identity_provider.as_ref();
        ServerForm {
            editing: Some(server.id.clone()),
            kind: if local.is_some() { ServerKind::Local } else { ServerKind::Remote },
            command: local.as_ref().map(|l| l.command.clone()).unwrap_or_default(),
            args: local.as_ref().map(|l| l.args.join("\n")).unwrap_or_default(),
            env: local.as_ref().map(env_text).unwrap_or_default(),
            cwd: local.as_ref().and_then(|l| l.cwd.clone()).unwrap_or_default(),
            opened: Some(ServerDraft::of(server)),
            name: server.name.clone(),
            url: server.url.clone(),
            local_network: server.local_network,
            stored_headers: server.headers.len(),
            timeout: seconds_text(server.timeout_ms),
            trust: server.trust,
            include: server.include_tools.as_deref().map(|t| t.join(", ")).unwrap_or_default(),
            exclude: server.exclude_tools.join(", "),
            enabled_by_default: server.enabled_by_default,
            sign_in_method: server.oauth.method,
            client_id: server.oauth.client_id.clone().unwrap_or_default(),
            has_stored_secret: server.oauth.client_secret.is_some(),
            has_stored_key: server.oauth.private_key.is_some(),
            issuer: server.oauth.issuer.clone().unwrap_or_default(),
            client_metadata_url: server.oauth.metadata_url.clone().unwrap_or_default(),
            idp_issuer: provider.map(|p| p.issuer.clone()).unwrap_or_default(),
            idp_client_id: provider.map(|p| p.client_id.clone()).unwrap_or_default(),
            has_stored_idp_secret: provider.is_some_and(|p| p.client_secret.is_some()),
            ..Default::default()
        }
    }

    pub fn change(&mut self, edit: FormEdit) {
        // A different address or credentials make the last test result meaningless.
        let stale_test = matches!(
            edit,
            FormEdit::Url(_)
                | FormEdit::Headers(_)
                | FormEdit::LocalNetwork(_)
                | FormEdit::Kind(_)
                | FormEdit::Command(_)
                | FormEdit::Args(_)
                | FormEdit::Env(_)
                | FormEdit::Cwd(_)
        );
        match edit {
            FormEdit::Name(v) => self.name = v,
            FormEdit::Url(v) => self.url = v,
            FormEdit::LocalNetwork(v) => self.local_network = v,
            FormEdit::Headers(v) => {
                self.headers = v;
                self.headers_touched = true;
            }
            FormEdit::Timeout(v) => self.timeout = v,
            FormEdit::Trust(v) => self.trust = v,
            FormEdit::Include(v) => self.include = v,
            FormEdit::Exclude(v) => self.exclude = v,
            FormEdit::EnabledByDefault(v) => self.enabled_by_default = v,
            FormEdit::HeadersToNewOrigin(v) => self.headers_to_new_origin = v,
            FormEdit::SignInMethod(v) => self.sign_in_method = v,
            FormEdit::ClientId(v) => self.client_id = v,
            FormEdit::ClientSecret(v) => self.client_secret = v,
            FormEdit::PrivateKey(v) => self.private_key = v,
            FormEdit::Issuer(v) => self.issuer = v,
            FormEdit::ClientMetadataUrl(v) => self.client_metadata_url = v,
            FormEdit::IdpIssuer(v) => self.idp_issuer = v,
            FormEdit::IdpClientId(v) => self.idp_client_id = v,
            FormEdit::IdpClientSecret(v) => self.idp_client_secret = v,
            FormEdit::Kind(v) => self.kind = v,
            FormEdit::Command(v) => self.command = v,
            FormEdit::Args(v) => self.args = v,
            FormEdit::Env(v) => self.env = v,
            FormEdit::Cwd(v) => self.cwd = v,
            FormEdit::BridgeLine(local, line) => self.bridge_line = Some((local, *line)),
        }
        if stale_test {
            self.test = Pending::Idle;
        }
        self.save_error = None;
    }

    /// What is wrong so far, in the fields of the kind shown. An empty URL or program is not an
    /// error yet: the person has not typed it.
    pub fn live_errors(&self) -> LiveErrors {
        let timeout = parse_timeout(&self.timeout).is_err();
        match self.kind {
            ServerKind::Remote => LiveErrors {
                url: self.url_refusal(),
                headers: parse_headers(&self.headers).err().map(|e| e.message),
                timeout,
                local: None,
                private_key: match self.private_key.trim() {
                    pem if !pem.is_empty() && self.uses_key() => {
                        pkcs8_from_pem(pem).err().map(|p| Text::new(p.message_key()))
                    }
                    _ => None,
                },
                issuer_missing: self.issuer_missing(),
            },
            ServerKind::Local => {
                LiveErrors { timeout, local: self.local_problem(), ..LiveErrors::default() }
            }
        }
    }

    /// Whether a secret or key (typed, or kept from before) has no authorization server to
    /// belong to.
    fn issuer_missing(&self) -> bool {
        let typed = |s: &str| !s.trim().is_empty();
        let secret = typed(&self.client_secret) || self.has_stored_secret;
        let key = self.uses_key() && (typed(&self.private_key) || self.has_stored_key);
        typed(&self.client_id) && (secret || key) && !typed(&self.issuer)
    }

    /// A private key is a client credentials thing: the other methods' forms have no box
    /// for it, and what was typed there is not used.
    fn uses_key(&self) -> bool {
        self.sign_in_method == SignInMethod::ClientCredentials
    }

    /// What Test connection found: the authorization server the server names fills an empty
    /// issuer box while a client of the person's own is being entered (they see it before
    /// saving; its secret then goes there and nowhere else).
    pub fn take_test_outcome(&mut self, outcome: &ConnectionOutcome) {
        if let ConnectionOutcome::NeedsSignIn { issuer: Some(issuer) } = outcome {
            if self.issuer.trim().is_empty() && !self.client_id.trim().is_empty() {
                self.issuer = issuer.clone();
            }
        }
    }

    fn url_refusal(&self) -> Option<UrlRefusal> {
        match self.url.trim() {
            "" => None,
            url => url_policy::check(url, Policy::Configured { local_network: self.local_network })
                .err(),
        }
    }

    /// The command line as typed; an environment line without `=` or a name set twice is
    /// refused here, the rest by `validate_local`.
    pub fn local_command(&self) -> Result<LocalCommand, LocalProblem> {
        let text = |s: &str| Some(s.trim().to_owned()).filter(|s| !s.is_empty());
        Ok(LocalCommand {
            command: self.command.trim().to_owned(),
            args: arg_lines(&self.args),
            env: parse_env(&self.env)?.into_iter().collect(),
            cwd: text(&self.cwd),
        })
    }

    fn local_problem(&self) -> Option<LocalProblem> {
        let local = match self.local_command() {
            Ok(local) => local,
            Err(problem) => return Some(problem),
        };
        // The other parts are checked before a program is typed: a stand-in keeps
        // `validate_local` from stopping at the blank program.
        let checked = match local.command.is_empty() {
            true => LocalCommand { command: "program".into(), ..local },
            false => local,
        };
        validate_local(&checked).err().map(|invalid| LocalProblem::from_core(invalid.message))
    }

    /// The command line the bridge would run, as the person reads it (environment values
    /// hidden); `None` until a program is typed and every line reads.
    pub fn command_preview(&self) -> Option<RunLine> {
        let local = self.local_command().ok().filter(|l| !l.command.is_empty())?;
        Some(self.bridge_line_of(&local).cloned().unwrap_or_else(|| local.run_line()))
    }

    /// The fingerprint of the bridge's line for the command as typed now, if it showed one.
    pub fn bridge_line_fingerprint(&self) -> Option<String> {
        let local = self.local_command().ok()?;
        self.bridge_line_of(&local).map(|line| line.fingerprint.clone())
    }

    /// The bridge's line for `local`, if it showed one for this very command.
    fn bridge_line_of(&self, local: &LocalCommand) -> Option<&RunLine> {
        self.bridge_line.as_ref().filter(|(shown, _)| shown == local).map(|(_, line)| line)
    }

    /// Whether the stored server has environment values the form does not show.
    pub fn keeps_env_values(&self) -> bool {
        let stored = self.opened.as_ref().and_then(|o| o.local.as_ref());
        stored.is_some_and(|l| !l.env.is_empty())
    }

    /// Whether saving would send the stored header values to another origin than before: the
    /// form then asks the person to confirm it (or to type the headers again).
    pub fn needs_header_confirmation(&self) -> bool {
        let Some(opened) = &self.opened else { return false };
        if self.kind == ServerKind::Local {
            return false;
        }
        let origin = |url: &str| web_url::parse(url.trim()).map(|u| u.origin());
        self.stored_headers > 0
            && !self.headers_touched
            && self.live_errors().url.is_none()
            && origin(&opened.url) != origin(&self.url)
    }

    /// The draft to test or save, or `None` while a live error stands or the URL (or the
    /// program) is still empty.
    pub fn draft(&self) -> Option<ServerDraft> {
        let timeout_ms = parse_timeout(&self.timeout).ok()?;
        let kind_fields = match self.kind {
            ServerKind::Remote => self.remote_draft()?,
            ServerKind::Local => self.local_draft()?,
        };
        Some(ServerDraft {
            name: self.name.trim().to_string(),
            timeout_ms,
            trust: self.trust,
            include_tools: match tool_list(&self.include) {
                list if list.is_empty() => None,
                list => Some(list),
            },
            exclude_tools: tool_list(&self.exclude),
            enabled_by_default: self.enabled_by_default,
            ..kind_fields
        })
    }

    /// The remote-only fields: URL, headers, local network and sign-in client.
    fn remote_draft(&self) -> Option<ServerDraft> {
        let headers = parse_headers(&self.headers).ok()?;
        if self.url.trim().is_empty() || self.url_refusal().is_some() {
            return None;
        }
        Some(ServerDraft {
            // On update, untouched headers are kept by the worker.
            headers: (self.editing.is_none() || self.headers_touched).then_some(headers),
            local_network: self.local_network,
            oauth: self.oauth_client(),
            ..ServerDraft::new("", self.url.trim())
        })
    }

    /// The command line; a local server has no URL, headers or sign-in of its own.
    fn local_draft(&self) -> Option<ServerDraft> {
        let local = self.local_command().ok()?;
        if local.command.is_empty() || self.local_problem().is_some() {
            return None;
        }
        Some(ServerDraft::local("", local))
    }

    /// The sign-in client as typed; an untouched secret box keeps the stored secret (the blank
    /// copy the popup holds stands for it), and so do the key and the identity provider's
    /// secret boxes.
    fn oauth_client(&self) -> OAuthClient {
        let text = |s: &str| Some(s.trim().to_owned()).filter(|s| !s.is_empty());
        let opened = self.opened.as_ref().map(|o| &o.oauth);
        let secret = |typed: &str, stored: Option<&Secret>| match text(typed) {
            Some(typed) => Some(Secret::new(typed)),
            None => stored.cloned(),
        };
        let client_id = text(&self.client_id);
        let has_id = client_id.is_some();
        let stored_provider = opened.and_then(|o| o.identity_provider.as_ref());
        let identity_provider = match (text(&self.idp_issuer), text(&self.idp_client_id)) {
            (None, None) => None,
            (issuer, client_id) => Some(IdentityProvider {
                issuer: issuer.unwrap_or_default(),
                client_id: client_id.unwrap_or_default(),
                client_secret: secret(
                    &self.idp_client_secret,
                    stored_provider.and_then(|p| p.client_secret.as_ref()),
                ),
            }),
        };
        OAuthClient {
            client_secret: secret(
                &self.client_secret,
                opened.and_then(|o| o.client_secret.as_ref()),
            )
            .filter(|_| has_id),
            private_key: secret(&self.private_key, opened.and_then(|o| o.private_key.as_ref()))
                .filter(|_| has_id && self.uses_key()),
            client_id,
            metadata_url: text(&self.client_metadata_url),
            issuer: text(&self.issuer),
            method: self.sign_in_method,
            identity_provider: identity_provider
                .filter(|_| self.sign_in_method == SignInMethod::Enterprise),
        }
    }

    /// Saving a local server is the person allowing the command line the form showed them:
    /// the edit that records it, sent once `save` (this form's [`Self::save_edit`]) succeeded.
    pub fn confirm_edit(&self, save: &SettingsEdit) -> Option<SettingsEdit> {
        let id = match save {
            SettingsEdit::AddServer { id, .. } | SettingsEdit::UpdateServer { id, .. } => id,
            _ => return None,
        };
        let local = self.draft()?.local?;
        // What the preview showed: the bridge's line when it showed one for this command.
        let run = self.bridge_line_of(&local).map(|line| line.fingerprint.clone());
        Some(SettingsEdit::ConfirmCommand { id: id.clone(), command_line: local.display(), run })
    }

    /// The edit that saves the form, checked against `settings` as the worker will check it.
    /// `new_id` is used when adding.
    pub fn save_edit(
        &self,
        settings: &Settings,
        new_id: ServerId,
    ) -> Result<SettingsEdit, (Option<Field>, Option<Text>)> {
        let Some(draft) = self.draft() else {
            return Err((None, None));
        };
        let edit = match (&self.editing, &self.opened) {
            (Some(id), Some(opened)) => {
                let mut changes = ServerPatch::between(opened, &draft);
                changes.headers_to_new_origin = self.headers_to_new_origin;
                SettingsEdit::UpdateServer { id: id.clone(), changes }
            }
            _ => SettingsEdit::AddServer { id: new_id, server: draft },
        };
        match settings::apply(settings, &edit) {
            Ok(_) => Ok(edit),
            Err(err) => {
                let message = match &err {
                    settings::EditError::Invalid(invalid) => invalid.message.clone(),
                    other => other.text(),
                };
                Err((Some(err.field()), Some(message)))
            }
        }
    }
}

/// `12.5` → 12 500 ms. Empty means the default timeout.
pub fn parse_timeout(text: &str) -> Result<Option<u64>, ()> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    match text.replace(',', ".").parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= 1.0e9 => Ok(Some((s * 1000.0).round() as u64)),
        _ => Err(()),
    }
}

fn seconds_text(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        (ms / 1000).to_string()
    } else {
        format!("{}", ms as f64 / 1000.0)
    }
}

/// One argument a line, without the spaces around it; blank lines are left out.
pub fn arg_lines(text: &str) -> Vec<String> {
    text.lines().map(str::trim).filter(|a| !a.is_empty()).map(String::from).collect()
}

/// `NAME=value` a line (blank lines left out). A line without `=` is named by its number, not
/// its text, which may be a pasted secret.
pub fn parse_env(text: &str) -> Result<Vec<(String, Secret)>, LocalProblem> {
    let mut env: Vec<(String, Secret)> = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let Some((name, value)) = line.split_once('=') else {
            return Err(LocalProblem::env(Text::new("popupEnvNoEquals").arg(index + 1)));
        };
        let name = name.trim().to_owned();
        if env.iter().any(|(known, _)| *known == name) {
            return Err(LocalProblem::env(Text::new("popupEnvTwice").arg(name)));
        }
        env.push((name, Secret::new(value.trim())));
    }
    Ok(env)
}

/// The environment as the form shows it: names, each with its value (blank for a stored one).
fn env_text(local: &LocalCommand) -> String {
    let lines: Vec<String> =
        local.env.iter().map(|(name, value)| format!("{name}={}", value.expose())).collect();
    lines.join("\n")
}

/// "a, b ,,c" → ["a", "b", "c"].
pub fn tool_list(text: &str) -> Vec<String> {
    text.split([',', '\n']).map(str::trim).filter(|t| !t.is_empty()).map(String::from).collect()
}

/// The host permission to ask for before saving or testing `url`, inside the click: `None`
/// when the manifest grants it already.
pub fn host_permission(url: &str) -> Option<String> {
    url_policy::host_permission(url)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gemipanel_core::url_policy::RefusalKind;

    fn typed(edits: Vec<FormEdit>) -> ServerForm {
        let mut form = ServerForm::new_server();
        for edit in edits {
            form.change(edit);
        }
        form
    }

    #[test]
    fn url_refusals_show_as_you_type() {
        let form = typed(vec![FormEdit::Url("http://example.com/mcp".into())]);
        assert_eq!(form.live_errors().url.map(|r| r.kind()), Some(RefusalKind::Insecure));
        assert!(form.draft().is_none());

        let form = typed(vec![FormEdit::Url("https://192.168.1.5/mcp".into())]);
        assert!(form.live_errors().url.is_some_and(|r| r.needs_local_network()));
        let ticked = typed(vec![
            FormEdit::Url("https://192.168.1.5/mcp".into()),
            FormEdit::LocalNetwork(true),
        ]);
        assert_eq!(ticked.live_errors(), LiveErrors::default());

        for ok in ["", "http://127.0.0.1:3001/mcp", "https://mcp.example.com/mcp"] {
            assert_eq!(typed(vec![FormEdit::Url(ok.into())]).live_errors().url, None, "{ok}");
        }
    }

    #[test]
    fn headers_are_checked_as_you_type() {
        let bad = typed(vec![FormEdit::Headers("{\"Authorization\": 5}".into())]);
        let error = bad.live_errors().headers.expect("an error");
        assert!(error.to_string().contains("Authorization"), "{error}");
        let not_json = typed(vec![FormEdit::Headers("{\"X-Key\": \"secret".into())]);
        assert!(not_json.live_errors().headers.is_some_and(|e| !e.to_string().contains("secret")));
        let good = typed(vec![FormEdit::Headers("{\"X-Key\": \"v\"}".into())]);
        assert_eq!(good.live_errors().headers, None);
    }

    #[test]
    fn a_draft_carries_every_field() {
        let form = typed(vec![
            FormEdit::Name(" Everything ".into()),
            FormEdit::Url("http://127.0.0.1:3001/mcp".into()),
            FormEdit::Headers("{\"X-Key\": \"v\"}".into()),
            FormEdit::Timeout("12.5".into()),
            FormEdit::Trust(true),
            FormEdit::Include("echo, get-sum,".into()),
            FormEdit::Exclude("".into()),
            FormEdit::EnabledByDefault(false),
        ]);
        let draft = form.draft().expect("valid");
        assert_eq!(draft.name, "Everything");
        assert_eq!(draft.timeout_ms, Some(12_500));
        assert_eq!(draft.headers.map(|h| h.len()), Some(1));
        assert_eq!(draft.include_tools, Some(vec!["echo".to_string(), "get-sum".to_string()]));
        assert_eq!(draft.exclude_tools, Vec::<String>::new());
        assert!(draft.trust && !draft.enabled_by_default);
    }

    #[test]
    fn timeouts_must_be_positive_numbers_of_seconds() {
        assert_eq!(parse_timeout(""), Ok(None));
        assert_eq!(parse_timeout("30"), Ok(Some(30_000)));
        assert_eq!(parse_timeout("0,5"), Ok(Some(500)));
        for bad in ["0", "-1", "abc", "NaN", "inf"] {
            assert_eq!(parse_timeout(bad), Err(()), "{bad}");
        }
        assert!(typed(vec![FormEdit::Timeout("x".into())]).live_errors().timeout);
    }

    #[test]
    fn save_checks_the_rest_like_the_worker_does() {
        let id = ServerId::generate([1; 16]);
        let mut settings = Settings::default();
        let form = typed(vec![
            FormEdit::Name("Everything".into()),
            FormEdit::Url("http://127.0.0.1:3001/mcp".into()),
        ]);
        let edit = form.save_edit(&settings, id.clone()).expect("valid");
        settings = settings::apply(&settings, &edit).unwrap();

        // The same name again is refused next to the name field.
        let again = form.save_edit(&settings, ServerId::generate([2; 16])).unwrap_err();
        assert_eq!(again.0, Some(Field::Name));

        let unnamed = typed(vec![FormEdit::Url("http://127.0.0.1:3001/mcp".into())]);
        assert_eq!(
            unnamed.save_edit(&settings, ServerId::generate([3; 16])).unwrap_err().0,
            Some(Field::Name)
        );

        let slow = typed(vec![
            FormEdit::Name("Slow".into()),
            FormEdit::Url("http://127.0.0.1:3001/mcp".into()),
            FormEdit::Timeout("100000".into()),
        ]);
        assert_eq!(
            slow.save_edit(&settings, ServerId::generate([4; 16])).unwrap_err().0,
            Some(Field::Timeout)
        );
    }

    #[test]
    fn editing_keeps_stored_headers_unless_retyped() {
        let id = ServerId::generate([1; 16]);
        let draft = ServerDraft {
            headers: Some(parse_headers("{\"X-Key\": \"secret\"}").unwrap()),
            ..ServerDraft::new("A", "https://a.example/mcp")
        };
        let settings = settings::apply(
            &Settings::default(),
            &SettingsEdit::AddServer { id: id.clone(), server: draft },
        )
        .unwrap();
        let mut form = ServerForm::edit(&settings.servers[0]);
        assert_eq!((form.stored_headers, form.headers.as_str()), (1, ""));
        assert_eq!(form.draft().unwrap().headers, None);
        assert_eq!(form.timeout, "30");
        form.change(FormEdit::Headers(String::new()));
        assert_eq!(form.draft().unwrap().headers, Some(Default::default()));
    }

    #[test]
    fn changing_the_address_forgets_the_test_result() {
        let mut form = typed(vec![FormEdit::Url("http://127.0.0.1:1/mcp".into())]);
        form.test = Pending::Running;
        form.change(FormEdit::Trust(true));
        assert_eq!(form.test, Pending::Running);
        form.change(FormEdit::Url("http://127.0.0.1:2/mcp".into()));
        assert_eq!(form.test, Pending::Idle);
    }

    #[test]
    fn every_address_the_manifest_does_not_grant_needs_a_permission() {
        assert_eq!(
            host_permission("https://mcp.example.com:8443/mcp").as_deref(),
            Some("https://mcp.example.com/*")
        );
        assert_eq!(host_permission("http://127.0.0.1:3001/mcp"), None);
        assert_eq!(host_permission("http://[::1]:3001/mcp"), None);
        // Loopback too, where the manifest does not name it.
        assert_eq!(
            host_permission("https://localhost/mcp").as_deref(),
            Some("https://localhost/*")
        );
        assert_eq!(
            host_permission("http://127.0.0.2:9/mcp").as_deref(),
            Some("http://127.0.0.2/*")
        );
        assert_eq!(host_permission("not a url"), None);
    }

    #[test]
    fn saving_an_edit_sends_only_what_changed() {
        let id = ServerId::generate([1; 16]);
        let settings = settings::apply(
            &Settings::default(),
            &SettingsEdit::AddServer {
                id: id.clone(),
                server: ServerDraft::new("A", "https://a.example/mcp"),
            },
        )
        .unwrap();
        let mut form = ServerForm::edit(&settings.servers[0]);
        form.change(FormEdit::Name("B".into()));
        match form.save_edit(&settings, ServerId::generate([2; 16])).unwrap() {
            SettingsEdit::UpdateServer { changes, .. } => {
                assert_eq!(
                    changes,
                    ServerPatch { name: Some("B".into()), ..ServerPatch::default() }
                )
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn moving_a_server_with_headers_to_another_origin_asks_first() {
        let id = ServerId::generate([1; 16]);
        let draft = ServerDraft {
            headers: Some(parse_headers("{\"X-Key\": \"secret\"}").unwrap()),
            ..ServerDraft::new("A", "https://a.example/mcp")
        };
        let settings =
            settings::apply(&Settings::default(), &SettingsEdit::AddServer { id, server: draft })
                .unwrap()
                .for_pages();
        let mut form = ServerForm::edit(&settings.servers[0]);
        form.change(FormEdit::Url("https://a.example/other".into()));
        assert!(!form.needs_header_confirmation(), "same origin");
        form.change(FormEdit::Url("https://b.example/mcp".into()));
        assert!(form.needs_header_confirmation());
        let refused = form.save_edit(&settings, ServerId::generate([2; 16])).unwrap_err();
        assert_eq!(refused.0, Some(Field::Headers));
        form.change(FormEdit::HeadersToNewOrigin(true));
        assert!(form.save_edit(&settings, ServerId::generate([2; 16])).is_ok());
    }

    fn local_form(command: &str, args: &str, env: &str) -> ServerForm {
        typed(vec![
            FormEdit::Name("Files".into()),
            FormEdit::Kind(ServerKind::Local),
            FormEdit::Command(command.into()),
            FormEdit::Args(args.into()),
            FormEdit::Env(env.into()),
        ])
    }

    /// A stored local server as the popup receives it (environment values blanked).
    fn stored_local() -> (Settings, ServerId) {
        let id = ServerId::generate([5; 16]);
        let mut local = LocalCommand::new("npx", vec!["-y".into(), "server-files".into()]);
        local.env.insert("API_KEY".into(), Secret::new("s3cret"));
        let edit =
            SettingsEdit::AddServer { id: id.clone(), server: ServerDraft::local("F", local) };
        (settings::apply(&Settings::default(), &edit).unwrap(), id)
    }

    #[test]
    fn switching_kind_shows_and_saves_the_other_fields_only() {
        let mut form = typed(vec![
            FormEdit::Name("A".into()),
            FormEdit::Url("http://example.com/mcp".into()),
            FormEdit::Headers("{".into()),
        ]);
        assert!(form.live_errors().url.is_some() && form.live_errors().headers.is_some());
        form.test = Pending::Running;
        form.change(FormEdit::Kind(ServerKind::Local));
        assert_eq!(form.test, Pending::Idle, "a test of the other kind says nothing");
        // The remote fields' problems are not this kind's; the blank program is not one yet.
        assert_eq!(form.live_errors(), LiveErrors::default());
        assert!(form.draft().is_none(), "no program yet");
        form.change(FormEdit::Command("uvx".into()));
        let draft = form.draft().expect("valid");
        assert_eq!((draft.url.as_str(), draft.headers.clone()), ("", None));
        assert_eq!(draft.local, Some(LocalCommand::new("uvx", vec![])));

        // What was typed for the other kind is still there on the way back.
        form.change(FormEdit::Kind(ServerKind::Remote));
        assert_eq!(form.url, "http://example.com/mcp");
        assert!(form.live_errors().url.is_some());
        assert!(form.draft().is_none());
    }

    #[test]
    fn arguments_and_environment_are_read_one_per_line() {
        assert_eq!(
            arg_lines(" -y \n\n@scope/server\r\n/tmp/my dir\n"),
            vec!["-y".to_string(), "@scope/server".into(), "/tmp/my dir".into()]
        );
        let env = parse_env("API_KEY = s3cret\n\nURL=https://x.example/?a=b\n").unwrap();
        let read: Vec<(&str, &str)> = env.iter().map(|(n, v)| (n.as_str(), v.expose())).collect();
        assert_eq!(read, vec![("API_KEY", "s3cret"), ("URL", "https://x.example/?a=b")]);
    }

    #[test]
    fn a_bad_environment_line_is_named_next_to_the_field() {
        let form = local_form("npx", "", "A=1\nsecret-token-pasted-alone");
        let problem = form.live_errors().local.expect("an error");
        assert_eq!(problem.field, LocalField::Env);
        assert_eq!(problem.message, Text::new("popupEnvNoEquals").arg(2));
        assert!(form.draft().is_none());

        let twice = local_form("npx", "", "A=1\nA=2").live_errors();
        assert_eq!(twice.local_at(LocalField::Env), Some(&Text::new("popupEnvTwice").arg("A")));

        // Core's rules, shown next to the part they are about, before a program is typed.
        let bad_name = local_form("", "", "1X=v").live_errors();
        assert_eq!(
            bad_name.local_at(LocalField::Env).map(|t| t.key.as_ref()),
            Some("errSettingsEnvName")
        );
        let bad_cwd = typed(vec![
            FormEdit::Kind(ServerKind::Local),
            FormEdit::Command("npx".into()),
            FormEdit::Cwd("a\0b".into()),
        ]);
        assert!(bad_cwd.live_errors().local_at(LocalField::Cwd).is_some());
        assert_eq!(local_form("", "-y", "A=1").live_errors(), LiveErrors::default());
    }

    #[test]
    fn a_local_draft_carries_the_command_line_and_no_url() {
        let mut form = local_form("  npx ", "-y\n@modelcontextprotocol/server-filesystem", "KEY=v");
        form.change(FormEdit::Cwd(" /home/me ".into()));
        form.change(FormEdit::Timeout("60".into()));
        form.change(FormEdit::Trust(true));
        let draft = form.draft().expect("valid");
        let local = draft.local.clone().expect("local");
        assert_eq!(local.command, "npx");
        assert_eq!(local.args, vec!["-y", "@modelcontextprotocol/server-filesystem"]);
        assert_eq!(local.env["KEY"].expose(), "v");
        assert_eq!(local.cwd.as_deref(), Some("/home/me"));
        assert_eq!((draft.url.as_str(), draft.headers, draft.local_network), ("", None, false));
        assert_eq!((draft.timeout_ms, draft.trust), (Some(60_000), true));
        let needs = crate::permissions::Needs::of(&form.draft().expect("valid"));
        assert_eq!(needs, crate::permissions::Needs::local(), "no site; leave to start programs");

        let edit = form.save_edit(&Settings::default(), ServerId::generate([1; 16])).unwrap();
        assert!(matches!(&edit, SettingsEdit::AddServer { server, .. } if server.local.is_some()));
    }

    #[test]
    fn the_preview_is_the_line_that_runs_with_values_hidden() {
        let mut form = local_form("npx", "-y\n/tmp/my dir", "API_KEY=s3cret");
        let preview = |form: &ServerForm| form.command_preview().map(|line| line.text());
        assert_eq!(preview(&form).as_deref(), Some("API_KEY=… npx -y '/tmp/my dir'"));
        form.change(FormEdit::Cwd("/srv".into()));
        assert_eq!(preview(&form).as_deref(), Some("(cd /srv && API_KEY=… npx -y '/tmp/my dir')"));
        assert_eq!(local_form("", "-y", "").command_preview(), None);
        assert_eq!(local_form("npx", "", "broken").command_preview(), None);
    }

    #[test]
    fn saving_a_local_server_confirms_the_line_shown() {
        let form = local_form("npx", "-y\nserver-files", "API_KEY=s3cret");
        let id = ServerId::generate([1; 16]);
        let add = form.save_edit(&Settings::default(), id.clone()).unwrap();
        let confirm = form.confirm_edit(&add).expect("a local server is confirmed");
        let command_line = form.command_preview().unwrap().text();
        let expected = SettingsEdit::ConfirmCommand {
            id: id.clone(),
            command_line: command_line.clone(),
            run: None,
        };
        assert_eq!(confirm, expected, "no bridge line yet: the line as configured");
        let settings = settings::apply(&Settings::default(), &add).unwrap();
        let confirmed = settings::apply(&settings, &confirm).expect("the worker accepts it");
        assert!(confirmed.servers[0].allowed_run().is_some());

        // The bridge's line for this command is what the preview shows and saving allows.
        let mut form = form;
        let local = form.local_command().unwrap();
        let mut line = local.run_line();
        line.expanded = true;
        line.fingerprint = "bridge".into();
        form.change(FormEdit::BridgeLine(local, Box::new(line.clone())));
        assert_eq!(form.command_preview(), Some(line));
        let confirm = form.confirm_edit(&add).unwrap();
        let run = Some("bridge".to_owned());
        assert_eq!(confirm, SettingsEdit::ConfirmCommand { id: id.clone(), command_line, run });
        let confirmed = settings::apply(&settings, &confirm).unwrap();
        assert_eq!(confirmed.servers[0].allowed_run().as_deref(), Some("bridge"));
        // Typed on since: that line is not this command's any more.
        form.change(FormEdit::Args("-y\nserver-files\n--more".into()));
        assert!(!form.command_preview().unwrap().expanded);
        assert!(matches!(
            form.confirm_edit(&add),
            Some(SettingsEdit::ConfirmCommand { run: None, .. })
        ));

        let remote = typed(vec![
            FormEdit::Name("R".into()),
            FormEdit::Url("http://127.0.0.1:3001/mcp".into()),
        ]);
        let add = remote.save_edit(&Settings::default(), id).unwrap();
        assert_eq!(remote.confirm_edit(&add), None);
    }

    #[test]
    fn editing_a_local_server_opens_on_its_command_and_keeps_blank_values() {
        let (stored, id) = stored_local();
        let for_pages = stored.for_pages();
        let mut form = ServerForm::edit(&for_pages.servers[0]);
        assert_eq!(form.kind, ServerKind::Local);
        assert_eq!((form.command.as_str(), form.args.as_str()), ("npx", "-y\nserver-files"));
        assert_eq!(form.env, "API_KEY=", "the stored value stays out of the form");
        assert!(form.keeps_env_values());

        // Only the arguments change: the blank value keeps the stored one.
        form.change(FormEdit::Args("-y\nserver-files\n--read-only".into()));
        let update = form.save_edit(&for_pages, ServerId::generate([2; 16])).unwrap();
        let SettingsEdit::UpdateServer { changes, .. } = &update else { panic!("{update:?}") };
        assert_eq!(changes.url, None);
        let sent = changes.local.clone().flatten().expect("the new command line");
        assert_eq!(sent.env["API_KEY"].expose(), "");
        let saved = settings::apply(&stored, &update).unwrap();
        let local = saved.server(&id).unwrap().local.clone().unwrap();
        assert_eq!(local.env["API_KEY"].expose(), "s3cret");
        assert_eq!(local.args.last().map(String::as_str), Some("--read-only"));

        // Update, then confirm the line the form showed.
        let confirm = form.confirm_edit(&update).unwrap();
        let confirmed = settings::apply(&saved, &confirm).expect("same line as stored");
        assert!(confirmed.server(&id).unwrap().confirmed_command.is_some());
    }

    #[test]
    fn an_untouched_local_server_saves_no_command_change() {
        let (stored, _) = stored_local();
        let for_pages = stored.for_pages();
        let mut form = ServerForm::edit(&for_pages.servers[0]);
        form.change(FormEdit::Trust(true));
        match form.save_edit(&for_pages, ServerId::generate([2; 16])).unwrap() {
            SettingsEdit::UpdateServer { changes, .. } => {
                assert_eq!(changes, ServerPatch { trust: Some(true), ..ServerPatch::default() })
            }
            other => panic!("{other:?}"),
        }
    }

    const PEM: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgv0BAvkftLG1fbmAq
gSlHB+0seRYZjdD0WzUL+TU+VTahRANCAASAJrhgpEVy5o0OXEO0NLMkB2izvBPv
BzsJ5SbTB5WSR9jlbnaowpsP+/nFBeM5yy7hfeUqP4q/pPR9xgyWjh1m
-----END PRIVATE KEY-----";

    fn remote(edits: Vec<FormEdit>) -> ServerForm {
        let mut all = vec![
            FormEdit::Name("Work".into()),
            FormEdit::Url("https://mcp.example.com/mcp".into()),
        ];
        all.extend(edits);
        typed(all)
    }

    #[test]
    fn a_secret_waits_for_the_authorization_server_it_belongs_to_which_test_fills_in() {
        let mut form = remote(vec![
            FormEdit::ClientId("mine".into()),
            FormEdit::ClientSecret("s3cret".into()),
        ]);
        assert!(form.live_errors().issuer_missing && form.live_errors().any());
        // Test found the authorization server the server names: the box fills, the person sees it.
        let found =
            ConnectionOutcome::NeedsSignIn { issuer: Some("https://auth.example.com/".into()) };
        form.take_test_outcome(&found);
        assert_eq!(form.issuer, "https://auth.example.com/");
        assert!(!form.live_errors().any());
        let oauth = form.draft().unwrap().oauth;
        assert_eq!(oauth.issuer.as_deref(), Some("https://auth.example.com/"));
        assert_eq!(oauth.client_secret.as_ref().map(Secret::expose), Some("s3cret"));
        // One typed by the person is never replaced by a test.
        form.change(FormEdit::Issuer("https://mine.example.com".into()));
        form.take_test_outcome(&found);
        assert_eq!(form.issuer, "https://mine.example.com");
        // A client id alone (a public client) has no secret to bind.
        assert!(!remote(vec![FormEdit::ClientId("mine".into())]).live_errors().issuer_missing);
    }

    #[test]
    fn client_credentials_with_a_pasted_key_and_enterprise_sign_in_reach_the_draft() {
        let form = remote(vec![
            FormEdit::SignInMethod(SignInMethod::ClientCredentials),
            FormEdit::ClientId("machine".into()),
            FormEdit::PrivateKey(PEM.into()),
            FormEdit::Issuer("https://auth.example.com".into()),
        ]);
        assert_eq!(form.live_errors(), LiveErrors::default());
        let oauth = form.draft().unwrap().oauth;
        assert_eq!(oauth.method, SignInMethod::ClientCredentials);
        assert_eq!(oauth.private_key.as_ref().map(Secret::expose), Some(PEM));
        let rsa = remote(vec![FormEdit::SignInMethod(SignInMethod::ClientCredentials), FormEdit::PrivateKey("-----BEGIN PRIVATE KEY-----\nMIICdgIBADANBgkqhkiG9w0BAQEFAASCAmAw\n-----END PRIVATE KEY-----".into())]);
        assert_eq!(
            rsa.live_errors().private_key.map(|t| t.key.to_string()).as_deref(),
            Some("errKeyNotP256")
        );

        let form = remote(vec![
            FormEdit::SignInMethod(SignInMethod::Enterprise),
            FormEdit::IdpIssuer("https://login.example.com".into()),
            FormEdit::IdpClientId("gemipanel".into()),
            FormEdit::ClientId("xaa-client".into()),
            FormEdit::ClientSecret("xaa-secret".into()),
            FormEdit::Issuer("https://auth.example.com".into()),
        ]);
        let oauth = form.draft().unwrap().oauth;
        let provider = oauth.identity_provider.expect("the identity provider");
        assert_eq!(
            (provider.issuer.as_str(), provider.client_id.as_str()),
            ("https://login.example.com", "gemipanel")
        );
        assert_eq!(oauth.method, SignInMethod::Enterprise);
        let saved = form.save_edit(&Settings::default(), ServerId::generate([3; 16]));
        assert!(saved.is_ok(), "{saved:?}");
    }

    #[test]
    fn stored_keys_and_secrets_stay_out_of_the_form_and_are_kept() {
        let id = ServerId::generate([4; 16]);
        let mut server = Server::blank(id.clone(), "Work".into());
        server.url = "https://mcp.example.com/mcp".into();
        server.oauth = OAuthClient {
            client_id: Some("machine".into()),
            private_key: Some(Secret::new(PEM)),
            issuer: Some("https://auth.example.com".into()),
            method: SignInMethod::ClientCredentials,
            ..OAuthClient::default()
        };
        let stored = Settings { servers: vec![server], ..Settings::default() };
        let shown = stored.for_pages();
        let mut form = ServerForm::edit(&shown.servers[0]);
        assert!(form.has_stored_key && form.private_key.is_empty());
        assert!(!form.live_errors().issuer_missing);
        form.change(FormEdit::Name("Renamed".into()));
        let edit = form.save_edit(&shown, ServerId::generate([5; 16])).unwrap();
        let saved = settings::apply(&stored, &edit).unwrap();
        assert_eq!(saved.servers[0].oauth.private_key.as_ref().map(Secret::expose), Some(PEM));
    }
}
