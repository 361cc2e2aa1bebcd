//! Updates of attached resources: which resources a chat follows, which subscriptions the
//! worker holds for the open pages, and which of a chat's resources are marked as changed until
//! the person refreshes them.
//!
//! A chat follows the resources its messages sent (their labels name the server they were read
//! from). Each side panel tells the worker what its open chat follows; the worker follows the
//! union, per server, on servers whose capabilities say `resources.subscribe`:
//! `resources/subscribe` and the session's standalone GET stream on 2025-11-25
//! (<https://modelcontextprotocol.io/specification/2025-11-25/server/resources#subscriptions>),
//! `subscriptions/listen` with `resourceSubscriptions` on 2026-07-28
//! (<https://modelcontextprotocol.io/specification/2026-07-28/server/resources#subscriptions>).
//! A resource no open chat follows is unsubscribed. A `notifications/resources/updated` comes
//! back to the pages as the resource it names, and the panel marks it where the chat shows it.

use serde::{Deserialize, Serialize};

use crate::page::context::{ContextKind, ContextLabel};
use crate::settings::ServerId;

/// A resource of a server, as followed: its URI as the server listed it (updates name it
/// exactly so).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct FollowedResource {
    pub server_id: ServerId,
    pub uri: String,
}

/// The resources one chat follows, at most: a subscription costs the server something, and a
/// long chat's oldest resources matter least.
pub const MAX_FOLLOWED: usize = 32;
/// The longest URI followed (a subscription request carries it; a page could send anything).
pub const MAX_URI_CHARS: usize = 2048;

impl FollowedResource {
    /// The resource a sent label names: a resource with the server it was read from (labels
    /// saved before they named it follow nothing).
    pub fn of(label: &ContextLabel) -> Option<Self> {
        let server_id = label.server_id.clone().filter(|_| label.kind == ContextKind::Resource)?;
        let fits = !label.url.is_empty() && label.url.chars().count() <= MAX_URI_CHARS;
        fits.then(|| FollowedResource { server_id, uri: label.url.clone() })
    }
}

/// What a chat follows: the resources of `sent` (its messages' labels, oldest first), each
/// once, the last [`MAX_FOLLOWED`] sent when there are more; sorted, so that the same chat
/// gives the same list.
pub fn followed<'a>(sent: impl IntoIterator<Item = &'a ContextLabel>) -> Vec<FollowedResource> {
    let mut out: Vec<FollowedResource> = Vec::new();
    let all: Vec<FollowedResource> = sent.into_iter().filter_map(FollowedResource::of).collect();
    for resource in all.into_iter().rev() {
        if out.len() == MAX_FOLLOWED {
            break;
        }
        insert_sorted(&mut out, resource);
    }
    out
}

/// Adds `item` where it sorts, once. The lists here are short, and a general sort would put a
/// copy of its code per element type into each wasm module.
fn insert_sorted<T: Ord>(list: &mut Vec<T>, item: T) {
    if let Err(at) = list.binary_search(&item) {
        list.insert(at, item);
    }
}

// ---- the worker: what the open pages follow ----------------------------------------------------

/// What every open page follows, `K` naming a page (the worker's port).
#[derive(Debug)]
pub struct Demand<K> {
    pages: Vec<(K, Vec<FollowedResource>)>,
}

impl<K> Default for Demand<K> {
    fn default() -> Self {
        Demand { pages: Vec::new() }
    }
}

impl<K: PartialEq> Demand<K> {
    /// What `page` follows now, replacing what it followed before; bounded and deduplicated
    /// here, since a page's list is input.
    pub fn set(&mut self, page: K, resources: Vec<FollowedResource>) {
        let mut kept = Vec::new();
        for resource in resources {
            let fits = !resource.uri.is_empty() && resource.uri.chars().count() <= MAX_URI_CHARS;
            if fits {
                insert_sorted(&mut kept, resource);
            }
        }
        kept.truncate(MAX_FOLLOWED);
        self.pages.retain(|(p, _)| *p != page);
        if !kept.is_empty() {
            self.pages.push((page, kept));
        }
    }

    /// The page went: what only it followed is no longer wanted.
    pub fn remove(&mut self, page: &K) {
        self.pages.retain(|(p, _)| p != page);
    }

    /// The URIs wanted of each server, servers and URIs sorted, each once.
    pub fn by_server(&self) -> Vec<(ServerId, Vec<String>)> {
        let mut all: Vec<FollowedResource> = Vec::new();
        for resource in self.pages.iter().flat_map(|(_, r)| r) {
            insert_sorted(&mut all, resource.clone());
        }
        let mut out: Vec<(ServerId, Vec<String>)> = Vec::new();
        for resource in all {
            match out.last_mut() {
                Some((id, uris)) if *id == resource.server_id => uris.push(resource.uri.clone()),
                _ => out.push((resource.server_id.clone(), vec![resource.uri.clone()])),
            }
        }
        out
    }
}

