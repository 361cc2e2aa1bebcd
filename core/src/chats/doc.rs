//! A growing markdown reply, split into top-level blocks so that only the last one is parsed and
//! rendered again when a chunk arrives.
//!
//! In CommonMark a top-level block is closed for good once the next one has started (only the
//! last block can absorb more lines), so every block but the last is final. The cost of a chunk
//! is bounded by the size of the last block, not by the length of the reply.

use std::rc::Rc;

use pulldown_cmark::{Event, Options, Parser};

/// The markdown dialect of replies: GitHub's tables, strikethrough and task lists.
pub fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS
}

/// Finished blocks are sealed into shared groups of this many, so that neither copying the
/// document nor rendering it walks every block of a long reply.
pub const GROUP: usize = 32;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct MdDoc {
    /// Full groups of finished blocks.
    sealed: Vec<Rc<[Rc<str>]>>,
    /// Finished blocks not yet in a group (fewer than [`GROUP`]), each with its trailing blank
    /// lines; they never change again.
    open: Vec<Rc<str>>,
    /// The source of the last block, still growing.
    tail: String,
}

impl MdDoc {
    pub fn from_text(text: &str) -> Self {
        let mut doc = Self::default();
        doc.push(text);
        doc
    }

    /// Appends a chunk of the reply.
    pub fn push(&mut self, delta: &str) {
        if delta.is_empty() {
            return;
        }
        self.tail.push_str(delta);
        // Only complete lines decide where blocks start: a partial line may still become
        // something else (a lone `|` under a table is a paragraph until `| 1 |` arrives).
        let Some(newline) = self.tail.rfind('\n') else { return };
        let starts = top_level_starts(&self.tail[..=newline]);
        // Everything before the last block's start is final. (A first block that starts after
        // leading blank lines keeps them.)
        let Some(&last) = starts.last() else { return };
        if starts.len() < 2 || last == 0 {
            return;
        }
        let mut from = 0;
        for &next in &starts[1..] {
            self.open.push(Rc::from(&self.tail[from..next]));
            from = next;
            if self.open.len() == GROUP {
                self.sealed.push(Rc::from(std::mem::take(&mut self.open)));
            }
        }
        self.tail.drain(..last);
    }

    pub fn sealed(&self) -> &[Rc<[Rc<str>]>] {
        &self.sealed
    }

    pub fn open(&self) -> &[Rc<str>] {
        &self.open
    }

    /// Every finished block, in order.
    pub fn blocks(&self) -> impl Iterator<Item = &Rc<str>> {
        self.sealed.iter().flat_map(|g| g.iter()).chain(&self.open)
    }

    pub fn tail(&self) -> &str {
        &self.tail
    }

    pub fn is_empty(&self) -> bool {
        self.sealed.is_empty() && self.open.is_empty() && self.tail.is_empty()
    }

    /// The whole source again (for saving and copying).
    pub fn text(&self) -> String {
        let mut text =
            String::with_capacity(self.blocks().map(|b| b.len()).sum::<usize>() + self.tail.len());
        for block in self.blocks() {
            text.push_str(block);
        }
        text.push_str(&self.tail);
        text
    }

    /// The words a person reads, without the Markdown marks (for search and its snippets):
    /// `**first**` reads `first`, a link its text, a code block its code; blocks and line
    /// breaks become line breaks.
    pub fn plain_text(&self) -> String {
        use pulldown_cmark::TagEnd;
        let source = self.text();
        let mut plain = String::with_capacity(source.len());
        for event in Parser::new_ext(&source, options()) {
            match event {
                Event::Text(words) | Event::Code(words) => plain.push_str(&words),
                Event::SoftBreak | Event::HardBreak => plain.push('\n'),
                Event::End(
                    TagEnd::Paragraph
                    | TagEnd::Heading(_)
                    | TagEnd::Item
                    | TagEnd::CodeBlock
                    | TagEnd::TableCell
                    | TagEnd::BlockQuote(_),
                ) => plain.push('\n'),
                _ => {}
            }
        }
        plain.truncate(plain.trim_end().len());
        plain
    }
}

/// Byte offsets where top-level blocks start.
fn top_level_starts(text: &str) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut depth = 0usize;
    for (event, range) in Parser::new_ext(text, options()).into_offset_iter() {
        match event {
            Event::Start(_) => {
                if depth == 0 {
                    starts.push(range.start);
                }
                depth += 1;
            }
            Event::End(_) => depth = depth.saturating_sub(1),
            _ if depth == 0 => starts.push(range.start),
            _ => {}
        }
    }
    starts
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `text` in pieces of `size` bytes (on char boundaries).
    fn streamed(text: &str, size: usize) -> MdDoc {
        let mut doc = MdDoc::default();
        let mut rest = text;
        while !rest.is_empty() {
            let mut cut = size.min(rest.len());
            while !rest.is_char_boundary(cut) {
                cut += 1;
            }
            doc.push(&rest[..cut]);
            rest = &rest[cut..];
        }
        doc
    }

    const SAMPLE: &str = "# Title\n\nSome *text* that\nwraps.\n\n- one\n- two\n\n```rust\nfn main() {}\n\n// blank line inside\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n> quote\n\nLast paragraph — ü.";

    #[test]
    fn blocks_join_back_into_the_text_whatever_the_chunking() {
        for size in [1, 2, 3, 7, 20, 1000] {
            let doc = streamed(SAMPLE, size);
            assert_eq!(doc.text(), SAMPLE, "chunk size {size}");
        }
    }

    #[test]
    fn finished_blocks_are_the_same_as_when_parsed_at_once() {
        let whole = MdDoc::from_text(SAMPLE);
        // The quote is not final yet: the last line is incomplete, so it may not start a block.
        let blocks: Vec<_> = whole.blocks().collect();
        assert_eq!(blocks.len(), 5, "{blocks:?}");
        assert_eq!(&**blocks[3], "```rust\nfn main() {}\n\n// blank line inside\n```\n\n");
        assert_eq!(&**blocks[4], "| a | b |\n|---|---|\n| 1 | 2 |\n\n");
        assert_eq!(whole.tail(), "> quote\n\nLast paragraph — ü.");
        for size in [1, 5, 20] {
            assert_eq!(streamed(SAMPLE, size), whole, "chunk size {size}");
        }
    }

    #[test]
    fn an_open_code_fence_stays_in_the_tail() {
        let doc = MdDoc::from_text("Intro\n\n```\nline\n\nmore");
        assert_eq!(doc.blocks().count(), 1);
        assert_eq!(doc.tail(), "```\nline\n\nmore");
    }

    #[test]
    fn the_tail_stays_small_in_a_long_reply() {
        let paragraph = "Lorem ipsum dolor sit amet, consectetur **adipiscing** elit.\n\n";
        let text = paragraph.repeat(500);
        let doc = streamed(&text, 20);
        assert_eq!(doc.blocks().count(), 499);
        assert!(doc.tail().len() <= paragraph.len(), "{}", doc.tail().len());
        // Copying the document copies a few pointers, not 499.
        assert_eq!(doc.sealed().len(), 499 / GROUP);
        assert_eq!(doc.open().len(), 499 % GROUP);
    }

    #[test]
    fn a_setext_underline_does_not_split_its_heading() {
        let doc = streamed("Heading\n-------\n\ntext\n", 1);
        assert_eq!(doc.blocks().collect::<Vec<_>>(), [&Rc::from("Heading\n-------\n\n")]);
        assert_eq!(doc.tail(), "text\n");
    }
}
