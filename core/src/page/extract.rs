//! What the in-page reader returns (`browser/js/page.js`: Mozilla Readability on a copy of the
//! document, then a walk of the article), and the Markdown the model reads.
//!
//! The reader sends blocks of inline runs, not HTML: headings, paragraphs, list items, quotes,
//! preformatted text and table rows, with links as (text, href). Rendering them is here, so
//! it is tested natively and the same for every page.

use serde::Deserialize;

/// Text the reader collects at most from one page, in characters; past it, it stops and says
/// so ([`PageRead::cut`]). A page's text is read in [`super::paging`] pages of this.
pub const MAX_READ_CHARS: usize = 1_000_000;

/// One read of a page, as the in-page reader returns it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct PageRead {
    pub url: String,
    pub title: String,
    pub lang: Option<String>,
    pub byline: Option<String>,
    /// Readability found an article; otherwise the blocks are the whole body's.
    pub article: bool,
    pub blocks: Vec<Block>,
    /// The reader stopped at [`MAX_READ_CHARS`].
    pub cut: bool,
}

/// A block of text.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Block {
    /// `p`, `h1`…`h6`, `li`, `pre`, `quote`, `row`; anything else reads as `p`.
    pub k: String,
    /// Text runs and links (`[text, href]`).
    pub t: Vec<Inline>,
}

/// A run of text: a string, or a link as `[text, href]`. Read through `serde_json::Value`
/// (`#[serde(from)]`): an untagged enum would buffer and try each shape, in more code.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(from = "serde_json::Value")]
pub enum Inline {
    Text(String),
    Link(String, String),
    /// Anything else the page's script sent: ignored.
    Other,
}

impl From<serde_json::Value> for Inline {
    fn from(value: serde_json::Value) -> Self {
        use serde_json::Value;
        match value {
            Value::String(text) => Inline::Text(text),
            Value::Array(pair) => match pair.as_slice() {
                [Value::String(text), Value::String(href)] => {
                    Inline::Link(text.clone(), href.clone())
                }
                _ => Inline::Other,
            },
            _ => Inline::Other,
        }
    }
}

/// How links are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    /// `[text](href)`, for the model.
    Markdown,
    /// The text only (the benchmark's ground truth has no URLs).
    TextOnly,
}

impl PageRead {
    /// The page's text as Markdown: blocks apart by a blank line, list items by a line break.
    pub fn markdown(&self, links: Links) -> String {
        let mut out = String::new();
        let mut previous: Option<&str> = None;
        for block in &self.blocks {
            let kind = block.k.as_str();
            let text = if kind == "pre" { preformatted(&block.t) } else { inline(&block.t, links) };
            if text.trim().is_empty() {
                continue;
            }
            if !out.is_empty() {
                out.push_str(if kind == "li" && previous == Some("li") { "\n" } else { "\n\n" });
            }
            match kind {
                "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                    let level = kind[1..].parse::<usize>().unwrap_or(2);
                    out.push_str(&"#".repeat(level));
                    out.push(' ');
                    out.push_str(&text);
                }
                "li" => {
                    out.push_str("- ");
                    out.push_str(&text);
                }
                "quote" => out.push_str(&format!("> {text}")),
                "pre" => out.push_str(&format!("```\n{}\n```", text.trim_matches('\n'))),
                _ => out.push_str(&text),
            }
            previous = Some(kind);
        }
        out
    }
}

/// A block's runs as one line: white space collapsed, links as `links` says.
fn inline(runs: &[Inline], links: Links) -> String {
    let mut out = String::new();
    for run in runs {
        let piece = match run {
            Inline::Text(text) => text.clone(),
            Inline::Link(text, href) => link(&collapse(text), href, links),
            Inline::Other => continue,
        };
        out.push_str(&piece);
    }
    collapse(&out).trim_end().to_owned()
}

fn collapse(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            space = !out.is_empty();
        } else {
            if space {
                out.push(' ');
                space = false;
            }
            out.push(c);
        }
    }
    // (A space at the end is kept so a run and the next one stay apart; trimmed by the caller.)
    if space {
        out.push(' ');
    }
    out
}

/// A link in Markdown. Only http(s) and mailto targets are kept (a `javascript:` link is
/// text); brackets in the text and parentheses and spaces in the target are escaped.
fn link(text: &str, href: &str, links: Links) -> String {
    let href = href.trim();
    let text_trimmed = text.trim();
    let linkable = ["https://", "http://", "mailto:"]
        .iter()
        .any(|scheme| href.get(..scheme.len()).is_some_and(|s| s.eq_ignore_ascii_case(scheme)));
    if links == Links::TextOnly || !linkable || text_trimmed.is_empty() {
        return text.to_owned();
    }
    let target: String = href
        .chars()
        .map(|c| match c {
            '(' => "%28".to_owned(),
            ')' => "%29".to_owned(),
            ' ' => "%20".to_owned(),
            c => c.to_string(),
        })
        .collect();
    let label = text_trimmed.replace('[', "\\[").replace(']', "\\]");
    // Keep the spaces around the link that the text had.
    let before = if text.starts_with(char::is_whitespace) { " " } else { "" };
    let after = if text.ends_with(char::is_whitespace) { " " } else { "" };
    format!("{before}[{label}]({target}){after}")
}

/// Preformatted text kept as it is (links as text), tabs and line breaks included.
fn preformatted(runs: &[Inline]) -> String {
    runs.iter()
        .map(|run| match run {
            Inline::Text(text) | Inline::Link(text, _) => text.as_str(),
            Inline::Other => "",
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(json: serde_json::Value) -> PageRead {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn blocks_become_markdown_with_links() {
        let page = read(serde_json::json!({
            "url": "https://example.com/a",
            "title": "A",
            "blocks": [
                {"k": "h1", "t": ["  Tea \n houses "]},
                {"k": "p", "t": ["Read ", ["the guide", "https://example.com/guide (2)"], " first."]},
                {"k": "li", "t": ["one"]},
                {"k": "li", "t": [["two [b]", "https://example.com/two"]]},
                {"k": "p", "t": [["run me", "javascript:alert(1)"], " and ", ["mail", "mailto:a@b.c"]]},
                {"k": "pre", "t": ["fn main() {\n    go();\n}\n"]},
                {"k": "quote", "t": ["Said."]},
                {"k": "p", "t": ["   "]},
                {"k": "aside", "t": [["", "https://example.com/empty"], "Other"]}
            ]
        }));
        assert_eq!(
            page.markdown(Links::Markdown),
            "# Tea houses\n\n\
             Read [the guide](https://example.com/guide%20%282%29) first.\n\n\
             - one\n- [two \\[b\\]](https://example.com/two)\n\n\
             run me and [mail](mailto:a@b.c)\n\n\
             ```\nfn main() {\n    go();\n}\n```\n\n\
             > Said.\n\n\
             Other"
        );
        assert!(page
            .markdown(Links::TextOnly)
            .starts_with("# Tea houses\n\nRead the guide first."));
    }

    #[test]
    fn what_the_reader_sends_is_read_leniently() {
        let page = read(serde_json::json!({"url": "u", "blocks": [{"k": "x", "t": [1, "a"]}]}));
        assert_eq!(page.markdown(Links::Markdown), "a");
        assert!(serde_json::from_value::<PageRead>(serde_json::json!({"url": 5})).is_err());
        let empty = read(serde_json::json!({}));
        assert_eq!(empty, PageRead::default());
    }
}
