//! Settings sync, opted into on each computer: the servers and the preferences (model,
//! instructions) travel through `chrome.storage.sync`, never a key, a token or a secret value.
//!
//! One storage item per server (`sync_server:<id>`), so that edits of different servers on
//! different computers never meet: each computer writes only the servers it changed, and
//! `chrome.storage.sync` keeps the last write of each item. A removal is kept as an item
//! without a server, so that it reaches a computer that still has the server. What arrives
//! is merged into this computer's document keeping what never travels: its secret values, and
//! its confirmation of a command line that did not change.
//! <https://developer.chrome.com/docs/extensions/reference/api/storage#property-sync>

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::document::{Server, Settings};
use super::validate::validate_server;

/// `chrome.storage.local`: whether this computer syncs (a choice of each computer).
pub const ENABLED_KEY: &str = "settings_sync";
/// `chrome.storage.sync`: one item per server, by id.
pub const SERVER_PREFIX: &str = "sync_server:";
/// `chrome.storage.sync`: the preferences.
pub const PREFS_KEY: &str = "sync_prefs";
/// `chrome.storage.sync` refuses an item larger than this (key and JSON value).
pub const MAX_ITEM_BYTES: usize = 8_192;

/// One server as it travels; `None` once a computer removed it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SyncedServer {
    #[serde(default)]
    pub server: Option<Server>,
    pub edited_ms: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SyncedPrefs {
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub instructions: Option<String>,
    pub edited_ms: u64,
}

/// What `chrome.storage.sync` holds of the settings.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Remote {
    pub servers: IndexMap<String, SyncedServer>,
    pub prefs: Option<SyncedPrefs>,
}

/// One item of the sync area, decoded by the caller (the worker decodes the browser's values
/// straight into these types).
#[derive(Debug, Clone, PartialEq)]
pub enum SyncItem {
    Server { id: String, synced: Box<SyncedServer> },
    Prefs(SyncedPrefs),
}

/// What a key of the sync area holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemKind<'a> {
    Server(&'a str),
    Prefs,
}

impl<'a> ItemKind<'a> {
    pub fn of(key: &'a str) -> Option<ItemKind<'a>> {
        match key.strip_prefix(SERVER_PREFIX) {
            Some(id) => Some(ItemKind::Server(id)),
            None => (key == PREFS_KEY).then_some(ItemKind::Prefs),
        }
    }
}

impl SyncItem {
    pub fn key(&self) -> String {
        match self {
            SyncItem::Server { id, .. } => format!("{SERVER_PREFIX}{id}"),
            SyncItem::Prefs(_) => PREFS_KEY.to_owned(),
        }
    }
}

impl Remote {
    /// The sync area's items; an item about another server than its key names is left out.
    pub fn read(items: impl IntoIterator<Item = SyncItem>) -> Remote {
        let mut remote = Remote::default();
        for item in items {
            match item {
                SyncItem::Server { id, synced } => {
                    let about_it = synced.server.as_ref().is_none_or(|s| s.id.as_str() == id);
                    if about_it {
                        remote.servers.insert(id, *synced);
                    }
                }
                SyncItem::Prefs(prefs) => remote.prefs = Some(prefs),
            }
        }
        remote
    }
}

/// A server as it goes to the other computers: its secret values blanked (their names kept,
/// to be filled in there) and this computer's confirmation of its command line left out.
pub fn shared_form(server: &Server) -> Server {
    let mut shared = server.clone();
    shared.blank_secret_values();
    shared.forget_confirmation();
    shared
}

/// The items this computer writes after an edit of its own took its document from `before`
/// to `after`: only what the edit changed (each server whose shared form changed, a removal
/// for each server it removed, the preferences when they changed), so that it never writes
/// back an older copy of what another computer changed meanwhile.
pub fn changed(before: &Settings, after: &Settings, now_ms: u64) -> Vec<SyncItem> {
    let mut items = Writes::default();
    for server in &after.servers {
        let shared = shared_form(server);
        let was = before.servers.iter().find(|s| s.id == server.id).map(shared_form);
        if was.as_ref() != Some(&shared) {
            items.server(server.id.as_str(), Some(shared), now_ms);
        }
    }
    for gone in before.servers.iter().filter(|s| after.server(&s.id).is_none()) {
        items.server(gone.id.as_str(), None, now_ms);
    }
    if prefs_of(before) != prefs_of(after) {
        items.prefs(after, now_ms);
    }
    items.0
}

/// The items a computer that starts syncing writes: its servers sync does not have yet, and
/// its preferences when sync has none. What sync has is then taken in ([`merged`]).
pub fn joining(local: &Settings, remote: &Remote, now_ms: u64) -> Vec<SyncItem> {
    let mut items = Writes::default();
    for server in &local.servers {
        if !remote.servers.contains_key(server.id.as_str()) {
            items.server(server.id.as_str(), Some(shared_form(server)), now_ms);
        }
    }
    if remote.prefs.is_none() {
        items.prefs(local, now_ms);
    }
    items.0
}

fn prefs_of(doc: &Settings) -> (&Option<String>, &Option<String>) {
    (&doc.gemini.model, &doc.gemini.instructions)
}

/// Items to write.
#[derive(Default)]
struct Writes(Vec<SyncItem>);

impl Writes {
    fn server(&mut self, id: &str, server: Option<Server>, edited_ms: u64) {
        let synced = Box::new(SyncedServer { server, edited_ms });
        self.0.push(SyncItem::Server { id: id.to_owned(), synced });
    }

