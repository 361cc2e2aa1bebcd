//! The typed protocol between the pages (side panel, popup) and the service worker.
//!
//! Every message is a plain JSON object so that it survives `chrome.runtime` structured cloning
//! and can be typed by hand in a test. A page sends a [`ClientMessage`]; the worker answers with
//! [`WorkerMessage::Response`] carrying the same `id`, and pushes [`WorkerMessage::Event`]s to
//! pages that hold a port open.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::apps::resource::AppRead;
use crate::mcp::{
    CallToolResult, Completion, CompletionRef, ElicitResult, GetPromptResult, InvalidTool, Prompt,
    ReadResourceResult, Resource, ResourcePage, ResourceTemplate, Tool,
};
use crate::native::run_line::RunLine;
use crate::oauth::Credentials;
use crate::reset::Removed;
use crate::resource_updates::FollowedResource;
use crate::settings::{
    Export, LocalCommand, Secret, ServerDraft, ServerId, Settings, SettingsEdit,
};
use crate::text::Text;

/// A request from a page, with the id its answer will carry. Read with
/// [`decode_client_message`], which keeps the id of a request it cannot read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClientMessage {
    pub id: u64,
    pub request: Request,
}

/// What a page can ask of the worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Request {
    /// Health and identity of the worker.
    Status,

    // --- Settings: the worker is the only writer of the settings document. ---
    /// The document without header values (the pages may see the Gemini key: the side panel
    /// calls Gemini).
    GetSettings,
    /// One read-modify-write step; answered with the document after the edit.
    EditSettings {
        edit: SettingsEdit,
    },
    /// The settings in the export format (made by the worker, which holds the secrets).
    ExportSettings {
        include_secrets: bool,
    },
    /// Settings sync on this computer (`settings::sync`): `Some` turns it on or off; answered
    /// with [`Response::SettingsSync`].
    SettingsSync {
        #[serde(default)]
        enabled: Option<bool>,
    },
    /// What to do about a stored document that could not be read ([`Event::SettingsProblem`]).
    RecoverSettings {
        action: Recovery,
    },

    // --- MCP servers. ---
    /// Every configured server with its connection status.
    ListServers,
    /// Tools of one server; from the cache unless `refresh`.
    ListTools {
        server_id: ServerId,
        refresh: bool,
    },
    /// Runs a tool. `call_id` is chosen by the page and names the call in progress events,
    /// elicitations and [`Request::CancelToolCall`].
    CallTool {
        call_id: String,
        server_id: ServerId,
        tool: String,
        arguments: Value,
        /// Who asks: the worker lets the model call only tools visible to it, and an app only
        /// tools of its own server visible to apps.
        #[serde(default)]
        caller: Caller,
        /// For an app's call: what the worker's rule needs from the page, and the person's
        /// answer to the worker's question ([`Response::ConfirmAppCall`]).
        #[serde(default, skip_serializing_if = "AppConsent::is_empty")]
        consent: AppConsent,
    },
    CancelToolCall {
        call_id: String,
    },
    /// Resources of one server (the tool browser lists them); none when it offers none.
    ListResources {
        server_id: ServerId,
    },
    ReadResource {
        server_id: ServerId,
        uri: String,
    },
    /// A tool's app, checked (`apps::resource`); `held` is the digest of the copy the page
    /// holds already, which the worker then does not send again ([`AppRead::html`]).
    ReadApp {
        server_id: ServerId,
        uri: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        held: Option<String>,
    },
    /// One page of a server's resources from `cursor` (the composer's `@` menu asks for the
    /// next as the person scrolls); an empty page when it offers none.
    ListResourcePage {
        server_id: ServerId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cursor: Option<String>,
    },
    /// A server's resource templates (the `@` menu, an app's `resources/templates/list`);
    /// none when it offers none.
    ListResourceTemplates {
        server_id: ServerId,
    },
    /// The resources this page's open chat follows, replacing what it followed before (the
    /// worker subscribes to the union of every open page's on servers that offer it, and tells
    /// the pages [`Event::ResourceUpdated`]); an empty list follows nothing.
    FollowResources {
        resources: Vec<FollowedResource>,
    },
    /// Prompts of one server (the composer's `/` menu); none when it offers none.
    ListPrompts {
        server_id: ServerId,
    },
    /// One prompt filled with `arguments` (`prompts/get`).
    GetPrompt {
        server_id: ServerId,
        name: String,
        #[serde(default)]
        arguments: Map<String, Value>,
    },
    /// What the server suggests for an argument of a prompt or a template's variable typed so
    /// far as `value` (`completion/complete`), the ones already filled as `filled`.
    Complete {
        server_id: ServerId,
        reference: CompletionRef,
        argument: String,
        value: String,
        #[serde(default)]
        filled: Map<String, Value>,
    },
    /// Connects to a server that is not saved yet and lists its tools. For a local server,
    /// `run` is the fingerprint of the line the person saw (the bridge's, see
    /// [`Request::PreviewCommand`]); without it, the line as configured.
    TestConnection {
        draft: ServerDraft,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        run: Option<String>,
    },
    /// The person's answer to an [`Event::Elicitation`].
    AnswerElicitation {
        elicitation_id: String,
        result: ElicitResult,
    },

    // --- Signing in to servers (OAuth). ---
    /// Opens the authorization server's page in the browser's sign-in window; sent from the
    /// person's click. Answered with [`Response::SignIn`] once the window is done.
    SignIn {
        server_id: ServerId,
    },
    /// Forgets the server's tokens, revoking them where the server offers that.
    SignOut {
        server_id: ServerId,
    },
    /// What a local server wrote to stderr (the bridge keeps the last 64 KB).
    ServerLog {
        server_id: ServerId,
    },
    /// The line as the bridge would run a draft's command, for the form to show before the
    /// person saves and so allows it; environment values left blank are the stored server's
    /// (`server_id`). Nothing runs.
    PreviewCommand {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        server_id: Option<ServerId>,
        local: LocalCommand,
    },

    // --- Secrets at rest (`core::vault`). ---
    /// Seals every stored secret under a key derived from `passphrase` (or, with a passphrase
    /// set already, under a new one: `current` must then be the one set).
    SetPassphrase {
        passphrase: Secret,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        current: Option<Secret>,
    },
    /// Opens the secrets for this browser session.
    Unlock {
        passphrase: Secret,
    },
    /// Stores the secrets as they are again.
    RemovePassphrase {
        passphrase: Secret,
    },

    /// Removes every piece of GemiPanel's data (`core::reset`), revoking tokens where the
    /// server offers that, and leaves the extension as on first install. Works locked too:
    /// then the tokens cannot be read, and are dropped unrevoked.
    DeleteEverything,
}

