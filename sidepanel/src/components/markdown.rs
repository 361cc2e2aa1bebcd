//! Markdown as Yew nodes, built straight from pulldown-cmark events.
//!
//! No HTML string is ever produced or injected: raw HTML in a reply becomes text, links open in a
//! new tab without access to this page, and only http(s)/mailto links are links at all.

use std::rc::Rc;

use pulldown_cmark::{CodeBlockKind, Event, Tag};
use yew::prelude::*;

use super::code_block::CodeBlock;
use crate::markdown::{MdDoc, GROUP};
use crate::markdown_nesting::{bounded, Piece};

#[derive(Properties, PartialEq)]
pub struct DocProps {
    pub doc: MdDoc,
}

/// A whole reply: finished blocks are memoized (in groups), only the tail renders per chunk.
#[function_component]
pub fn Markdown(props: &DocProps) -> Html {
    let doc = &props.doc;
    let groups = doc.sealed().iter().enumerate().map(|(i, blocks)| {
        html! { <MdGroup key={format!("g{i}")} blocks={blocks.clone()} /> }
    });
    let first_open = doc.sealed().len() * GROUP;
    let open = doc.open().iter().enumerate().map(|(i, source)| {
        html! { <MdBlock key={format!("b{}", first_open + i)} source={source.clone()} /> }
    });
    let tail: Rc<str> = Rc::from(doc.tail());
    html! {
        <div class="markdown">
            { for groups }
            { for open }
            <MdBlock key="tail" source={tail} />
        </div>
    }
}

#[derive(Properties)]
struct GroupProps {
    blocks: Rc<[Rc<str>]>,
}

impl PartialEq for GroupProps {
    /// Groups never change once sealed: the pointer says it all.
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.blocks, &other.blocks)
    }
}

/// [`GROUP`] finished blocks; rendered once. Wrapped in a box of their own so the browser's
/// layout steps over a finished group as one clean child instead of walking every block.
#[function_component]
fn MdGroup(props: &GroupProps) -> Html {
    html! { <div class="md-group">{ for props.blocks.iter().map(|source| render(source)) }</div> }
}

#[derive(Properties)]
pub struct BlockProps {
    pub source: Rc<str>,
}

impl PartialEq for BlockProps {
    /// Finished blocks keep their `Rc`: the pointer check settles them without reading text.
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.source, &other.source) || self.source == other.source
    }
}

/// One block; re-renders only when its source changes.
#[function_component]
pub fn MdBlock(props: &BlockProps) -> Html {
    render(&props.source)
}

struct Frame<'a> {
    tag: Tag<'a>,
    children: Vec<Html>,
}

/// Renders markdown source to nodes, never deeper than
/// [`MAX_DEPTH`](crate::markdown_nesting::MAX_DEPTH) elements of markdown.
pub fn render(source: &str) -> Html {
    let mut root: Vec<Html> = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut code: Option<String> = None;
    let mut in_table_head = false;
    for piece in bounded(source) {
        let event = match piece {
            Piece::Event(event) => event,
            Piece::TooDeep(text) => {
                let node = html! { <span class="md-too-deep">{ text }</span> };
                append(&mut stack, &mut root, node);
                continue;
            }
        };
        let node = match event {
            Event::Start(tag) => {
                match &tag {
                    Tag::CodeBlock(_) => code = Some(String::new()),
                    Tag::TableHead => in_table_head = true,
                    _ => {}
                }
                stack.push(Frame { tag, children: Vec::new() });
                continue;
            }
            Event::End(_) => {
                let Some(frame) = stack.pop() else { continue };
                if matches!(frame.tag, Tag::TableHead) {
                    in_table_head = false;
                }
                element(frame, code.take(), in_table_head)
            }
            Event::Text(text) => match code.as_mut() {
                Some(code) => {
                    code.push_str(&text);
                    continue;
                }
                None => html! { { text.into_string() } },
            },
            Event::Code(text) => html! { <code>{ text.into_string() }</code> },
            // Shown as written, never interpreted.
            Event::Html(text) | Event::InlineHtml(text) => match code.as_mut() {
                Some(code) => {
                    code.push_str(&text);
                    continue;
                }
                None => html! { <span class="raw-html">{ text.into_string() }</span> },
            },
            Event::InlineMath(text) | Event::DisplayMath(text) => {
                html! { <code>{ text.into_string() }</code> }
            }
            Event::FootnoteReference(label) => html! { <sup>{ label.into_string() }</sup> },
            Event::SoftBreak => html! { { "\n" } },
            Event::HardBreak => html! { <br /> },
            Event::Rule => html! { <hr /> },
            Event::TaskListMarker(checked) => {
                html! { <input type="checkbox" disabled=true {checked} /> }
            }
        };
        append(&mut stack, &mut root, node);
    }
    // Unclosed frames (cannot happen with pulldown-cmark, but never lose text).
    while let Some(frame) = stack.pop() {
        let node = element(frame, code.take(), false);
        append(&mut stack, &mut root, node);
    }
    root.into_iter().collect::<Html>()
}

