//! Resources a person attaches: one page of `resources/list` at a time (the `@` menu pages as
//! the person scrolls), `resources/templates/list`, and `resources/subscribe` /
//! `resources/unsubscribe` of the handshake era (2026-07-28 subscribes on its
//! `subscriptions/listen` stream instead, see `listen`).
//!
//! Specification: <https://modelcontextprotocol.io/specification/2025-11-25/server/resources>,
//! <https://modelcontextprotocol.io/specification/2026-07-28/server/resources>.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::client::Client;
use super::error::Kind;
use super::transport::{HttpTransport, Timer};
use super::types::{InvalidTool, Resource};
use super::Error;
use crate::decode::Lenient;
use crate::text::Text;

/// One entry of `resources/templates/list`: resources made from an RFC 6570 URI template.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplate {
    pub uri_template: String,
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ListTemplatesResult {
    #[serde(default)]
    resource_templates: Vec<Lenient<ResourceTemplate>>,
    #[serde(default)]
    next_cursor: Option<String>,
}

/// A server's resource templates and what could not be read of the list.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TemplateList {
    pub templates: Vec<ResourceTemplate>,
    pub invalid: Vec<InvalidTool>,
}

/// One page of `resources/list`; a resource that cannot be read costs only itself.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourcePage {
    pub resources: Vec<Resource>,
    /// Entries of the page that could not be read.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unreadable: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LenientResourcePage {
    #[serde(default)]
    resources: Vec<Lenient<Resource>>,
    #[serde(default)]
    next_cursor: Option<String>,
}

/// The longest cursor passed on: a cursor is opaque, but it travels to the page and back.
pub const MAX_CURSOR_CHARS: usize = 4096;

impl<T: HttpTransport + Timer> Client<T>
where
    T::Body: 'static,
{
    /// One page of resources from `cursor` (the first page without one). The caller follows
    /// `next_cursor` and bounds the listing (pages, a cursor seen before).
    pub async fn list_resources_page(&self, cursor: Option<&str>) -> Result<ResourcePage, Error> {
        let mut params = Map::new();
        if let Some(cursor) = cursor {
            params.insert("cursor".into(), cursor.into());
        }
        let result = self.request("resources/list", params, &(), None).await?;
        let page: LenientResourcePage = self.decode("resources/list", result)?;
        let mut out = ResourcePage::default();
        for entry in page.resources {
            match entry {
                Lenient::Valid(resource) => out.resources.push(resource),
                Lenient::Invalid { .. } => out.unreadable += 1,
            }
        }
        out.next_cursor = page.next_cursor.filter(|c| c.len() <= MAX_CURSOR_CHARS);
        Ok(out)
    }

    /// Every resource template, following `nextCursor` pages (2026-07-28 pages them; earlier
    /// servers answer with one).
    pub async fn list_resource_templates(&self) -> Result<TemplateList, Error> {
        let mut list = TemplateList::default();
        let (_, cut) = self
            .paginate("resources/templates/list", |page: ListTemplatesResult| {
                for entry in page.resource_templates {
                    match entry {
                        Lenient::Valid(template) => list.templates.push(template),
                        Lenient::Invalid { raw, error } => list.invalid.push(InvalidTool {
                            name: raw.get("name").and_then(Value::as_str).map(str::to_owned),
                            reason: Text::new("errTemplateUnreadable").arg(error.located()),
                        }),
                    }
                }
                page.next_cursor
            })
            .await?;
        list.invalid.extend(cut.map(|cut| cut.note("resources/templates/list")));
        Ok(list)
    }

    /// Whether the server announces changes of single resources: `resources.subscribe`, or a
    /// server not asked in this process (a resumed session; it may refuse, which is harmless).
    pub fn offers_resource_updates(&self) -> bool {
        let subscribe = |s: super::ServerDescription| {
            s.capabilities.get("resources").and_then(|r| r.get("subscribe"))
                == Some(&Value::Bool(true))
        };
        self.server().is_none_or(subscribe)
    }

    /// `resources/subscribe` (handshake era): the server sends `notifications/resources/updated`
    /// for `uri` on this session until [`unsubscribe_resource`](Self::unsubscribe_resource).
    /// On 2026-07-28 a subscription is part of a `subscriptions/listen` filter instead: an
    /// error with `is_unsupported()`.
    pub async fn subscribe_resource(&self, uri: &str) -> Result<(), Error> {
        self.resource_subscription("resources/subscribe", uri).await
    }

    pub async fn unsubscribe_resource(&self, uri: &str) -> Result<(), Error> {
        self.resource_subscription("resources/unsubscribe", uri).await
    }

    async fn resource_subscription(&self, method: &str, uri: &str) -> Result<(), Error> {
        if self.connect().await?.is_modern() {
            let unsupported = Kind::Unsupported(Text::new("errMcpSubscribeModern"));
            return Err(self.error(unsupported).with_method(method));
        }
        let mut params = Map::new();
        params.insert("uri".into(), uri.into());
        self.request(method, params, &(), None).await.map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn templates_read_as_the_specification_shows_them() {
        let page: ListTemplatesResult = serde_json::from_value(json!({
            "resourceTemplates": [
                {"uriTemplate": "file:///{path}", "name": "Project Files", "title": "📁 Project Files",
                 "description": "Access files in the project directory", "mimeType": "application/octet-stream",
                 "icons": [{"src": "https://example.com/folder-icon.png"}]},
                {"name": "no template"},
            ],
        }))
        .unwrap();
        let [Lenient::Valid(template), Lenient::Invalid { .. }] =
            page.resource_templates.as_slice()
        else {
            panic!("one valid, one invalid")
        };
        assert_eq!(template.uri_template, "file:///{path}");
        assert_eq!(template.mime_type.as_deref(), Some("application/octet-stream"));
        assert!(page.next_cursor.is_none());
    }

    #[test]
    fn a_resource_page_keeps_its_readable_entries() {
        let page: LenientResourcePage = serde_json::from_value(json!({
            "resources": [{"uri": "a://1", "name": "one"}, {"name": "no uri"}, 3],
            "nextCursor": "c2",
        }))
        .unwrap();
        assert_eq!(page.resources.iter().filter(|r| matches!(r, Lenient::Valid(_))).count(), 1);
        assert_eq!(page.next_cursor.as_deref(), Some("c2"));
    }
}