/// Who calls a tool.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Caller {
    /// The model (or the person, by hand).
    #[default]
    Model,
    /// An MCP App of the same server.
    App,
}

/// What a page says of an app's tool call besides the call; the worker decides with it
/// (`core::tools::app_calls`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppConsent {
    /// Content from a web page is in the chat the app is shown in: a tool that may write asks
    /// again, as it would for the model.
    #[serde(default)]
    pub page_content_seen: bool,
    /// The person allowed this call in the app's card, answering the worker's question about
    /// it (a yes for a call the worker did not ask about counts for nothing).
    #[serde(default)]
    pub allowed: bool,
}

impl AppConsent {
    pub fn is_empty(&self) -> bool {
        *self == AppConsent::default()
    }
}

impl Caller {
    /// Whether this caller may call `tool` (`None`: the server did not list it). An app may
    /// call only listed tools visible to apps; the model only tools not hidden from it.
    pub fn may_call(self, tool: Option<&Tool>) -> bool {
        match (self, tool) {
            (Caller::App, Some(tool)) => tool.is_visible_to(crate::mcp::Visibility::App),
            (Caller::App, None) => false,
            (Caller::Model, Some(tool)) => tool.is_visible_to(crate::mcp::Visibility::Model),
            // A tool added since the list was fetched: the server decides.
            (Caller::Model, None) => true,
        }
    }
}