/// What the worker changes so that what it follows is what is wanted. A server's subscription
/// is one unit (one `subscriptions/listen` stream, or one watched session): when its URIs
/// change it is stopped and started again with the new list, re-subscribing a URI being
/// harmless; the URIs no longer wanted are unsubscribed.
#[derive(Debug, Default, PartialEq)]
pub struct Plan {
    pub stop: Vec<ServerId>,
    /// The URIs to unsubscribe of a server (a handshake-era session keeps a subscription until
    /// told; a stream's ends with the stream).
    pub unsubscribe: Vec<(ServerId, Vec<String>)>,
    pub start: Vec<(ServerId, Vec<String>)>,
}

/// The plan from what is `held` (each server's URIs as last started) to what is `wanted`.
pub fn plan(held: &[(ServerId, Vec<String>)], wanted: &[(ServerId, Vec<String>)]) -> Plan {
    let mut plan = Plan::default();
    for (id, uris) in held {
        let now = wanted.iter().find(|(w, _)| w == id).map(|(_, u)| u);
        if now == Some(uris) {
            continue;
        }
        plan.stop.push(id.clone());
        let gone: Vec<String> =
            uris.iter().filter(|u| now.is_none_or(|now| !now.contains(u))).cloned().collect();
        if !gone.is_empty() {
            plan.unsubscribe.push((id.clone(), gone));
        }
    }
    for (id, uris) in wanted {
        let kept = held.iter().any(|(h, u)| h == id && u == uris);
        if !kept {
            plan.start.push((id.clone(), uris.clone()));
        }
    }
    plan
}

// ---- the side panel: the marks -----------------------------------------------------------------

/// The open chat's resources that changed since they were read, until the person refreshes
/// them. Marks belong to one chat: another chat starts with none.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Marks {
    chat_id: String,
    changed: Vec<FollowedResource>,
}

impl Marks {
    /// A server said `resource` changed: marked when chat `chat_id` follows it. True when
    /// that is a new mark.
    pub fn updated(
        &mut self,
        chat_id: &str,
        follows: &[FollowedResource],
        resource: FollowedResource,
    ) -> bool {
        if self.chat_id != chat_id {
            *self = Marks { chat_id: chat_id.to_owned(), changed: Vec::new() };
        }
        let new = follows.contains(&resource) && !self.changed.contains(&resource);
        if new {
            self.changed.push(resource);
        }
        new
    }

    /// The resource was read again (a refresh, or attached anew): its content is current.
    pub fn refreshed(&mut self, resource: &FollowedResource) {
        self.changed.retain(|r| r != resource);
    }

    /// The marks of chat `chat_id` that it still follows (a version switched away from may
    /// have taken a resource along).
    pub fn changed(&self, chat_id: &str, follows: &[FollowedResource]) -> Vec<FollowedResource> {
        if self.chat_id != chat_id {
            return Vec::new();
        }
        self.changed.iter().filter(|r| follows.contains(r)).cloned().collect()
    }
}

