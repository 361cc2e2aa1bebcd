//! What the transcript shows, and the saved form of a chat. Plain data: serialisable, compared
//! by value, no browser types.

use indexmap::IndexSet;

use std::rc::Rc;

use crate::apps::resource::{html_digest, AppResource};
use crate::branches::Forks;
use crate::gemini::history::{HistoryMark, HistoryTail};
use crate::gemini::{Error, Sources, ThinkingChoice, Turn, TurnUsage};
use crate::mcp::CallToolResult;
use crate::messages::ElicitationPrompt;
pub use crate::page::context::ContextLabel;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::chats::activity::Activity;
use crate::chats::doc::MdDoc;

/// What one app added to the model's context (`ui/update-model-context`), as it was sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AppContextSent {
    /// Which app: the tool that showed it, and its server's name.
    pub tool: String,
    pub server: String,
    pub text: String,
}

/// Externally tagged on purpose: internally tagged enums cost several KB of wasm each.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Entry {
    User {
        text: String,
        /// What was attached besides the words (a page, a selection, …), as sent.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        context: Vec<ContextLabel>,
        /// What apps added to the model's context with these words, as sent (shown folded,
        /// apart from the words).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        app_context: Vec<AppContextSent>,
        /// Where the history stood before this message: versions part there. `None` in chats
        /// saved before versions when it cannot be told (`history::derive_marks`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mark: Option<HistoryMark>,
    },
    Model(ModelReply),
    Tool(ToolCard),
    /// A question that only makes sense while its call runs: never saved.
    #[serde(skip)]
    Elicitation(ElicitationCard),
    Notice {
        text: String,
        /// A server the notice says needs a sign-in: the notice offers it. Only while the
        /// panel that told it is open (a saved notice is words only).
        #[serde(skip)]
        sign_in: Option<NoticeSignIn>,
    },
    /// Why the model stopped when it was not a normal stop (`finishReason`, its API code), in
    /// words; a reply cut at the output limit can be continued from here.
    Finish {
        code: String,
        text: String,
    },
    /// A request that failed goes out again: `until_ms` is when (0 in chats saved before the
    /// countdown), `retry` of at most `max`.
    Retrying {
        seconds: u64,
        message: String,
        #[serde(default)]
        until_ms: u64,
        #[serde(default)]
        retry: u32,
        #[serde(default)]
        max: u32,
    },
    Error(ErrorView),
    /// The first entry of a chat started from another's summary (written by the model).
    Summary {
        text: String,
        from_title: String,
    },
}

/// How many of the person's messages `entries` hold (the messages versions are counted by).
pub fn messages_in<'a>(entries: impl IntoIterator<Item = &'a Entry>) -> usize {
    entries.into_iter().filter(|e| matches!(e, Entry::User { .. })).count()
}

impl Entry {
    pub fn kind(&self) -> &'static str {
        match self {
            Entry::User { .. } => "user",
            Entry::Model(_) => "model",
            Entry::Tool(_) => "tool",
            Entry::Elicitation(_) => "elicitation",
            Entry::Notice { .. } => "notice",
            Entry::Finish { .. } => "finish",
            Entry::Retrying { .. } => "retrying",
            Entry::Error(_) => "error",
            Entry::Summary { .. } => "summary",
        }
    }
}

/// The sign-in a notice offers, and how far it got.
#[derive(Debug, Clone, PartialEq)]
pub struct NoticeSignIn {
    pub server_id: String,
    pub server_name: String,
    pub step: SignInStep,
}