/// The person's choice about settings that could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Recovery {
    /// Put the kept copy back and read it again (after updating GemiPanel, say).
    Restore,
    /// The kept copy, as stored, for the person to save ([`Response::Exported`]).
    ExportKept,
    /// Begin again with default settings; the kept copy is deleted.
    StartFresh,
}

impl Request {
    /// Whether sending the request twice is harmless, so a page may resend it when the worker
    /// stopped before answering. Anything with side effects (a tool call, an edit) is not.
    pub fn is_retry_safe(&self) -> bool {
        match self {
            Request::Status
            | Request::GetSettings
            | Request::ExportSettings { .. }
            | Request::ListServers
            | Request::ListTools { .. }
            | Request::ListResources { .. }
            | Request::ReadResource { .. }
            | Request::ReadApp { .. }
            | Request::ListResourcePage { .. }
            | Request::ListResourceTemplates { .. }
            | Request::FollowResources { .. }
            | Request::ListPrompts { .. }
            | Request::GetPrompt { .. }
            | Request::Complete { .. }
            | Request::TestConnection { .. }
            | Request::ServerLog { .. }
            | Request::PreviewCommand { .. }
            | Request::SettingsSync { enabled: None } => true,
            Request::EditSettings { .. }
            | Request::SettingsSync { enabled: Some(_) }
            | Request::SetPassphrase { .. }
            | Request::Unlock { .. }
            | Request::RemovePassphrase { .. }
            | Request::RecoverSettings { .. }
            | Request::CallTool { .. }
            | Request::CancelToolCall { .. }
            | Request::AnswerElicitation { .. }
            | Request::SignIn { .. }
            | Request::SignOut { .. }
            | Request::DeleteEverything => false,
        }
    }
}

/// The worker's answer to one [`Request`].
// Answers live only while they cross the port; boxing the big ones would only add noise to
// every place that builds or matches them.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Response {
    Status(WorkerStatus),
    Settings {
        settings: Settings,
    },
    Servers {
        servers: Vec<ServerView>,
    },
    Tools {
        server_id: ServerId,
        tools: Vec<Tool>,
        /// Tools the server listed that could not be read, and why.
        #[serde(default)]
        invalid: Vec<InvalidTool>,
        /// The server was asked just now; `false`: the worker answered from memory or from
        /// its stored copy (the side panel times only real listings, `tools::gathering`).
        #[serde(default)]
        fetched: bool,
    },
    Exported {
        export: Export,
    },
    /// Whether this computer syncs its settings, and how many servers sync holds.
    SettingsSync {
        enabled: bool,
        servers: usize,
    },
    ToolResult {
        result: CallToolResult,
    },
    Resources {
        server_id: ServerId,
        resources: Vec<Resource>,
    },
    Resource {
        result: ReadResourceResult,
    },
    App {
        read: AppRead,
    },
    ResourcePage {
        server_id: ServerId,
        page: ResourcePage,
    },
    ResourceTemplates {
        server_id: ServerId,
        templates: Vec<ResourceTemplate>,
    },
    Prompts {
        server_id: ServerId,
        prompts: Vec<Prompt>,
    },
    Prompt {
        result: GetPromptResult,
    },
    Completion {
        completion: Completion,
    },
    ConnectionTest {
        outcome: ConnectionOutcome,
    },
    SignIn {
        outcome: SignInOutcome,
    },
    /// The server refused the request until the person signs in (a page offers Sign in, then
    /// sends the request again).
    SignInNeeded {
        server_id: ServerId,
        error: Text,
    },
    /// The answer to [`Request::ServerLog`].
    ServerLog {
        server_id: ServerId,
        text: String,
        /// Older output was dropped to keep the log bounded.
        truncated: bool,
    },
    /// The answer to [`Request::PreviewCommand`]: the bridge's line, or the line as
    /// configured when the bridge cannot be asked (`expanded` false).
    CommandPreview {
        line: RunLine,
    },
    /// An app's tool call waits for the person: the page asks in the app's card and sends the
    /// call again with [`AppConsent::allowed`] (`because_of_page_content`: only the rule about
    /// web content in the chat asks).
    ConfirmAppCall {
        because_of_page_content: bool,
    },
    /// The answer to [`Request::DeleteEverything`].
    DeletedEverything {
        removed: Removed,
    },
    /// Done; nothing to report.
    Ok,
    /// The request could not be carried out; says why in words a person can act on.
    Error {
        error: Text,
    },
}

