//! The server form: what the person typed, and the checks that run as they type.
//!
//! Every rule comes from core: the URL from `url_policy`, the headers from
//! `settings::parse_headers`, and everything else by applying the edit to a copy of the current
//! document with `settings::apply`, exactly as the worker will. The worker checks again.

use gemipanel_core::settings::{
    self, parse_headers, Field, OAuthClient, Secret, Server, ServerDraft, ServerId, ServerPatch,
    Settings, SettingsEdit,
};
use gemipanel_core::text::Text;
use gemipanel_core::url_policy::{self, Policy, UrlRefusal};
use gemipanel_core::web_url;

use crate::state::Pending;
use gemipanel_core::messages::ConnectionOutcome;

/// The fields of the add/edit form, as text where the person types text.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ServerForm {
    /// `None` while adding a new server.
    pub editing: Option<ServerId>,
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
    /// Sign-in (Advanced): a client id and secret of the person's own, or a client metadata
    /// document's URL. The stored secret stays out of the form; an empty box keeps it.
    pub client_id: String,
    pub client_secret: String,
    pub has_stored_secret: bool,
    pub client_metadata_url: String,
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
    ClientId(String),
    ClientSecret(String),
    ClientMetadataUrl(String),
}

/// Problems found as the person types, shown next to their fields.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LiveErrors {
    pub url: Option<UrlRefusal>,
    pub headers: Option<Text>,
    pub timeout: bool,
}

impl LiveErrors {
    pub fn any(&self) -> bool {
        self.url.is_some() || self.headers.is_some() || self.timeout
    }
}

impl ServerForm {
    pub fn new_server() -> Self {
        ServerForm { enabled_by_default: true, ..Default::default() }
    }

    /// The form for editing `server`; header values stay out of it.
    pub fn edit(server: &Server) -> Self {
        ServerForm {
            editing: Some(server.id.clone()),
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
            client_id: server.oauth.client_id.clone().unwrap_or_default(),
            has_stored_secret: server.oauth.client_secret.is_some(),
            client_metadata_url: server.oauth.metadata_url.clone().unwrap_or_default(),
            ..Default::default()
        }
    }

    pub fn change(&mut self, edit: FormEdit) {
        // A different address or credentials make the last test result meaningless.
        let stale_test =
            matches!(edit, FormEdit::Url(_) | FormEdit::Headers(_) | FormEdit::LocalNetwork(_));
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
            FormEdit::ClientId(v) => self.client_id = v,
            FormEdit::ClientSecret(v) => self.client_secret = v,
            FormEdit::ClientMetadataUrl(v) => self.client_metadata_url = v,
        }
        if stale_test {
            self.test = Pending::Idle;
        }
        self.save_error = None;
    }

    /// What is wrong so far. An empty URL is not an error yet: the person has not typed it.
    pub fn live_errors(&self) -> LiveErrors {
        let url = match self.url.trim() {
            "" => None,
            url => url_policy::check(url, Policy::Configured { local_network: self.local_network })
                .err(),
        };
        let headers = parse_headers(&self.headers).err().map(|e| e.message);
        LiveErrors { url, headers, timeout: parse_timeout(&self.timeout).is_err() }
    }

    /// Whether saving would send the stored header values to another origin than before: the
    /// form then asks the person to confirm it (or to type the headers again).
    pub fn needs_header_confirmation(&self) -> bool {
        let Some(opened) = &self.opened else { return false };
        let origin = |url: &str| web_url::parse(url.trim()).map(|u| u.origin());
        self.stored_headers > 0
            && !self.headers_touched
            && self.live_errors().url.is_none()
            && origin(&opened.url) != origin(&self.url)
    }

    /// The draft to test or save, or `None` while a live error stands.
    pub fn draft(&self) -> Option<ServerDraft> {
        let headers = parse_headers(&self.headers).ok()?;
        let timeout_ms = parse_timeout(&self.timeout).ok()?;
        if self.url.trim().is_empty() || self.live_errors().url.is_some() {
            return None;
        }
        Some(ServerDraft {
            name: self.name.trim().to_string(),
            url: self.url.trim().to_string(),
            local: None,
            // On update, untouched headers are kept by the worker.
            headers: (self.editing.is_none() || self.headers_touched).then_some(headers),
            timeout_ms,
            trust: self.trust,
            include_tools: match tool_list(&self.include) {
                list if list.is_empty() => None,
                list => Some(list),
            },
            exclude_tools: tool_list(&self.exclude),
            enabled_by_default: self.enabled_by_default,
            local_network: self.local_network,
            oauth: self.oauth_client(),
        })
    }

    /// The sign-in client as typed; an untouched secret box keeps the stored secret (the blank
    /// copy the popup holds stands for it).
    fn oauth_client(&self) -> OAuthClient {
        let text = |s: &str| Some(s.trim().to_owned()).filter(|s| !s.is_empty());
        let stored = self.opened.as_ref().and_then(|o| o.oauth.client_secret.clone());
        let client_secret = match text(&self.client_secret) {
            Some(typed) => Some(Secret::new(typed)),
            None => stored,
        };
        OAuthClient {
            client_id: text(&self.client_id),
            client_secret: client_secret.filter(|_| !self.client_id.trim().is_empty()),
            metadata_url: text(&self.client_metadata_url),
        }
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
}