    fn prefs(&mut self, doc: &Settings, edited_ms: u64) {
        self.0.push(SyncItem::Prefs(SyncedPrefs {
            model: doc.gemini.model.clone(),
            instructions: doc.gemini.instructions.clone(),
            edited_ms,
        }));
    }
}

/// `local` with what sync holds taken in: servers added or changed elsewhere (this
/// computer's secret values kept, and its confirmation while the command line is the same),
/// servers removed elsewhere dropped, the preferences taken. A server that would not be valid
/// here is left out.
pub fn merged(local: &Settings, remote: &Remote) -> Settings {
    let mut doc = local.clone();
    for (id, synced) in &remote.servers {
        let at = doc.servers.iter().position(|s| s.id.as_str() == id);
        match (&synced.server, at) {
            (None, Some(at)) => {
                doc.servers.remove(at);
                doc.skip_page_content_check.shift_remove(id.as_str());
            }
            (None, None) => {}
            (Some(incoming), at) => {
                let mut server = incoming.clone();
                server.forget_confirmation();
                if let Some(mine) = at.map(|at| &doc.servers[at]) {
                    keep_local_values(&mut server, mine);
                }
                let name_taken = doc.servers.iter().any(|s| {
                    s.id != server.id && super::document::same_name(&s.name, &server.name)
                });
                if validate_server(&server).is_err() || name_taken {
                    continue;
                }
                match at {
                    Some(at) => doc.servers[at] = server,
                    None => doc.servers.push(server),
                }
            }
        }
    }
    if let Some(prefs) = &remote.prefs {
        doc.gemini.model.clone_from(&prefs.model);
        doc.gemini.instructions.clone_from(&prefs.instructions);
    }
    doc
}

/// What never travels comes from this computer's copy: secret values whose slot arrived
/// blank, and the confirmation of an unchanged command line.
fn keep_local_values(server: &mut Server, mine: &Server) {
    for (name, value) in server.headers.iter_mut() {
        if value.is_empty() {
            if let Some(kept) = mine.headers.get(name) {
                *value = kept.clone();
            }
        }
    }
    server.oauth.keep_blank_secrets_from(&mine.oauth);
    if let (Some(local), Some(stored)) = (&mut server.local, &mine.local) {
        local.keep_values_from(stored);
    }
    server.keep_confirmation_of(mine);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::secret::Secret;
    use crate::settings::{apply, ServerDraft, ServerId, SettingsEdit};

    fn with_servers(names: &[(&str, u8)]) -> Settings {
        let mut doc = Settings::default();
        for (name, seed) in names {
            let id = ServerId::generate([*seed; 16]);
            let mut draft = ServerDraft::new(*name, format!("https://{name}.example/mcp"));
            let secret = Secret::new(format!("Bearer {name}-SECRET"));
            draft.headers = Some([("Authorization".to_owned(), secret)].into_iter().collect());
            doc = apply(&doc, &SettingsEdit::AddServer { id, server: draft }).unwrap();
        }
        doc
    }

    /// Sync's items after `writes`, as `chrome.storage.sync` keeps the last write of each
    /// (each through JSON, as the browser stores it).
    fn after(remote: &Remote, writes: Vec<SyncItem>) -> Remote {
        let mut items: IndexMap<String, SyncItem> = IndexMap::new();
        for (id, synced) in &remote.servers {
            let item = SyncItem::Server { id: id.clone(), synced: Box::new(synced.clone()) };
            items.insert(item.key(), item);
        }
        if let Some(prefs) = &remote.prefs {
            items.insert(PREFS_KEY.into(), SyncItem::Prefs(prefs.clone()));
        }
        for item in writes {
            let item = match item {
                SyncItem::Server { id, synced } => {
                    let text = serde_json::to_string(&synced).unwrap();
                    SyncItem::Server { id, synced: serde_json::from_str(&text).unwrap() }
                }
                prefs => prefs,
            };
            items.insert(item.key(), item);
        }
        Remote::read(items.into_values())
    }

    fn edit(doc: &Settings, edit: SettingsEdit) -> Settings {
        apply(doc, &edit).unwrap()
    }

    #[test]
    fn no_secret_value_and_no_confirmation_leaves_the_computer() {
        let doc = with_servers(&[("alpha", 1)]);
        let items = joining(&doc, &Remote::default(), 1);
        for item in &items {
            let text = match item {
                SyncItem::Server { synced, .. } => serde_json::to_string(synced).unwrap(),
                SyncItem::Prefs(prefs) => serde_json::to_string(prefs).unwrap(),
            };
            assert!(!text.contains("SECRET"), "{text}");
            assert!(item.key().len() + text.len() < MAX_ITEM_BYTES);
        }
        assert!(format!("{items:?}").contains("Authorization"), "header names travel");
        // An edit that changes nothing that travels writes nothing.
        assert!(changed(&doc, &doc, 2).is_empty());
    }

    #[test]
    fn edits_of_different_servers_on_two_computers_are_both_kept() {
        let start = with_servers(&[("alpha", 1), ("beta", 2)]);
        let synced = after(&Remote::default(), joining(&start, &Remote::default(), 1));
        let (a, b) = (start.servers[0].id.clone(), start.servers[1].id.clone());
        // Computer one trusts alpha, computer two beta, both before hearing of the other.
        let one = edit(&start, SettingsEdit::SetTrust { id: a, trust: true });
        let two = edit(&start, SettingsEdit::SetTrust { id: b, trust: true });
        let both = after(&after(&synced, changed(&start, &one, 2)), changed(&start, &two, 3));
        for doc in [merged(&one, &both), merged(&two, &both)] {
            assert!(doc.servers.iter().all(|s| s.trust), "{:?}", doc.servers);
            // Each computer keeps its secret values.
            assert_eq!(doc.servers[0].headers["Authorization"].expose(), "Bearer alpha-SECRET");
        }
    }

    #[test]
    fn a_new_computer_takes_the_servers_without_their_secrets_and_a_removal_travels() {
        let one = with_servers(&[("alpha", 1)]);
        let synced = after(&Remote::default(), joining(&one, &Remote::default(), 1));
        // The new computer has a server of its own: it joins sync, and takes what sync has.
        let own = with_servers(&[("gamma", 3)]);
        let joined = after(&synced, joining(&own, &synced, 2));
        let fresh = merged(&own, &joined);
        let names: Vec<_> = fresh.servers.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["gamma", "alpha"]);
        assert!(fresh.servers[1].headers["Authorization"].is_empty(), "to be filled in here");
        assert_eq!(merged(&one, &joined).servers.len(), 2, "and the first computer gets gamma");

        let id = one.servers[0].id.clone();
        let removed = edit(&one, SettingsEdit::RemoveServer { id });
        let gone = after(&joined, changed(&one, &removed, 3));
        assert_eq!(merged(&fresh, &gone).servers.len(), 1);
    }