/// A server as the pages list it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerView {
    pub id: ServerId,
    pub name: String,
    /// Empty for a local server.
    pub url: String,
    /// A local server's command line, as [`crate::settings::LocalCommand::display`] shows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_line: Option<String>,
    pub status: ServerStatus,
    /// Tools known from the cache or the live server, after the include/exclude filters.
    pub tool_count: Option<u32>,
    /// Whom the person is signed in with; never a token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signed_in: Option<SignedInView>,
}

/// A sign-in as the pages see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignedInView {
    /// The authorization server.
    pub issuer: String,
    /// What was granted.
    pub scopes: Vec<String>,
}

impl From<&Credentials> for SignedInView {
    fn from(credentials: &Credentials) -> Self {
        SignedInView { issuer: credentials.issuer.clone(), scopes: credentials.scopes.clone() }
    }
}

/// The result of [`Request::SignIn`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum SignInOutcome {
    SignedIn {
        signed_in: SignedInView,
    },
    /// The person closed the window.
    Cancelled,
    /// GemiPanel may not reach the authorization server at `origin` yet: the page asks for it
    /// in the person's next click, then signs in again.
    NeedsPermission {
        origin: String,
    },
    Failed {
        error: Text,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum ServerStatus {
    /// Not contacted since the worker started.
    Idle,
    Connecting,
    Ready {
        protocol_version: String,
    },
    /// The server answered 401: the user has to sign in.
    NeedsSignIn,
    /// The browser refused the connection because GemiPanel may not reach `origin` yet: the
    /// page asks for it (`chrome.permissions.request`) when the person clicks.
    NeedsPermission {
        origin: String,
    },
    /// A local server, while the person has not granted `nativeMessaging` (optional, asked when
    /// they add a local server): the page asks for it in their click, then connects again.
    NeedsLocalPermission,
    /// A local server whose command line the person has not allowed as it would run: it does
    /// not run until they do (`SettingsEdit::ConfirmCommand` with this line's fingerprint).
    /// The line is the bridge's, or the configured one when the bridge could not be asked.
    NeedsConfirmation {
        line: RunLine,
        /// The person allowed this command before, and it would run differently now (a value
        /// kept secret, an expansion or the bridge's environment changed).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        changed: bool,
    },
    Error {
        error: Text,
    },
}

/// The result of [`Request::TestConnection`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum ConnectionOutcome {
    Connected {
        protocol_version: String,
        server_name: Option<String>,
        tools: Vec<Tool>,
        /// Listed entries that could not be read, and a note when the list was cut.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        invalid: Vec<InvalidTool>,
    },
    /// The server wants a sign-in; `issuer` is the authorization server it names (what a
    /// client the person enters for it is bound to), when it could be found.
    NeedsSignIn {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        issuer: Option<String>,
    },
    /// GemiPanel may not reach `origin` yet; the page asks for it in the person's click.
    NeedsPermission {
        origin: String,
    },
    Failed {
        error: Text,
    },
}

/// Answer to [`Request::Status`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkerStatus {
    /// `version` from the manifest.
    pub extension_version: String,
    /// Milliseconds since this worker instance started; it restarts from zero when Chrome
    /// stops and revives the worker.
    pub uptime_ms: u64,
    pub configured_servers: u32,
    /// Whether secrets are locked with a passphrase, and entered in this browser session.
    #[serde(default, skip_serializing_if = "crate::vault::VaultState::is_off")]
    pub vault: crate::vault::VaultState,
}

