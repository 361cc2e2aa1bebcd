//! Gemini function names for tools: `mcp_{server}_{tool}` for an MCP server's,
//! `browser_{tool}` for the browser's own, `page_{host}_{tool}` for a page's (WebMCP).
//!
//! Gemini accepts `[A-Za-z0-9_.:-]`, at most 64 characters. Names are lowercased, every other
//! character becomes `_`, runs of `_` collapse and ends are trimmed. A name that is too long is
//! cut and given a short hash of the full name, so two long names that share a prefix stay
//! distinct and the same tool always gets the same name.

use crate::hash::short_hash;
use crate::settings::source::SourceKind;

/// Longest function name Gemini accepts.
pub const MAX_NAME_LEN: usize = 64;

/// Lowercase ASCII alphanumerics separated by single `_`, no `_` at either end.
pub fn sanitize_segment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_matches('_').to_owned()
}

/// `mcp_{server}_{tool}`, cut to [`MAX_NAME_LEN`] with a hash suffix when longer.
/// Empty segments (a name of only symbols or non-Latin letters) become `server` / `tool`.
pub fn function_name(server: &str, tool: &str) -> String {
    for_source(SourceKind::Mcp, server, tool)
}

/// The function name of `tool` of a source of `kind` named `source` (a server's name, a page's
/// host; the browser's name is not part of its tools' names). Same rules for every kind.
pub fn for_source(kind: SourceKind, source: &str, tool: &str) -> String {
    let tool = non_empty(sanitize_segment(tool), "tool");
    let name = match kind {
        SourceKind::Browser => format!("browser_{tool}"),
        SourceKind::Mcp => format!("mcp_{}_{tool}", non_empty(sanitize_segment(source), "server")),
        SourceKind::Page => format!("page_{}_{tool}", non_empty(sanitize_segment(source), "site")),
    };
    if name.len() <= MAX_NAME_LEN {
        name
    } else {
        with_suffix(&name, &short_hash(&name))
    }
}

/// `name` cut so that `_{suffix}` fits in [`MAX_NAME_LEN`], then `_{suffix}` appended.
/// `name` must be ASCII (it is, after [`sanitize_segment`]).
pub fn with_suffix(name: &str, suffix: &str) -> String {
    let keep = MAX_NAME_LEN.saturating_sub(suffix.len() + 1).min(name.len());
    let head = name.get(..keep).unwrap_or(name).trim_end_matches('_');
    format!("{head}_{suffix}")
}

fn non_empty(segment: String, fallback: &str) -> String {
    if segment.is_empty() {
        fallback.to_owned()
    } else {
        segment
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_source_names_its_tools_by_the_same_rules() {
        assert_eq!(function_name("GitHub", "create-issue"), "mcp_github_create_issue");
        assert_eq!(for_source(SourceKind::Browser, "Browser", "read_page"), "browser_read_page");
        assert_eq!(
            for_source(SourceKind::Page, "shop.example.com", "addToCart"),
            "page_shop_example_com_addtocart"
        );
        assert_eq!(for_source(SourceKind::Page, "日本", "検索"), "page_site_tool");
        let long = for_source(SourceKind::Page, &"a".repeat(80), "search");
        assert!(long.len() <= MAX_NAME_LEN && long.starts_with("page_aaa"), "{long}");
        assert_ne!(long, for_source(SourceKind::Page, &"a".repeat(81), "search"));
        let long_browser = for_source(SourceKind::Browser, "", &"x".repeat(70));
        assert_eq!(long_browser.len(), MAX_NAME_LEN);
    }
}
