//! A cap on how deeply markdown nests before it becomes Yew nodes.
//!
//! pulldown-cmark parses any nesting without recursion, but a Yew tree is mounted, compared and
//! dropped recursively: a reply of about 1,000 nested `>` overflowed the stack and took the side
//! panel, with the open chat, down. Elements deeper than [`MAX_DEPTH`] are therefore handed on as
//! their source text, so the tree is never deeper than that whatever the model sends.

use pulldown_cmark::{Event, OffsetIter, Parser};

use crate::markdown::options;

/// The deepest element rendered as markdown. Ordinary replies stay far below it (a list nested
/// ten levels with bold link text is about 25); a level costs at most two elements and a few
/// Yew frames, so the cap keeps the tree well within the browser's stack.
pub const MAX_DEPTH: usize = 32;

/// What the renderer consumes: the parser's events, or a too-deep element as written.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece<'a> {
    Event(Event<'a>),
    /// An element that would have started below [`MAX_DEPTH`], with everything in it, as its
    /// markdown source.
    TooDeep(&'a str),
}

/// The events of `source`, with every element deeper than [`MAX_DEPTH`] folded into one
/// [`Piece::TooDeep`]. Linear in the size of `source`; only counters, no stack.
pub fn bounded(source: &str) -> Bounded<'_> {
    Bounded { source, events: Parser::new_ext(source, options()).into_offset_iter(), depth: 0 }
}

pub struct Bounded<'a> {
    source: &'a str,
    events: OffsetIter<'a>,
    /// Elements open around the next event.
    depth: usize,
}

impl<'a> Iterator for Bounded<'a> {
    type Item = Piece<'a>;

    fn next(&mut self) -> Option<Piece<'a>> {
        let (event, range) = self.events.next()?;
        match event {
            Event::Start(_) if self.depth >= MAX_DEPTH => {
                self.skip_rest_of_element();
                // A Start's range spans its whole element.
                Some(Piece::TooDeep(self.source.get(range).unwrap_or_default().trim_end()))
            }
            Event::Start(_) => {
                self.depth += 1;
                Some(Piece::Event(event))
            }
            Event::End(_) => {
                self.depth = self.depth.saturating_sub(1);
                Some(Piece::Event(event))
            }
            _ => Some(Piece::Event(event)),
        }
    }
}

impl Bounded<'_> {
    /// Consumes events up to the end of the element whose start was just read.
    fn skip_rest_of_element(&mut self) {
        let mut open = 1usize;
        while open > 0 {
            match self.events.next() {
                Some((Event::Start(_), _)) => open += 1,
                Some((Event::End(_), _)) => open -= 1,
                Some(_) => {}
                None => return,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The deepest nesting of elements in `pieces`, and the text they carry.
    fn depth_and_text<'a>(pieces: impl Iterator<Item = Piece<'a>>) -> (usize, String) {
        let (mut depth, mut deepest, mut text) = (0usize, 0usize, String::new());
        for piece in pieces {
            match piece {
                Piece::Event(Event::Start(_)) => {
                    depth += 1;
                    deepest = deepest.max(depth);
                }
                Piece::Event(Event::End(_)) => depth -= 1,
                Piece::Event(Event::Text(t)) => text.push_str(&t),
                Piece::TooDeep(source) => text.push_str(source),
                Piece::Event(_) => {}
            }
        }
        (deepest, text)
    }

    /// What a model can send to nest without end: quotes, lists, emphasis, images in links, and
    /// runs of brackets that nest nothing but must not cost more than their length.
    fn hostile(levels: usize) -> Vec<(&'static str, String)> {
        vec![
            ("quotes", format!("{} needle", ">".repeat(levels))),
            ("bullet lists", format!("{} needle", "- ".repeat(levels))),
            ("ordered lists", format!("{} needle", "1. ".repeat(levels))),
            ("emphasis", format!("{}needle{}", "*".repeat(levels), "*".repeat(levels))),
            ("images", format!("{}needle{}", "![".repeat(levels), "](u)".repeat(levels))),
            ("brackets", format!("{}needle", "[".repeat(levels))),
        ]
    }

    #[test]
    fn deep_nesting_is_cut_at_the_cap_and_keeps_its_text() {
        for levels in [1_000, 100_000] {
            for (name, source) in hostile(levels) {
                let (deepest, text) = depth_and_text(bounded(&source));
                assert!(deepest <= MAX_DEPTH, "{name} × {levels}: depth {deepest}");
                assert!(text.contains("needle"), "{name} × {levels}: text lost");
            }
        }
    }

    #[test]
    fn the_part_below_the_cap_is_its_source() {
        let source = format!("{} deep", ">".repeat(MAX_DEPTH + 3));
        let pieces: Vec<_> = bounded(&source).collect();
        let too_deep: Vec<_> = pieces
            .iter()
            .filter_map(|p| if let Piece::TooDeep(s) = p { Some(*s) } else { None })
            .collect();
        assert_eq!(too_deep, [">>> deep"]);
    }

    #[test]
    fn nesting_up_to_the_cap_is_untouched() {
        // MAX_DEPTH - 1 quotes around a paragraph: exactly MAX_DEPTH elements deep.
        let source = format!("{} x\n", ">".repeat(MAX_DEPTH - 1));
        let raw: Vec<_> = Parser::new_ext(&source, options()).map(Piece::Event).collect();
        assert_eq!(bounded(&source).collect::<Vec<_>>(), raw);
    }

    const ORDINARY: &[&str] = &[
        "# Title\n\nSome *text* that\nwraps.\n\n- one\n- two\n\n```rust\nfn main() {}\n```\n\n\
         | a | b |\n|---|---|\n| 1 | 2 |\n\n> quote\n\nLast paragraph — ü.",
        "1. First\n   - nested **bold [link](https://example.com)**\n     - deeper *em ~~del~~*\n\
         \x20      - deeper still\n         > quoted `code`\n\n2. Second\n\n- [x] done\n- [ ] todo\n",
        "> outer\n> > inner with ![alt *text*](https://example.com/i.png \"t\")\n> > > third\n\n---\n\n\
         <b>raw</b> and <i>inline</i>\n\n    indented code\n",
        "A [[bracketed]] word, a ]stray[ one, and [refs][r].\n\n[r]: https://example.com\n",
    ];

    #[test]
    fn ordinary_documents_are_untouched() {
        for source in ORDINARY {
            let raw: Vec<_> = Parser::new_ext(source, options()).map(Piece::Event).collect();
            assert_eq!(bounded(source).collect::<Vec<_>>(), raw, "{source}");
        }
    }
}