    #[test]
    fn a_command_line_keeps_this_computers_confirmation_only_while_it_is_the_same() {
        let start = with_servers(&[("alpha", 1)]);
        let mut mine = start.clone();
        mine.servers[0].confirmed_command = Some("yes".into());
        let synced = after(&Remote::default(), joining(&mine, &Remote::default(), 1));
        assert_eq!(merged(&mine, &synced).servers[0].confirmed_command.as_deref(), Some("yes"));
        let mut moved = start.clone();
        moved.servers[0].url = "https://elsewhere.example/mcp".into();
        let moved = after(&synced, changed(&start, &moved, 2));
        assert_eq!(merged(&mine, &moved).servers[0].confirmed_command, None);
    }

    #[test]
    fn preferences_travel_and_hostile_items_are_left_out() {
        let mut doc = Settings::default();
        doc.gemini.model = Some("gemini-3.8-flash".into());
        let synced = after(&Remote::default(), changed(&Settings::default(), &doc, 1));
        let taken = merged(&Settings::default(), &synced);
        assert_eq!(taken.gemini.model.as_deref(), Some("gemini-3.8-flash"));

        let other = with_servers(&[("alpha", 1)]);
        let mut bad = shared_form(&other.servers[0]);
        bad.url = "http://attacker.example/mcp".into();
        let item = |id: &str, server: &Server| SyncItem::Server {
            id: id.to_owned(),
            synced: Box::new(SyncedServer { server: Some(server.clone()), edited_ms: 1 }),
        };
        let remote =
            Remote::read([item(bad.id.as_str(), &bad), item("srv_other", &other.servers[0])]);
        // The plain-http one reads but is refused on merge; the one under another id is dropped.
        assert_eq!(ItemKind::of("sync_server:srv_1"), Some(ItemKind::Server("srv_1")));
        assert_eq!(ItemKind::of("other"), None);
        assert_eq!(remote.servers.len(), 1);
        assert!(merged(&Settings::default(), &remote).servers.is_empty());
    }
}