/// Adds a finished node to the innermost open element, or to the top level.
fn append(stack: &mut [Frame], root: &mut Vec<Html>, node: Html) {
    match stack.last_mut() {
        Some(parent) => parent.children.push(node),
        None => root.push(node),
    }
}

fn element(frame: Frame, code: Option<String>, in_table_head: bool) -> Html {
    let children = frame.children.into_iter().collect::<Html>();
    match frame.tag {
        Tag::Paragraph => html! { <p>{ children }</p> },
        Tag::Heading { level, .. } => {
            let name = format!("h{}", (level as usize + 1).min(6));
            html! { <@{name}>{ children }</@> }
        }
        Tag::BlockQuote(_) => html! { <blockquote>{ children }</blockquote> },
        Tag::CodeBlock(kind) => {
            let lang = match kind {
                CodeBlockKind::Fenced(info) => {
                    info.split_whitespace().next().unwrap_or_default().to_owned()
                }
                CodeBlockKind::Indented => String::new(),
            };
            // The last line's newline ends the block; it is not part of what one copies.
            let mut code = code.unwrap_or_default();
            if code.ends_with('\n') {
                code.pop();
            }
            html! { <CodeBlock code={code} lang={lang} /> }
        }
        Tag::List(Some(start)) => html! { <ol start={start.to_string()}>{ children }</ol> },
        Tag::List(None) => html! { <ul>{ children }</ul> },
        Tag::Item => html! { <li>{ children }</li> },
        Tag::Table(_) => html! { <div class="table-wrap"><table>{ children }</table></div> },
        Tag::TableHead => html! { <thead><tr>{ children }</tr></thead> },
        Tag::TableRow => html! { <tr>{ children }</tr> },
        Tag::TableCell if in_table_head => html! { <th>{ children }</th> },
        Tag::TableCell => html! { <td>{ children }</td> },
        Tag::Emphasis => html! { <em>{ children }</em> },
        Tag::Strong => html! { <strong>{ children }</strong> },
        Tag::Strikethrough => html! { <del>{ children }</del> },
        Tag::Link { dest_url, title, .. } => link(&dest_url, &title, children),
        // Images are not loaded from replies (tracking pixels); their alt text links to them.
        Tag::Image { dest_url, title, .. } => {
            link(&dest_url, &title, html! { <>{ "🖼 " }{ children }</> })
        }
        _ => html! { <div>{ children }</div> },
    }
}

fn link(url: &str, title: &str, children: Html) -> Html {
    if is_safe_url(url) {
        html! {
            <a href={url.to_owned()} title={title.to_owned()} target="_blank"
                rel="noopener noreferrer">{ children }</a>
        }
    } else {
        html! { <span class="bad-link" title={url.to_owned()}>{ children }</span> }
    }
}

/// Only links that cannot run script or reach extension pages.
pub fn is_safe_url(url: &str) -> bool {
    let lower = url.trim_start().to_ascii_lowercase();
    ["https://", "http://", "mailto:"].iter().any(|p| lower.starts_with(p))
}

#[cfg(test)]
mod tests {
    use yew::virtual_dom::VNode;

    use super::{is_safe_url, render};
    use crate::markdown_nesting::MAX_DEPTH;

    /// How many elements deep `node` goes, walked without recursion.
    fn element_depth(node: &VNode) -> usize {
        let mut deepest = 0;
        let mut todo = vec![(node, 0usize)];
        while let Some((node, depth)) = todo.pop() {
            deepest = deepest.max(depth);
            match node {
                VNode::VTag(tag) => todo.extend(tag.children().map(|c| (c, depth + 1))),
                VNode::VList(list) => todo.extend(list.iter().map(|c| (c, depth))),
                _ => {}
            }
        }
        deepest
    }

    #[test]
    fn a_deeply_nested_reply_renders_to_a_shallow_tree() {
        for levels in [1_000, 100_000] {
            for source in [
                format!("{} x", ">".repeat(levels)),
                format!("{} x", "- ".repeat(levels)),
                format!("{}x{}", "*".repeat(levels), "*".repeat(levels)),
            ] {
                let html = render(&source);
                // A table is the widest level: two elements for one.
                assert!(element_depth(&html) <= 2 * MAX_DEPTH, "{}…", &source[..8]);
                // Dropping a tree is recursive too: this would overflow before the cap.
                drop(html);
            }
        }
    }

    #[test]
    fn only_web_and_mail_links_are_links() {
        for ok in ["https://example.com", "HTTP://x", " mailto:a@b.c"] {
            assert!(is_safe_url(ok), "{ok}");
        }
        for bad in ["javascript:alert(1)", "JaVaScRiPt:x", "data:text/html,x", "popup.html", ""] {
            assert!(!is_safe_url(bad), "{bad}");
        }
    }
}
