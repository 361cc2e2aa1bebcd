//! Where a tool comes from. MCP servers, the browser's built-in tools and a tab's WebMCP tools
//! are three kinds of one source of tools: naming, the tool budget, confirmation and trust,
//! the tools menu treat them alike; only how a call is carried differs (an MCP client through
//! the worker, `chrome.scripting`/`tabs` in the side panel, `executeTool` in the tab).
//!
//! A source is named by an id string: a settings [`crate::settings::ServerId`] (`srv_…`) for
//! an MCP server, [`BROWSER`] for the browser, and `page:` followed by an origin for a page.

/// The id of the browser's built-in tools as a source.
pub const BROWSER: &str = "browser";
/// What every page source's id starts with; alone, the key of a chat's switch for whatever
/// page is beside it (its tools change with the tab).
pub const PAGES: &str = PAGE_PREFIX;
const PAGE_PREFIX: &str = "page:";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SourceKind {
    Mcp,
    Browser,
    Page,
}

impl SourceKind {
    /// The kind of the source `id`.
    pub fn of(id: &str) -> Self {
        if id == BROWSER {
            Self::Browser
        } else if id.starts_with(PAGE_PREFIX) {
            Self::Page
        } else {
            Self::Mcp
        }
    }

    /// The kind of source of a function name the chat gave (`None`: `search_tools`, an app's
    /// own tool).
    pub fn of_function(name: &str) -> Option<Self> {
        [Self::Mcp, Self::Browser, Self::Page]
            .into_iter()
            .find(|kind| name.strip_prefix(kind.prefix()).is_some_and(|rest| rest.starts_with('_')))
    }

    /// The function names of this kind start with this and `_`.
    pub fn prefix(self) -> &'static str {
        match self {
            Self::Mcp => "mcp",
            Self::Browser => "browser",
            Self::Page => "page",
        }
    }
}

/// The source id of the tools a page at `origin` (`https://shop.example`) registers.
pub fn page_source(origin: &str) -> String {
    format!("{PAGE_PREFIX}{origin}")
}

/// The origin of a page source id; `None` for other sources.
pub fn page_origin(id: &str) -> Option<&str> {
    id.strip_prefix(PAGE_PREFIX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_told_apart_by_id() {
        assert_eq!(SourceKind::of("srv_0123abcd"), SourceKind::Mcp);
        assert_eq!(SourceKind::of(BROWSER), SourceKind::Browser);
        let page = page_source("https://shop.example");
        assert_eq!(SourceKind::of(&page), SourceKind::Page);
        assert_eq!(page_origin(&page), Some("https://shop.example"));
        assert_eq!(page_origin("srv_1"), None);
        // A server id can never be taken for another kind: they all start with `srv_`.
        assert_eq!(SourceKind::of("browsers"), SourceKind::Mcp);
        assert_eq!(SourceKind::of_function("page_shop_buy"), Some(SourceKind::Page));
        assert_eq!(SourceKind::of_function("browser_read_page"), Some(SourceKind::Browser));
        assert_eq!(SourceKind::of_function("mcp_x_y"), Some(SourceKind::Mcp));
        assert_eq!(SourceKind::of_function("pages"), None);
        assert_eq!(SourceKind::of_function("search_tools"), None);
    }
}
