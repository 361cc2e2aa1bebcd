//! Okapi BM25 over tool documents (name, title, description, parameter names), written here
//! rather than taken from a crate: the crates that do it bring stemmers and stop-word lists
//! for dozens of languages into every wasm module, and tool search needs a tokenizer that
//! splits `snake_case` and `camelCase` names, which they do not do.
//!
//! Scores are a pure function of the index and the query; ties go to the smaller index, so the
//! same input always gives the same order.

use std::collections::HashMap;

/// Term saturation and length normalisation, the usual values.
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Words that say nothing about which tool is meant.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "for", "from", "get", "has",
    "have", "i", "if", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "our",
    "please", "so", "that", "the", "their", "then", "this", "to", "us", "use", "using", "want",
    "was", "we", "what", "when", "which", "will", "with", "would", "you", "your",
];

/// Abbreviations people type, expanded to the words tools use.
const EXPANSIONS: &[(&str, &[&str])] = &[
    ("pr", &["pull", "request"]),
    ("prs", &["pull", "request"]),
    ("mr", &["merge", "request"]),
    ("mrs", &["merge", "request"]),
    ("repo", &["repository"]),
    ("repos", &["repository"]),
    ("dir", &["directory"]),
    ("db", &["database"]),
    ("msg", &["message"]),
    ("doc", &["document"]),
    ("docs", &["document"]),
    ("ci", &["pipeline"]),
    ("url", &["url", "link"]),
];

/// Words of `text`: split at every non-alphanumeric character and at `camelCase` humps,
/// lowercased, stop words dropped, plural and verb endings cut ([`stem`]), abbreviations
/// expanded. Runs of CJK characters yield their character pairs, so a Japanese description can
/// still match a Japanese query.
pub fn tokenize(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    for (raw, whole) in split_words(text) {
        if let Some(whole) = whole {
            // `GitHub` is also `github`, as tool names write it.
            words.push(stem(&whole.to_lowercase()));
        }
        if raw.chars().any(is_cjk) {
            let chars: Vec<char> = raw.chars().collect();
            if chars.len() == 1 {
                words.push(raw);
            }
            for pair in chars.windows(2) {
                words.push(pair.iter().collect());
            }
            continue;
        }
        let lower = raw.to_lowercase();
        if STOP_WORDS.contains(&lower.as_str()) {
            continue;
        }
        match EXPANSIONS.iter().find(|(short, _)| *short == lower) {
            Some((_, long)) => words.extend(long.iter().map(|w| stem(w))),
            None => words.push(stem(&lower)),
        }
    }
    words
}

/// Words split at humps and script changes; the first part of a word split at humps carries
/// the whole word too.
fn split_words(text: &str) -> Vec<(String, Option<String>)> {
    let mut words = Vec::new();
    for chunk in text.split(|c: char| !c.is_alphanumeric()).filter(|c| !c.is_empty()) {
        let mut parts: Vec<String> = Vec::new();
        let mut current = String::new();
        let mut prev: Option<char> = None;
        let mut humped = false;
        for c in chunk.chars() {
            let hump = prev.is_some_and(|p| p.is_lowercase() && c.is_uppercase());
            let script_change = prev.is_some_and(|p| is_cjk(p) != is_cjk(c));
            if (hump || script_change) && !current.is_empty() {
                humped |= hump;
                parts.push(std::mem::take(&mut current));
            }
            current.push(c);
            prev = Some(c);
        }
        parts.push(current);
        let whole = humped.then(|| chunk.chars().filter(|c| !is_cjk(*c)).collect::<String>());
        for (i, part) in parts.into_iter().enumerate() {
            words.push((part, if i == 0 { whole.clone() } else { None }));
        }
    }
    words
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF)
}

/// A light English stemmer, enough for tool vocabulary: `issues`/`issue`, `creating`/`create`,
/// `deleted`/`delete`, `entries`/`entry` end the same.
pub fn stem(word: &str) -> String {
    if word.len() <= 3 || !word.is_ascii() {
        return word.to_owned();
    }
    let mut w = word.to_owned();
    if let Some(base) = w.strip_suffix("ies") {
        w = format!("{base}y");
    } else if let Some(base) = w.strip_suffix("sses") {
        w = format!("{base}ss");
    } else if w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is") {
        w.pop();
    }
    for suffix in ["ing", "ed"] {
        if let Some(base) = w.strip_suffix(suffix) {
            if base.len() >= 3 {
                w = base.to_owned();
                break;
            }
        }
    }
    if w.len() > 3 && w.ends_with('e') {
        w.pop();
    }
    w
}

/// A document's words, each with how many times it counts (fields weigh differently).
#[derive(Debug, Clone, Default)]
pub struct Document {
    terms: HashMap<String, f64>,
    length: f64,
}

impl Document {
    /// Adds the words of `text`, each counted `weight` times.
    pub fn add(&mut self, text: &str, weight: f64) {
        for word in tokenize(text) {
            *self.terms.entry(word).or_default() += weight;
            self.length += weight;
        }
    }
}

/// An index of documents, searched with weighted query words.
#[derive(Debug, Clone, Default)]
pub struct Index {
    documents: Vec<Document>,
    /// How many documents hold each word.
    frequency: HashMap<String, usize>,
    average_length: f64,
}