impl WorkerStatus {
    /// Uptime rounded for people: seconds below a minute, minutes below an hour, then hours.
    pub fn uptime(&self) -> (u64, UptimeUnit) {
        let seconds = self.uptime_ms / 1000;
        match seconds {
            0..=59 => (seconds, UptimeUnit::Seconds),
            60..=3599 => (seconds / 60, UptimeUnit::Minutes),
            _ => (seconds / 3600, UptimeUnit::Hours),
        }
    }

    /// This status `elapsed_ms` after the worker sent it: a page shows the uptime going on
    /// without asking again.
    pub fn aged(&self, elapsed_ms: u64) -> WorkerStatus {
        WorkerStatus { uptime_ms: self.uptime_ms.saturating_add(elapsed_ms), ..self.clone() }
    }

    /// In how many ms [`Self::uptime`] shows another figure.
    pub fn uptime_changes_in_ms(&self) -> u64 {
        let unit_ms = match self.uptime().1 {
            UptimeUnit::Seconds => 1_000,
            UptimeUnit::Minutes => 60_000,
            UptimeUnit::Hours => 3_600_000,
        };
        unit_ms - self.uptime_ms % unit_ms
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UptimeUnit {
    Seconds,
    Minutes,
    Hours,
}

/// Something the worker tells open pages without being asked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// Sent to each page that connects; pages (re)load what they show of the worker.
    WorkerStarted {
        extension_version: String,
    },
    /// The settings document changed (from any page or the worker itself).
    SettingsChanged {
        settings: Settings,
    },
    ServerStatus {
        server_id: ServerId,
        status: ServerStatus,
    },
    /// The server's tool list changed; list it again.
    ToolsChanged {
        server_id: ServerId,
    },
    /// The server's prompts changed (`notifications/prompts/list_changed`): an open `/` menu
    /// lists them again.
    PromptsChanged {
        server_id: ServerId,
    },
    /// A followed resource changed (`notifications/resources/updated`): a chat that sent it
    /// marks it, to be read again.
    ResourceUpdated {
        server_id: ServerId,
        uri: String,
    },
    /// `notifications/progress` of a running call.
    ToolProgress {
        call_id: String,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    },
    /// A server asks the person something during the call `call_id`; answer with
    /// [`Request::AnswerElicitation`]. Unanswered ones are declined when the call ends.
    Elicitation {
        call_id: String,
        elicitation_id: String,
        prompt: ElicitationPrompt,
    },
    /// The stored settings could not be loaded. Sent when it happens and to every page that
    /// connects until the person chooses a [`Recovery`]; until then the worker runs on default
    /// settings that it does not store, and refuses edits.
    SettingsProblem {
        problem: SettingsProblem,
    },
}

/// The stored settings could not be loaded (damaged, or written by a newer version). The document
/// was kept, untouched, under the `chrome.storage.local` key `kept_under`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SettingsProblem {
    /// Says what is wrong; never contains the document's secrets.
    pub error: Text,
    pub kept_under: String,
    /// Milliseconds since the Unix epoch.
    pub at_ms: u64,
}

/// What a server asks the person (`elicitation/create`), ready to show.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum ElicitationPrompt {
    /// A form built from `requested_schema`, pre-filled with `defaults`.
    Form { message: String, requested_schema: Value, defaults: serde_json::Map<String, Value> },
    /// A link to open; the server learns the outcome by itself.
    Url { message: String, url: String },
}

/// Everything the worker sends to a page.
#[allow(clippy::large_enum_variant)] // as for `Response`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WorkerMessage {
    Response { id: u64, response: Response },
    Event { event: Event },
}

impl WorkerMessage {
    /// The characters of a message's JSON text that [`WorkerMessage::is_app_answer`] reads.
    pub const APP_ANSWER_PREFIX_CHARS: u32 = 96;