/// Where the transcript shows each mark: the last label that sent each changed resource, as
/// (message, label) positions in `messages` (each message's labels, oldest message first).
/// Earlier sends of it are history; the last one is what the model read most recently.
pub fn mark_places(
    messages: &[&[ContextLabel]],
    changed: &[FollowedResource],
) -> Vec<(usize, usize)> {
    let mut places: Vec<(usize, usize)> = Vec::new();
    for resource in changed {
        let last = messages.iter().enumerate().rev().find_map(|(m, labels)| {
            let at =
                labels.iter().rposition(|l| FollowedResource::of(l).as_ref() == Some(resource));
            at.map(|l| (m, l))
        });
        if let Some(place) = last {
            insert_sorted(&mut places, place);
        }
    }
    places
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(name: &str) -> ServerId {
        ServerId::parse(&format!("srv_{name}")).unwrap()
    }

    fn resource(server: &str, uri: &str) -> FollowedResource {
        FollowedResource { server_id: id(server), uri: uri.into() }
    }

    fn label(kind: ContextKind, server: Option<&str>, uri: &str) -> ContextLabel {
        ContextLabel { kind, title: uri.into(), url: uri.into(), server_id: server.map(id) }
    }

    fn sent(server: &str, uri: &str) -> ContextLabel {
        label(ContextKind::Resource, Some(server), uri)
    }

    #[test]
    fn a_chat_follows_the_resources_it_sent_with_their_server() {
        let labels = [
            sent("a", "demo://1"),
            label(ContextKind::Page, Some("a"), "https://example.com/"),
            label(ContextKind::Resource, None, "demo://saved-before"),
            sent("b", "demo://1"),
            sent("a", "demo://1"),
            sent("a", ""),
        ];
        assert_eq!(followed(&labels), [resource("a", "demo://1"), resource("b", "demo://1")]);
        // Over the cap, the most recently sent are followed.
        let many: Vec<ContextLabel> =
            (0..MAX_FOLLOWED + 5).map(|n| sent("a", &format!("demo://{n:03}"))).collect();
        let kept = followed(&many);
        assert_eq!(kept.len(), MAX_FOLLOWED);
        assert_eq!(kept[0].uri, "demo://005");
        let long = sent("a", &format!("demo://{}", "x".repeat(MAX_URI_CHARS)));
        assert!(followed([&long]).is_empty());
    }

    #[test]
    fn the_worker_follows_the_union_of_the_open_pages_and_forgets_a_closed_one() {
        let mut demand = Demand::default();
        demand.set(1, vec![resource("b", "demo://2"), resource("a", "demo://1")]);
        demand.set(2, vec![resource("a", "demo://1"), resource("a", "demo://3")]);
        assert_eq!(
            demand.by_server(),
            [
                (id("a"), vec!["demo://1".into(), "demo://3".into()]),
                (id("b"), vec!["demo://2".into()])
            ]
        );
        // A page's new list replaces its old one.
        demand.set(1, vec![resource("a", "demo://1")]);
        assert_eq!(demand.by_server(), [(id("a"), vec!["demo://1".into(), "demo://3".into()])]);
        demand.remove(&2);
        assert_eq!(demand.by_server(), [(id("a"), vec!["demo://1".into()])]);
        demand.set(1, Vec::new());
        assert!(demand.by_server().is_empty());
        // A page's list is bounded.
        let many = (0..100).map(|n| resource("a", &format!("demo://{n:03}"))).collect();
        demand.set(3, many);
        assert_eq!(demand.by_server()[0].1.len(), MAX_FOLLOWED);
    }

    #[test]
    fn a_changed_list_restarts_its_server_and_unsubscribes_what_went() {
        let uris = |list: &[&str]| list.iter().map(|u| u.to_string()).collect::<Vec<_>>();
        let held = vec![(id("a"), uris(&["demo://1", "demo://2"])), (id("b"), uris(&["demo://9"]))];
        let wanted = vec![(id("a"), uris(&["demo://1", "demo://3"])), (id("c"), uris(&["x://1"]))];
        assert_eq!(
            plan(&held, &wanted),
            Plan {
                stop: vec![id("a"), id("b")],
                unsubscribe: vec![(id("a"), uris(&["demo://2"])), (id("b"), uris(&["demo://9"]))],
                start: vec![
                    (id("a"), uris(&["demo://1", "demo://3"])),
                    (id("c"), uris(&["x://1"]))
                ],
            }
        );
        assert_eq!(plan(&wanted, &wanted), Plan::default(), "nothing changed, nothing to do");
        // Only added: restarted, nothing unsubscribed.
        let more = vec![(id("a"), uris(&["demo://1", "demo://2", "demo://4"]))];
        let step = plan(&held[..1], &more);
        assert_eq!(step.stop, [id("a")]);
        assert!(step.unsubscribe.is_empty());
        assert_eq!(step.start, more);
    }

    #[test]
    fn a_followed_resource_is_marked_once_until_refreshed_and_only_in_its_chat() {
        let follows = vec![resource("a", "demo://1"), resource("a", "demo://2")];
        let mut marks = Marks::default();
        assert!(marks.updated("chat1", &follows, resource("a", "demo://2")));
        assert!(!marks.updated("chat1", &follows, resource("a", "demo://2")), "already marked");
        assert!(!marks.updated("chat1", &follows, resource("b", "demo://2")), "another server's");
        assert!(
            !marks.updated("chat1", &follows, resource("a", "demo://2/")),
            "URIs match exactly"
        );
        assert_eq!(marks.changed("chat1", &follows), [resource("a", "demo://2")]);
        assert!(marks.changed("chat2", &follows).is_empty(), "another chat shows none");
        // A resource the chat no longer follows (another version shown) shows no mark.
        assert!(marks.changed("chat1", &follows[..1]).is_empty());
        marks.refreshed(&resource("a", "demo://2"));
        assert!(marks.changed("chat1", &follows).is_empty());
        // Another chat's update starts its own marks.
        marks.updated("chat1", &follows, resource("a", "demo://1"));
        assert!(marks.updated("chat2", &follows, resource("a", "demo://2")));
        assert_eq!(marks.changed("chat2", &follows), [resource("a", "demo://2")]);
        assert!(marks.changed("chat1", &follows).is_empty());
    }

    #[test]
    fn a_mark_is_shown_on_the_last_label_that_sent_the_resource() {
        let first = [sent("a", "demo://1"), sent("a", "demo://2")];
        let second: [ContextLabel; 0] = [];
        let third = [label(ContextKind::Page, None, "https://x.example/"), sent("a", "demo://1")];
        let messages: [&[ContextLabel]; 3] = [&first, &second, &third];
        let changed = [resource("a", "demo://1"), resource("a", "demo://2"), resource("b", "x")];
        assert_eq!(mark_places(&messages, &changed), [(0, 1), (2, 1)]);
        assert!(mark_places(&messages, &[]).is_empty());
    }
}