impl Index {
    pub fn new(documents: Vec<Document>) -> Self {
        let mut frequency: HashMap<String, usize> = HashMap::new();
        for doc in &documents {
            for term in doc.terms.keys() {
                *frequency.entry(term.clone()).or_default() += 1;
            }
        }
        let total: f64 = documents.iter().map(|d| d.length).sum();
        let average_length =
            if documents.is_empty() { 0.0 } else { total / documents.len() as f64 };
        Self { documents, frequency, average_length }
    }

    pub fn len(&self) -> usize {
        self.documents.len()
    }

    pub fn is_empty(&self) -> bool {
        self.documents.is_empty()
    }

    /// The BM25 score of every document for the query (`word → weight`).
    pub fn scores(&self, query: &HashMap<String, f64>) -> Vec<f64> {
        let n = self.documents.len() as f64;
        // Iterate the query in a fixed order: float sums must not depend on hash order.
        let mut terms: Vec<(&String, &f64)> = query.iter().collect();
        terms.sort_unstable_by(|a, b| a.0.cmp(b.0));
        let idf: Vec<f64> = terms
            .iter()
            .map(|(term, _)| {
                let df = self.frequency.get(*term).copied().unwrap_or(0) as f64;
                ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
            })
            .collect();
        self.documents
            .iter()
            .map(|doc| {
                let norm = if self.average_length > 0.0 {
                    1.0 - B + B * doc.length / self.average_length
                } else {
                    1.0
                };
                terms
                    .iter()
                    .zip(&idf)
                    .map(|((term, weight), idf)| {
                        let tf = doc.terms.get(*term).copied().unwrap_or(0.0);
                        *weight * idf * tf * (K1 + 1.0) / (tf + K1 * norm)
                    })
                    .sum()
            })
            .collect()
    }

    /// Indexes of documents with a positive score, best first (ties: smaller index first).
    pub fn ranked(&self, query: &HashMap<String, f64>) -> Vec<usize> {
        let scores = self.scores(query);
        let mut order: Vec<usize> = (0..scores.len()).filter(|&i| scores[i] > 0.0).collect();
        // A total order (ties by position), so the unstable sort is as deterministic as a stable one.
        order.sort_unstable_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
        order
    }
}

/// Query words of `text`, each weighing `weight`, added to `query`.
pub fn add_to_query(query: &mut HashMap<String, f64>, text: &str, weight: f64) {
    for word in tokenize(text) {
        *query.entry(word).or_default() += weight;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_at_underscores_and_humps() {
        assert_eq!(tokenize("create_pull_request"), ["creat", "pull", "request"]);
        assert_eq!(tokenize("listMergeRequests"), ["listmergerequest", "list", "merg", "request"]);
        assert_eq!(tokenize("API-patch-block-children"), ["api", "patch", "block", "children"]);
    }

    #[test]
    fn stop_words_drop_and_abbreviations_expand() {
        assert_eq!(tokenize("Open a PR for my repo"), ["open", "pull", "request", "repository"]);
    }

    #[test]
    fn inflections_meet() {
        for (a, b) in [
            ("issues", "issue"),
            ("creating", "create"),
            ("deleted", "delete"),
            ("entries", "entry"),
            ("files", "file"),
            ("listing", "list"),
        ] {
            assert_eq!(stem(a), stem(b), "{a} / {b}");
        }
        assert_eq!(stem("status"), "status");
        assert_eq!(stem("class"), "class");
    }

    #[test]
    fn cjk_text_yields_character_pairs() {
        assert_eq!(tokenize("課題を作成"), ["課題", "題を", "を作", "作成"]);
        assert_eq!(tokenize("GitHubの課題"), ["github", "git", "hub", "の課", "課題"]);
    }

    fn index(texts: &[&str]) -> Index {
        Index::new(
            texts
                .iter()
                .map(|t| {
                    let mut d = Document::default();
                    d.add(t, 1.0);
                    d
                })
                .collect(),
        )
    }

    fn query(text: &str) -> HashMap<String, f64> {
        let mut q = HashMap::new();
        add_to_query(&mut q, text, 1.0);
        q
    }

    #[test]
    fn rare_words_outweigh_common_ones() {
        let idx = index(&[
            "list files in a directory",
            "read a file",
            "create an issue in a repository",
            "list issues in a repository",
        ]);
        let ranked = idx.ranked(&query("list the issues"));
        assert_eq!(ranked[0], 3, "{ranked:?}");
        assert_eq!(ranked.len(), 3, "{ranked:?}");
        assert_eq!(idx.ranked(&query("read file contents"))[0], 1);
        assert!(idx.ranked(&query("weather in Tokyo")).is_empty());
    }

    #[test]
    fn longer_documents_are_normalised() {
        let idx = index(&["search", "search and many other unrelated words in a long text"]);
        let scores = idx.scores(&query("search"));
        assert!(scores[0] > scores[1], "{scores:?}");
    }

    #[test]
    fn ties_keep_index_order() {
        let idx = index(&["send message", "send message"]);
        assert_eq!(idx.ranked(&query("send a message")), [0, 1]);
    }
}