    /// Whether a message's JSON text, from its start, is the answer with an app
    /// (`Response::App`): the one answer a page takes apart before reading it (its HTML is
    /// hundreds of KB). Relies on serde's order: `kind`, `id`, `response`, its `type`.
    pub fn is_app_answer(start: &str) -> bool {
        let Some(rest) = start.strip_prefix(r#"{"kind":"response","id":"#) else { return false };
        rest.trim_start_matches(|c: char| c.is_ascii_digit())
            .starts_with(r#","response":{"type":"app","#)
    }
}

/// A message a page sent that is not a valid [`ClientMessage`].
///
/// Keeps the request id when one could be read, so the page that sent it still gets an answer
/// instead of waiting forever.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodeError {
    pub id: Option<u64>,
    pub reason: String,
}

impl DecodeError {
    /// The answer the page gets: an error response naming what was wrong.
    pub fn into_reply(self) -> WorkerMessage {
        WorkerMessage::Response {
            id: self.id.unwrap_or(0),
            response: Response::Error { error: Text::new("errWorkerBadRequest").arg(&self.reason) },
        }
    }
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for DecodeError {}

/// Reads a page's message from whatever JSON value arrived.
pub fn decode_client_message(value: Value) -> Result<ClientMessage, DecodeError> {
    // The id first: a page whose request cannot be read still gets an answer to it. Pages are
    // ours: serde's own words are enough, without the path (each tracked decoder is a second
    // copy of the message decoders in the worker).
    let id = value.get("id").and_then(Value::as_u64);
    serde_json::from_value(value).map_err(|e| DecodeError {
        id,
        reason: format!("a page's message: {}", crate::decode::without_strings(&e.to_string())),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_app_answer_is_told_by_the_start_of_its_text() {
        use crate::apps::resource::AppRead;
        let text = |response| {
            serde_json::to_string(&WorkerMessage::Response { id: u64::MAX, response }).unwrap()
        };
        let start = |text: &str| {
            text.chars().take(WorkerMessage::APP_ANSWER_PREFIX_CHARS as usize).collect::<String>()
        };
        let app = text(Response::App {
            read: AppRead {
                meta: Default::default(),
                digest: "d".into(),
                html: Some("<p>".repeat(50)),
            },
        });
        assert!(WorkerMessage::is_app_answer(&start(&app)), "{app}");
        let status = text(Response::Error { error: Text::new("errX") });
        assert!(!WorkerMessage::is_app_answer(&start(&status)));
        let event = serde_json::to_string(&WorkerMessage::Event {
            event: Event::WorkerStarted { extension_version: "1".into() },
        })
        .unwrap();
        assert!(!WorkerMessage::is_app_answer(&start(&event)));
    }

    use super::*;
    use serde_json::json;

    #[test]
    fn uptime_is_rounded_to_the_largest_whole_unit() {
        let cases = [
            (0, (0, UptimeUnit::Seconds)),
            (59_999, (59, UptimeUnit::Seconds)),
            (60_000, (1, UptimeUnit::Minutes)),
            (3_599_999, (59, UptimeUnit::Minutes)),
            (3_600_000, (1, UptimeUnit::Hours)),
            (u64::MAX, (u64::MAX / 1000 / 3600, UptimeUnit::Hours)),
        ];
        for (uptime_ms, expected) in cases {
            let status = WorkerStatus {
                extension_version: String::new(),
                uptime_ms,
                configured_servers: 0,
                vault: Default::default(),
            };
            assert_eq!(status.uptime(), expected, "{uptime_ms} ms");
        }
    }

    #[test]
    fn an_aged_status_shows_the_uptime_going_on_and_says_when_it_next_changes() {
        let status = WorkerStatus {
            extension_version: "0.1.0".into(),
            uptime_ms: 58_400,
            configured_servers: 2,
            vault: Default::default(),
        };
        assert_eq!(status.uptime_changes_in_ms(), 600);
        let later = status.aged(600);
        assert_eq!(later.uptime(), (59, UptimeUnit::Seconds));
        assert_eq!((later.extension_version.as_str(), later.configured_servers), ("0.1.0", 2));
        let minute = status.aged(1_600);
        assert_eq!(minute.uptime(), (1, UptimeUnit::Minutes));
        assert_eq!(minute.uptime_changes_in_ms(), 60_000, "the next figure is a minute away");
        assert_eq!(status.aged(4_000_000).uptime_changes_in_ms(), 3_141_600, "1 h 7 min 38.4 s");
        assert_eq!(status.aged(u64::MAX).uptime_ms, u64::MAX, "no overflow");
    }

    #[test]
    fn delete_everything_round_trips_through_json() {
        let msg = ClientMessage { id: 9, request: Request::DeleteEverything };
        let wire = serde_json::to_value(&msg).unwrap();
        assert_eq!(wire, json!({"id": 9, "request": {"type": "delete_everything"}}));
        assert_eq!(decode_client_message(wire).unwrap(), msg);
        let removed = Removed { servers: 1, sign_ins: 1, dpop_keys: 1, chats: 2 };
        let answer = Response::DeletedEverything { removed };
        let wire = serde_json::to_value(&answer).unwrap();
        assert_eq!(wire["removed"]["chats"], 2);
        assert_eq!(serde_json::from_value::<Response>(wire).unwrap(), answer);
    }

    #[test]
    fn status_request_round_trips_through_json() {
        let msg = ClientMessage { id: 7, request: Request::Status };
        let wire = serde_json::to_value(&msg).unwrap();
        assert_eq!(wire, json!({"id": 7, "request": {"type": "status"}}));
        assert_eq!(decode_client_message(wire).unwrap(), msg);
    }

    #[test]
    fn responses_and_events_have_a_kind_tag() {
        let reply = WorkerMessage::Response {
            id: 3,
            response: Response::Status(WorkerStatus {
                extension_version: "0.1.0".into(),
                uptime_ms: 12,
                configured_servers: 2,
                vault: Default::default(),
            }),
        };
        assert_eq!(
            serde_json::to_value(&reply).unwrap(),
            json!({"kind": "response", "id": 3, "response": {
                "type": "status", "extension_version": "0.1.0", "uptime_ms": 12, "configured_servers": 2
            }})
        );
        let event = WorkerMessage::Event {
            event: Event::WorkerStarted { extension_version: "0.1.0".into() },
        };
        assert_eq!(
            serde_json::to_value(&event).unwrap(),
            json!({"kind": "event", "event": {"type": "worker_started", "extension_version": "0.1.0"}})
        );
    }

    #[test]
    fn every_request_reads_back_what_serialize_wrote() {
        let id = ServerId::generate([1; 16]);
        let requests = [
            Request::Status,
            Request::GetSettings,
            Request::EditSettings { edit: SettingsEdit::RemoveServer { id: id.clone() } },
            Request::ListServers,
            Request::ListTools { server_id: id.clone(), refresh: true },
            Request::CallTool {
                call_id: "c1".into(),
                server_id: id.clone(),
                tool: "echo".into(),
                caller: Caller::App,
                arguments: json!({"message": "hi"}),
                consent: AppConsent { page_content_seen: true, allowed: true },
            },
            Request::CancelToolCall { call_id: "c1".into() },
            Request::ListResources { server_id: id.clone() },
            Request::ReadResource { server_id: id.clone(), uri: "test://static/resource/1".into() },
            Request::ReadApp {
                server_id: id.clone(),
                uri: "ui://a".into(),
                held: Some("d".into()),
            },
            Request::ListResourcePage { server_id: id.clone(), cursor: Some("c2".into()) },
            Request::ListResourceTemplates { server_id: id.clone() },
            Request::FollowResources {
                resources: vec![FollowedResource {
                    server_id: id.clone(),
                    uri: "demo://resource/dynamic/text/7".into(),
                }],
            },
            Request::ListPrompts { server_id: id.clone() },
            Request::GetPrompt {
                server_id: id.clone(),
                name: "travel".into(),
                arguments: json!({"country": "Japan"}).as_object().unwrap().clone(),
            },
            Request::Complete {
                server_id: id.clone(),
                reference: CompletionRef::Prompt { name: "travel".into() },
                argument: "city".into(),
                value: "K".into(),
                filled: json!({"country": "Japan"}).as_object().unwrap().clone(),
            },
            Request::TestConnection {
                draft: ServerDraft::new("A", "https://a.example/mcp"),
                run: Some("00ff".into()),
            },
            Request::AnswerElicitation {
                elicitation_id: "e1".into(),
                result: ElicitResult::accept(json!({"name": "x"}).as_object().unwrap().clone()),
            },
            Request::ExportSettings { include_secrets: false },
            Request::SettingsSync { enabled: Some(true) },
            Request::RecoverSettings { action: Recovery::StartFresh },
            Request::SignIn { server_id: id.clone() },
            Request::SignOut { server_id: id.clone() },
            Request::ServerLog { server_id: id.clone() },
            Request::PreviewCommand {
                server_id: Some(id.clone()),
                local: LocalCommand::new("npx", vec!["-y".into(), "pkg".into()]),
            },
        ];
        let mut tags = std::collections::BTreeSet::new();
        for (n, request) in requests.into_iter().enumerate() {
            let message = ClientMessage { id: n as u64, request };
            let wire = serde_json::to_value(&message).unwrap();
            tags.insert(wire["request"]["type"].as_str().unwrap().to_owned());
            assert_eq!(decode_client_message(wire.clone()).as_ref(), Ok(&message), "{wire}");
        }
        // Twenty-five variants; a new one must be added to the list above (and to this count).
        assert_eq!(tags.len(), 25, "every variant is covered: {tags:?}");
    }

    #[test]
    fn a_field_of_the_wrong_type_is_named() {
        let err = decode_client_message(json!({"id": 2, "request": {
            "type": "edit_settings", "edit": {"type": "set_trust", "id": "srv_x", "trust": "yes"}
        }}))
        .unwrap_err();
        assert!(
            err.reason == "a page's message: invalid type: string \"…\", expected a boolean",
            "{}",
            err.reason
        );
    }

    #[test]
    fn unknown_request_type_is_named_and_keeps_the_id() {
        let err = decode_client_message(json!({"id": 9, "request": {"type": "launch_rockets"}}))
            .unwrap_err();
        assert_eq!(err.id, Some(9));
        assert!(err.reason.contains("launch_rockets"), "{}", err.reason);
        assert!(err.reason.contains("status"), "lists what is known: {}", err.reason);
    }

    #[test]
    fn malformed_envelopes_say_what_is_wrong() {
        let cases = [
            (json!("status"), "invalid type: string \"…\", expected struct ClientMessage"),
            (json!(null), "invalid type: null"),
            (json!({"request": {"type": "status"}}), "missing field `id`"),
            (json!({"id": -1, "request": {"type": "status"}}), "invalid value: integer `-1`"),
            (json!({"id": "1", "request": {"type": "status"}}), "invalid type: string"),
            (json!({"id": 1}), "missing field `request`"),
            (json!({"id": 1, "request": {}}), "missing field `type`"),
            (json!({"id": 1, "request": 5}), "invalid type: integer `5`"),
        ];
        for (input, expected) in cases {
            let err = decode_client_message(input.clone()).unwrap_err();
            assert!(err.reason.contains(expected), "{input}: {}", err.reason);
        }
    }

    #[test]
    fn a_decode_error_becomes_an_error_reply_to_the_same_id() {
        let err = decode_client_message(json!({"id": 4, "request": {"type": "nope"}})).unwrap_err();
        match err.into_reply() {
            WorkerMessage::Response { id: 4, response: Response::Error { error } } => {
                assert!(error.to_string().contains("nope"), "{error}");
            }
            other => panic!("unexpected reply {other:?}"),
        }
    }
}
