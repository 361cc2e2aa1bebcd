//! Long text in pages: a page's text is read one page at a time, each cut where a paragraph,
//! else a line, a sentence or a word ends, so a page is a function of the text alone and the
//! model can ask for the next one.

use std::ops::Range;

/// Characters of one page of text (about 5,000 tokens).
pub const PAGE_CHARS: usize = 20_000;

/// The byte ranges of the pages of `text`, each at most `page_chars` characters (at least one
/// page, empty for empty text). A cut is looked for in the second half of a page.
pub fn pages(text: &str, page_chars: usize) -> Vec<Range<usize>> {
    let page_chars = page_chars.max(1);
    let mut ranges = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let rest = &text[start..];
        let Some((limit, _)) = rest.char_indices().nth(page_chars) else {
            ranges.push(start..text.len());
            break;
        };
        let window = &rest[..limit];
        let half = window.char_indices().nth(page_chars / 2).map_or(0, |(i, _)| i);
        let cut = ["\n\n", "\n", ". ", "。", "! ", "? ", " "]
            .iter()
            .find_map(|sep| window.rfind(sep).filter(|&at| at >= half).map(|at| at + sep.len()))
            .unwrap_or(limit);
        ranges.push(start..start + cut);
        start += cut;
    }
    if ranges.is_empty() {
        ranges.push(0..0);
    }
    ranges
}

/// One page of a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page<'a> {
    pub text: &'a str,
    /// 1-based.
    pub number: usize,
    pub count: usize,
}

/// Page `number` (1-based) of `text`; `Err(count)` when there is no such page.
pub fn page(text: &str, number: usize, page_chars: usize) -> Result<Page<'_>, usize> {
    let ranges = pages(text, page_chars);
    let count = ranges.len();
    let range = number.checked_sub(1).and_then(|i| ranges.get(i)).ok_or(count)?;
    Ok(Page { text: &text[range.clone()], number, count })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_cover_the_text_and_cut_at_paragraphs() {
        let text = format!("{}\n\n{}\n\n{}", "a".repeat(60), "b".repeat(60), "c".repeat(30));
        let ranges = pages(&text, 100);
        let joined: String = ranges.iter().map(|r| &text[r.clone()]).collect();
        assert_eq!(joined, text);
        assert_eq!(&text[ranges[0].clone()], &format!("{}\n\n", "a".repeat(60)));
        assert_eq!(ranges.len(), 2);
    }

    #[test]
    fn a_text_without_breaks_is_cut_at_the_limit_on_a_character_boundary() {
        let text = "日本語".repeat(50);
        let ranges = pages(&text, 100);
        assert_eq!(text[ranges[0].clone()].chars().count(), 100);
        assert_eq!(ranges.iter().map(|r| text[r.clone()].chars().count()).sum::<usize>(), 150);
    }

    #[test]
    fn a_sentence_end_is_preferred_to_a_word_break() {
        let text = format!("{}. {} {}", "x".repeat(70), "y".repeat(10), "z".repeat(30));
        let first = page(&text, 1, 100).unwrap();
        assert!(first.text.ends_with(". "), "{:?}", first.text);
        assert_eq!(first.count, 2);
    }

    #[test]
    fn pages_are_numbered_from_one_and_asking_past_the_end_says_how_many() {
        assert_eq!(page("", 1, 10).unwrap(), Page { text: "", number: 1, count: 1 });
        assert_eq!(page("short", 2, 10), Err(1));
        assert_eq!(page("short", 0, 10), Err(1));
        let long = "word ".repeat(100);
        let last = page(&long, 3, 200).unwrap();
        assert_eq!(last.count, 3);
    }
}