#[derive(Debug, Clone, PartialEq)]
pub enum SignInStep {
    /// Not started, or asked again with why (`problem`); `origin` is the authorization
    /// server the browser must be allowed to reach first.
    Offered { problem: Option<String>, origin: Option<String> },
    /// The browser's sign-in window is open.
    Busy,
    /// Done: the turn can be sent again, now with the server's tools.
    SignedIn,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ModelReply {
    #[serde(with = "doc_as_text")]
    pub doc: MdDoc,
    /// The model's thought summaries: shown folded above the reply, never as the reply.
    #[serde(default, with = "doc_as_text")]
    pub thoughts: MdDoc,
    /// Still arriving (never saved as such).
    #[serde(skip)]
    pub streaming: bool,
    /// Cut short (stopped, dropped, or ended without a finish reason); the text is partial.
    #[serde(default)]
    pub incomplete: bool,
    /// What the turn this reply ends cost (every request of it), shown on hover.
    #[serde(default)]
    pub usage: Option<TurnUsage>,
    /// Its sources, when Google Search grounded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sources: Option<Sources>,
}

impl ModelReply {
    pub fn streaming() -> Self {
        Self { streaming: true, ..Self::default() }
    }
}

mod doc_as_text {
    use super::MdDoc;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(doc: &MdDoc, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&doc.text())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<MdDoc, D::Error> {
        Ok(MdDoc::from_text(&String::deserialize(d)?))
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    /// Waiting for the person to allow or deny it.
    Confirm,
    Running,
    Done,
    Failed {
        message: String,
    },
    Denied,
    Cancelled,
    /// The browser needs the person's leave to read a page or see their tabs: `origins` are
    /// host permissions to ask for, `tabs` the optional `tabs` permission.
    NeedsAccess {
        message: String,
        #[serde(default)]
        origins: Vec<String>,
        #[serde(default)]
        tabs: bool,
    },
    /// The server wants the person to sign in before the call runs.
    NeedsSignIn {
        message: String,
        /// The authorization server's origin, when the browser may not reach it yet.
        #[serde(default)]
        origin: Option<String>,
        /// The sign-in window is open.
        #[serde(default)]
        busy: bool,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub progress: f64,
    pub total: Option<f64>,
    pub message: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCard {
    pub call_id: String,
    pub server_id: String,
    pub server_name: String,
    pub tool: String,
    /// The arguments as pretty JSON.
    pub args: String,
    pub status: ToolStatus,
    /// What the tool's `readOnlyHint` says, if it says anything.
    pub read_only_hint: Option<bool>,
    /// The server is trusted, so its annotations are believed.
    pub trusted_server: bool,
    #[serde(default)]
    pub progress: Option<Progress>,
    #[serde(default)]
    pub result: Option<String>,
    #[serde(default)]
    pub started_ms: Option<u64>,
    #[serde(default)]
    pub duration_ms: Option<u64>,
    /// The tool was not declared to the model until its `search_tools` call found it.
    #[serde(default)]
    pub found_by_search: bool,
    /// The tool's MCP App, when it declares one.
    #[serde(default)]
    pub app: Option<AppCard>,
    /// A tool an app in the chat offers of its own: no server to trust or remember it for.
    #[serde(default)]
    pub from_app: bool,
    /// The tool is trusted, and asks only because web content is in the conversation.
    #[serde(default)]
    pub asked_for_page_content: bool,
}

/// A tool's MCP App as its card shows it and a saved chat keeps it: the HTML and the last
/// input and result, so a reopened chat shows the app again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AppCard {
    pub server_id: String,
    pub uri: String,
    /// The tool's definition, for the app's host context.
    pub tool: Rc<Value>,
    pub input: Map<String, Value>,
    /// Read from the server; `None` while it loads or when it failed.
    #[serde(default)]
    pub resource: Option<Rc<AppResource>>,
    /// In the stored form only (always `None` outside `chats_store`): where the resource is in
    /// the chat's `app_resources`. A u16 fits in the card's padding; a wider one made every
    /// entry of a chat larger.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_at: Option<u16>,
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub result: Option<Rc<CallToolResult>>,
    #[serde(default)]
    pub cancelled: bool,
}

impl AppCard {
    /// The app of a call, before its resource is read or its result is in.
    pub fn unread(
        server_id: String,
        uri: String,
        tool: Rc<Value>,
        input: Map<String, Value>,
    ) -> Self {
        Self {
            server_id,
            uri,
            tool,
            input,
            resource: None,
            resource_at: None,
            error: None,
            result: None,
            cancelled: false,
        }
    }
}

impl ToolCard {
    /// A card for a call that waits for confirmation.
    pub fn asked(
        call_id: &str,
        server_id: &str,
        server_name: &str,
        tool: &str,
        args: String,
        read_only_hint: Option<bool>,
        trusted_server: bool,
    ) -> Self {
        Self {
            call_id: call_id.into(),
            server_id: server_id.into(),
            server_name: server_name.into(),
            tool: tool.into(),
            args,
            status: ToolStatus::Confirm,
            read_only_hint,
            trusted_server,
            progress: None,
            result: None,
            started_ms: None,
            duration_ms: None,
            found_by_search: false,
            app: None,
            from_app: false,
            asked_for_page_content: false,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ElicitationCard {
    pub call_id: String,
    /// The server asking, from the call's tool card: a question must say who asks.
    pub server_name: Option<String>,
    pub elicitation_id: String,
    pub prompt: ElicitationPrompt,
    /// How it was answered ("accept", "decline", "cancel"), once it was.
    pub answer: Option<String>,
}

/// What the person can do about an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// No key: open the settings.
    MissingKey,
    /// Invalid key or no permission: fix the key.
    Auth,
    RateLimited,
    /// A quota counted per day ran out: trying again today will not help.
    DailyQuota,
    /// The safety filters blocked the person's message.
    Blocked,
    /// Google's side (5xx).
    Server,
    Network,
    /// Anything else (400 bad request, blocked prompt, unreadable reply).
    Other,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorView {
    pub kind: ErrorKind,
    /// The error in words, with the API's own message.
    pub message: String,
}

impl ErrorView {
    /// `message` is the error in the person's language (`chrome::word(&error.text())`).
    pub fn from_error(error: &Error, message: String) -> Self {
        let kind = if error.is_missing_key() {
            ErrorKind::MissingKey
        } else if error.is_auth() {
            ErrorKind::Auth
        } else if error.is_daily_quota() {
            ErrorKind::DailyQuota
        } else if error.is_rate_limited() {
            ErrorKind::RateLimited
        } else if error.is_blocked() {
            ErrorKind::Blocked
        } else if error.is_server() {
            ErrorKind::Server
        } else if error.is_network() {
            ErrorKind::Network
        } else {
            ErrorKind::Other
        };
        Self { kind, message }
    }
}

/// A chat as stored under `chat:<id>` in `chrome.storage.local`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedChat {
    pub id: String,
    pub title: String,
    pub created_ms: u64,
    pub updated_ms: u64,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub servers: Option<IndexSet<String>>,
    #[serde(default)]
    pub google_search: bool,
    #[serde(default)]
    pub thinking: ThinkingChoice,
    /// The tokens the chat's next request sends again, as of its last answer (0 before one).
    #[serde(default)]
    pub context_tokens: u64,
    /// The conversation as Gemini sees it, each model turn with the model that wrote it, to
    /// continue it (chats saved before authors were kept read as turns without one).
    pub history: Vec<Turn>,
    /// The conversation as the person saw it.
    pub entries: Vec<Entry>,
    /// The versions not shown: what edited or regenerated messages replaced (none in chats
    /// saved before versions).
    #[serde(default, skip_serializing_if = "Forks::is_empty")]
    pub forks: Forks<BranchTail>,
    /// This chat's own instructions, sent after those for every chat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Counts the saves of this chat: a panel that saves finds out whether another one (in
    /// another window) saved since it read the chat (`chat_merge`).
    #[serde(default)]
    pub revision: u64,
    /// Every tool call made for the chat and what left the browser with its turns.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub activity: Vec<Activity>,
    /// In the stored form only (always empty outside `chats_store`): each app's resource once,
    /// for the cards that show it (`tabulate_app_resources`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub app_resources: Vec<Rc<AppResource>>,
}

/// A version of a chat from one of its messages on: what the person saw, and what the model
/// saw after the message's mark.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct BranchTail {
    pub entries: Vec<Entry>,
    #[serde(default)]
    pub history: HistoryTail,
}

/// The ids of the tool calls among `entries`.
pub fn call_ids<'a>(entries: impl IntoIterator<Item = &'a Entry>) -> Vec<String> {
    entries
        .into_iter()
        .filter_map(|e| match e {
            Entry::Tool(card) => Some(card.call_id.clone()),
            _ => None,
        })
        .collect()
}

impl SavedChat {
    /// Every tool call id of the chat, in every version: a new call must take none of them.
    pub fn call_ids(&self) -> Vec<String> {
        let kept = self.forks.tails().into_iter().flat_map(|t| t.entries.iter());
        call_ids(self.entries.iter().chain(kept))
    }

    pub fn summary(&self) -> ChatSummary {
        ChatSummary {
            id: self.id.clone(),
            title: self.title.clone(),
            updated_ms: self.updated_ms,
            revision: Some(self.revision),
        }
    }

    /// The chat as it may be shown again: a call the person never agreed to (denied, or still
    /// asking when the panel closed) has no app. Chats saved before an app waited for the
    /// person's answer kept one there; reopened, it would be read and run again.
    pub fn without_unagreed_apps(mut self) -> Self {
        self.each_tool_mut(&mut |card| {
            if matches!(
                card.status,
                ToolStatus::Confirm | ToolStatus::Denied | ToolStatus::NeedsAccess { .. }
            ) {
                card.app = None;
            }
        });
        self
    }

    /// Calls `f` on each tool card of the chat, in every version.
    pub fn each_tool_mut(&mut self, f: &mut dyn FnMut(&mut ToolCard)) {
        fn walk(entries: &mut [Entry], f: &mut dyn FnMut(&mut ToolCard)) {
            for entry in entries {
                if let Entry::Tool(card) = entry {
                    f(card);
                }
            }
        }
        walk(&mut self.entries, f);
        self.forks.each_tail_mut(&mut |tail| walk(&mut tail.entries, f));
    }

    /// Calls `f` on each app card of the chat, in every version.
    fn each_app_mut(&mut self, f: &mut dyn FnMut(&mut AppCard)) {
        self.each_tool_mut(&mut |card| {
            if let Some(app) = &mut card.app {
                f(app);
            }
        });
    }

    /// One copy of each app the chat shows several times. An app shown ten times is ten cards
    /// with the same HTML, often hundreds of KB; read back from storage, they were ten copies.
    pub fn share_app_resources(&mut self) {
        let mut kept = Vec::new();
        self.each_app_mut(&mut |app| {
            if let Some(resource) = &mut app.resource {
                *resource = shared_resource(&mut kept, resource.clone());
            }
        });
    }

    /// The form the chat is stored in: each app's resource once, in `app_resources`, and each
    /// card that shows it pointing there. Ten cards of one app were ten copies of its HTML in
    /// every save. `inline_app_resources` undoes it.
    pub fn tabulate_app_resources(&mut self) {
        // Made anew: a table that came with the chat (an imported file's) points nowhere.
        let mut table = Vec::new();
        self.each_app_mut(&mut |app| {
            let Some(resource) = app.resource.take() else { return };
            // Past 65,535 different apps in one chat, a card keeps its own copy.
            match u16::try_from(table_position(&mut table, &resource)) {
                Ok(at) => app.resource_at = Some(at),
                Err(_) => app.resource = Some(resource),
            }
        });
        self.app_resources = table;
    }

    /// Each card's resource back in the card, one copy for the cards of the same app. A card
    /// that points past the table has none, and the app is read again when shown; a chat
    /// stored before the table keeps its resources in its cards (a chat shown shares them:
    /// `share_app_resources`).
    /// Resources stored before digests get theirs, so that they equal the same app read again.
    pub fn inline_app_resources(&mut self) {
        let mut table = std::mem::take(&mut self.app_resources);
        table.iter_mut().for_each(with_digest);
        self.each_app_mut(&mut |app| {
            if let Some(at) = app.resource_at.take() {
                app.resource = app.resource.take().or_else(|| table.get(usize::from(at)).cloned());
            } else if let Some(resource) = &mut app.resource {
                with_digest(resource);
            }
        });
    }
}

/// Gives a resource stored before digests its digest (copied only if something else holds it).
fn with_digest(resource: &mut Rc<AppResource>) {
    if resource.digest.is_empty() {
        let digest = html_digest(&resource.html);
        Rc::make_mut(resource).digest = digest;
    }
}

/// `resource`, or the equal one among `kept`; a resource not there joins them.
pub fn shared_resource(
    kept: &mut Vec<Rc<AppResource>>,
    resource: Rc<AppResource>,
) -> Rc<AppResource> {
    let at = table_position(kept, &resource);
    kept[at].clone()
}

/// Where `resource` (or an equal one) is in `table`; added at the end when it is not there.
fn table_position(table: &mut Vec<Rc<AppResource>>, resource: &Rc<AppResource>) -> usize {
    // `Rc<AppResource>`'s `==` checks the address first (`AppResource: Eq`).
    table.iter().position(|kept| kept == resource).unwrap_or_else(|| {
        table.push(resource.clone());
        table.len() - 1
    })
}

/// The apps' resources `entries` hold, for `shared_resource`.
pub fn app_resources<'a>(entries: impl Iterator<Item = &'a Entry>) -> Vec<Rc<AppResource>> {
    entries
        .filter_map(|entry| match entry {
            Entry::Tool(ToolCard { app: Some(app), .. }) => app.resource.clone(),
            _ => None,
        })
        .collect()
}

/// One line of the history list (the index under `chats`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatSummary {
    pub id: String,
    pub title: String,
    pub updated_ms: u64,
    /// The stored chat's revision, written with it: a panel learns whether the stored copy is
    /// its own save without reading the whole chat. Absent in indexes from before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<u64>,
}

/// The history list rebuilt from the saved chats themselves (when the index was damaged): most
/// recently updated first.
pub fn index_of(chats: &[SavedChat]) -> Vec<ChatSummary> {
    let mut index: Vec<ChatSummary> = chats.iter().map(SavedChat::summary).collect();
    index.sort_by(|a, b| b.updated_ms.cmp(&a.updated_ms).then_with(|| a.id.cmp(&b.id)));
    index
}

/// The index after saving `chat`: its line first (most recent first), others kept.
pub fn index_with(index: &[ChatSummary], chat: ChatSummary) -> Vec<ChatSummary> {
    let mut next = vec![chat.clone()];
    next.extend(index.iter().filter(|c| c.id != chat.id).cloned());
    next
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app_card(call_id: &str, html: &str) -> Entry {
        let mut card = ToolCard::asked(call_id, "srv", "Server", "show", "{}".into(), None, true);
        card.status = ToolStatus::Done;
        let mut app = AppCard::unread("srv".into(), "ui://app".into(), Rc::default(), Map::new());
        let resource = AppResource {
            uri: "ui://app".into(),
            html: html.into(),
            meta: Default::default(),
            digest: html_digest(html),
        };
        app.resource = Some(Rc::new(resource));
        card.app = Some(app);
        Entry::Tool(card)
    }

    fn resource_of(entry: &Entry) -> Rc<AppResource> {
        match entry {
            Entry::Tool(ToolCard { app: Some(AppCard { resource: Some(r), .. }), .. }) => r.clone(),
            _ => panic!("not an app card"),
        }
    }

    /// The first and the last card show the same app, each with its own copy of it.
    fn two_apps_three_cards() -> SavedChat {
        let entries = vec![
            app_card("a", "<p>one</p>"),
            app_card("b", "<p>two</p>"),
            app_card("c", "<p>one</p>"),
        ];
        let json = serde_json::json!({
            "id": "c1", "title": "t", "created_ms": 1, "updated_ms": 1,
            "history": [], "entries": entries,
        });
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn a_stored_chat_holds_each_apps_html_once_and_reads_back_the_same() {
        // Read as a chat stored before the table: each card with its copy.
        let old = two_apps_three_cards();
        let mut stored = old.clone();
        stored.tabulate_app_resources();
        let text = serde_json::to_string(&stored).unwrap();
        assert_eq!(text.matches("<p>one</p>").count(), 1, "{text}");
        assert_eq!(text.matches("<p>two</p>").count(), 1, "{text}");

        let mut back: SavedChat = serde_json::from_str(&text).unwrap();
        back.inline_app_resources();
        assert_eq!(back, old);
        assert!(Rc::ptr_eq(&resource_of(&back.entries[0]), &resource_of(&back.entries[2])));
        let mut before_table = old.clone();
        before_table.inline_app_resources();
        assert_eq!(before_table, old, "a chat stored before the table reads as it did");

        // A card that points past the table (a damaged or hostile copy): no resource, read
        // again when shown.
        let damaged = text.replace(r#""resource_at":1"#, r#""resource_at":7"#);
        let mut damaged: SavedChat = serde_json::from_str(&damaged).unwrap();
        damaged.inline_app_resources();
        let Entry::Tool(ToolCard { app: Some(app), .. }) = &damaged.entries[1] else { panic!() };
        assert_eq!((app.resource.as_ref(), app.resource_at), (None, None));
    }

    #[test]
    fn a_resource_stored_before_digests_gets_its_digest_when_read() {
        // Else it would never equal the same app read again, and the chat would keep both.
        let mut old = two_apps_three_cards();
        old.each_app_mut(&mut |app| {
            if let Some(resource) = &mut app.resource {
                Rc::make_mut(resource).digest.clear();
            }
        });
        let mut tabled = old.clone();
        tabled.tabulate_app_resources();
        for mut read in [old, tabled] {
            read.inline_app_resources();
            assert_eq!(resource_of(&read.entries[1]).digest, html_digest("<p>two</p>"));
            assert_eq!(resource_of(&read.entries[2]).digest, html_digest("<p>one</p>"));
        }
    }

    #[test]
    fn an_app_shown_again_is_one_copy_of_its_html() {
        let mut chat = two_apps_three_cards();
        assert!(!Rc::ptr_eq(&resource_of(&chat.entries[0]), &resource_of(&chat.entries[2])));
        let before = chat.clone();
        chat.share_app_resources();
        assert_eq!(chat, before, "the same chat");
        let [a, b, c] = [0, 1, 2].map(|i| resource_of(&chat.entries[i]));
        assert!(Rc::ptr_eq(&a, &c), "the same app, shared");
        assert!(!Rc::ptr_eq(&a, &b), "another app, its own");
        // What a new load of the same app finds among the chat's.
        let again = Rc::new(AppResource::clone(&a));
        let mut kept = app_resources(chat.entries.iter());
        assert!(Rc::ptr_eq(&shared_resource(&mut kept, again), &a));
    }

    #[test]
    fn errors_map_to_what_the_person_can_do() {
        let body429 =
            r#"{"error":{"code":429,"message":"Quota exceeded","status":"RESOURCE_EXHAUSTED"}}"#;
        let cases = [
            (Error::missing_key(), ErrorKind::MissingKey),
            (
                Error::from_http(
                    403,
                    r#"{"error":{"code":403,"message":"denied","status":"PERMISSION_DENIED"}}"#,
                ),
                ErrorKind::Auth,
            ),
            (Error::from_http(429, body429), ErrorKind::RateLimited),
            (Error::from_http(503, "{}"), ErrorKind::Server),
            (Error::network("offline"), ErrorKind::Network),
            (Error::blocked("SAFETY", vec![]), ErrorKind::Blocked),
            (
                Error::from_http(
                    429,
                    r#"{"error":{"code":429,"message":"q","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"GenerateRequestsPerDayPerProjectPerModel"}]}]}}"#,
                ),
                ErrorKind::DailyQuota,
            ),
            (
                Error::from_http(
                    400,
                    r#"{"error":{"code":400,"message":"Bad thing","status":"INVALID_ARGUMENT"}}"#,
                ),
                ErrorKind::Other,
            ),
        ];
        for (error, kind) in cases {
            assert_eq!(ErrorView::from_error(&error, error.to_string()).kind, kind, "{error}");
        }
        let error = Error::from_http(429, body429);
        let view = ErrorView::from_error(&error, error.to_string());
        assert!(view.message.contains("Quota exceeded"), "{}", view.message);
    }

    #[test]
    fn a_reopened_chat_has_no_app_for_a_call_the_person_never_agreed_to() {
        let app = AppCard::unread("s1".into(), "ui://a".into(), Rc::default(), Map::new());
        let card = |id: &str, status: ToolStatus| {
            let mut card = ToolCard::asked(id, "s1", "Apps", "show", "{}".into(), None, false);
            card.status = status;
            card.app = Some(app.clone());
            Entry::Tool(card)
        };
        let saved = SavedChat {
            entries: vec![
                card("denied", ToolStatus::Denied),
                card("asking", ToolStatus::Confirm),
                card("done", ToolStatus::Done),
                card("stopped", ToolStatus::Cancelled),
            ],
            ..serde_json::from_value(serde_json::json!({
                "id": "c", "title": "c", "created_ms": 0, "updated_ms": 0, "history": [], "entries": []
            }))
            .unwrap()
        };
        let reopened = saved.without_unagreed_apps();
        let shown: Vec<(&str, bool)> = reopened
            .entries
            .iter()
            .map(|e| match e {
                Entry::Tool(card) => (card.call_id.as_str(), card.app.is_some()),
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(
            shown,
            [("denied", false), ("asking", false), ("done", true), ("stopped", true)]
        );
    }

    #[test]
    fn saving_moves_a_chat_to_the_top_of_the_index_once() {
        let line = |id: &str, t: u64| ChatSummary {
            id: id.into(),
            title: id.into(),
            updated_ms: t,
            revision: None,
        };
        let index = vec![line("a", 3), line("b", 2), line("c", 1)];
        let next = index_with(&index, line("b", 4));
        let ids: Vec<_> = next.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["b", "a", "c"]);
        assert_eq!(next[0].updated_ms, 4);
    }

    #[test]
    fn a_damaged_index_is_rebuilt_from_the_chats_most_recent_first() {
        let chat = |id: &str, updated_ms| {
            SavedChat {
            updated_ms,
            ..serde_json::from_value(serde_json::json!({
                "id": id, "title": id, "created_ms": 0, "updated_ms": 0, "history": [], "entries": []
            }))
            .unwrap()
        }
        };
        let index = index_of(&[chat("a", 5), chat("b", 9), chat("c", 1)]);
        let ids: Vec<&str> = index.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["b", "a", "c"]);
    }
}
