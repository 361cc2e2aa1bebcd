//! `find_in_page`: where a text occurs on a page, each match with the sentence around it.
//! Matching ignores case and treats any run of white space as one space.

/// Sentences returned at most.
pub const MAX_MATCHES: usize = 20;
/// Characters of context kept on each side of a match in a long sentence.
const CONTEXT_CHARS: usize = 150;

/// The sentences with a match, in page order, and how many matches there were in all.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Found {
    pub sentences: Vec<String>,
    pub matches: usize,
}

/// Finds `query` in `text`.
pub fn find(text: &str, query: &str, max: usize) -> Found {
    let (needle, _) = fold(query.trim());
    let mut found = Found::default();
    if needle.is_empty() {
        return found;
    }
    let (hay, origin) = fold(text);
    let mut last_sentence: Option<(usize, usize)> = None;
    let mut from = 0;
    while let Some(at) = hay[from..].find(&needle).map(|i| i + from) {
        from = at + needle.len().max(1);
        found.matches += 1;
        let start = origin[at];
        let end = origin.get(at + needle.len()).copied().unwrap_or(text.len());
        let sentence = sentence_around(text, start, end);
        if last_sentence == Some(sentence) || found.sentences.len() >= max {
            continue;
        }
        last_sentence = Some(sentence);
        found.sentences.push(excerpt(text, sentence, start, end));
    }
    found
}

/// `text` lowercased with white-space runs as one space, and for each byte of it the byte of
/// `text` it came from.
fn fold(text: &str) -> (String, Vec<usize>) {
    let mut out = String::with_capacity(text.len());
    let mut origin = Vec::with_capacity(text.len());
    let mut in_space = false;
    for (i, c) in text.char_indices() {
        if c.is_whitespace() {
            if !in_space {
                out.push(' ');
                origin.push(i);
            }
            in_space = true;
            continue;
        }
        in_space = false;
        for lower in c.to_lowercase() {
            let before = out.len();
            out.push(lower);
            origin.extend(std::iter::repeat_n(i, out.len() - before));
        }
    }
    (out, origin)
}

/// The byte range of the sentence holding `start..end`: from after the last sentence end or
/// line break before it to the next one after it.
fn sentence_around(text: &str, start: usize, end: usize) -> (usize, usize) {
    let ends = |c: char| matches!(c, '.' | '!' | '?' | '。' | '！' | '？' | '\n');
    let begin = text[..start]
        .rfind(ends)
        .map_or(0, |i| i + text[i..].chars().next().map_or(1, char::len_utf8));
    let stop = text[end..].find(ends).map_or(text.len(), |i| {
        let c = text[end + i..].chars().next().unwrap_or(' ');
        end + i + if c == '\n' { 0 } else { c.len_utf8() }
    });
    (begin, stop)
}

/// The sentence, trimmed, shortened to some context around the match when long.
fn excerpt(text: &str, (begin, stop): (usize, usize), start: usize, end: usize) -> String {
    let before = &text[begin..start];
    let after = &text[end..stop];
    let cut_before = before.chars().count() > CONTEXT_CHARS;
    let cut_after = after.chars().count() > CONTEXT_CHARS;
    let before: String = if cut_before {
        let skip = before.chars().count() - CONTEXT_CHARS;
        format!("…{}", before.chars().skip(skip).collect::<String>())
    } else {
        before.to_owned()
    };
    let after: String = if cut_after {
        format!("{}…", after.chars().take(CONTEXT_CHARS).collect::<String>())
    } else {
        after.to_owned()
    };
    let whole = format!("{before}{}{after}", &text[start..end]);
    whole.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_come_with_their_sentence() {
        let text =
            "Green tea is grown in Shizuoka. Black TEA is\nfermented! Coffee is not tea? No.";
        let found = find(text, "tea", MAX_MATCHES);
        assert_eq!(found.matches, 3);
        assert_eq!(
            found.sentences,
            ["Green tea is grown in Shizuoka.", "Black TEA is", "Coffee is not tea?"]
        );
    }

    #[test]
    fn white_space_in_the_query_matches_any_run_of_it() {
        let found = find("one\n  two three", "One Two", MAX_MATCHES);
        assert_eq!(found.matches, 1);
        assert_eq!(found.sentences, ["one two three"]);
        let found = find("alpha beta. alpha\tbeta", "alpha beta", MAX_MATCHES);
        assert_eq!(found.sentences, ["alpha beta.", "alpha beta"]);
    }

    #[test]
    fn non_latin_text_and_case_folding_that_changes_length() {
        let found = find("東京は大きい。京都は古い。", "京都", MAX_MATCHES);
        assert_eq!(found.sentences, ["京都は古い。"]);
        let found = find("İstanbul and istanbul", "i̇stanbul", MAX_MATCHES);
        assert_eq!(found.matches, 1, "{found:?}");
    }

    #[test]
    fn many_matches_are_counted_but_the_sentences_are_capped() {
        let text = "tea. ".repeat(50);
        let found = find(&text, "tea", 20);
        assert_eq!((found.matches, found.sentences.len()), (50, 20));
        assert_eq!(find("tea", "  ", 20), Found::default());
    }

    #[test]
    fn a_long_sentence_is_shortened_around_the_match() {
        let text = format!("{} needle {}", "a ".repeat(200), "b ".repeat(200));
        let found = find(&text, "needle", 20);
        let s = &found.sentences[0];
        assert!(s.starts_with('…') && s.ends_with('…') && s.contains("needle"), "{s}");
        assert!(s.chars().count() < 2 * CONTEXT_CHARS + 20);
    }
}
