//! Grounding with Google Search: the sources a reply was built from, and which of its sentences
//! each supports (https://ai.google.dev/gemini-api/docs/google-search, "Understanding the
//! grounding response").
//!
//! `groundingMetadata` comes on the candidate, usually complete in the last chunk of a stream:
//! `groundingChunks[]` (`web.uri`, `web.title`), `groundingSupports[]` (a `segment` of the reply
//! by `startIndex`/`endIndex`, byte offsets in its UTF-8 text, and the chunks it rests on) and
//! `webSearchQueries[]`. A segment is found by its offsets when they hold its text, else by
//! its text (offsets count from the part named by `partIndex`, and streamed text parts are
//! merged); a link is offered only when `url_policy::link` allows it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::url_policy;

/// `candidates[].groundingMetadata`, as far as GemiPanel reads it (only read: the candidate
/// itself is never sent back). The search entry point's HTML is not read: raw HTML is never
/// put into the panel.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GroundingMetadata {
    #[serde(default)]
    pub web_search_queries: Vec<String>,
    #[serde(default)]
    pub grounding_chunks: Vec<GroundingChunk>,
    #[serde(default)]
    pub grounding_supports: Vec<GroundingSupport>,
}

impl GroundingMetadata {
    /// From the candidate's field, leniently: a shape this build does not expect costs the
    /// sources, never the reply.
    pub fn read(value: &Value) -> Option<Self> {
        serde_json::from_value(value.clone()).ok()
    }

    fn is_empty(&self) -> bool {
        self.web_search_queries.is_empty()
            && self.grounding_chunks.is_empty()
            && self.grounding_supports.is_empty()
    }
}

/// A source: `web` for Google Search (`retrievedContext` and others are not read).
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GroundingChunk {
    #[serde(default)]
    pub web: Option<WebSource>,
}

#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebSource {
    #[serde(default)]
    pub uri: String,
    /// Usually the site's domain.
    #[serde(default)]
    pub title: String,
}

#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GroundingSupport {
    #[serde(default)]
    pub segment: Segment,
    #[serde(default)]
    pub grounding_chunk_indices: Vec<u32>,
}

/// A stretch of the reply: `[startIndex, endIndex)` in bytes of its UTF-8 text (`startIndex`
/// left out when 0), and the text itself.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Segment {
    #[serde(default)]
    pub part_index: Option<u32>,
    #[serde(default)]
    pub start_index: Option<u64>,
    #[serde(default)]
    pub end_index: Option<u64>,
    #[serde(default)]
    pub text: Option<String>,
}

/// What a reply shows under it: its sources with the sentences each supports, and what the
/// model searched for. Saved with the reply.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Sources {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub queries: Vec<Query>,
    #[serde(default)]
    pub sources: Vec<Source>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Source {
    /// The chunk's title (a domain, as the API sends it), else the link's host.
    pub title: String,
    /// A link the person may open (`url_policy::link`); `None` when refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub href: Option<String>,
    /// The sentences of the reply it supports, in the reply's order, each once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub supports: Vec<String>,
}

/// A search the model ran, with a Google Search link for the person to run it too.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Query {
    pub text: String,
    pub href: String,
}

impl Sources {
    /// The sources of a reply whose visible text is `reply`; `None` when there is nothing to
    /// show.
    pub fn of(metadata: &GroundingMetadata, reply: &str) -> Option<Sources> {
        if metadata.is_empty() {
            return None;
        }
        let mut sources: Vec<Source> = metadata
            .grounding_chunks
            .iter()
            .map(|chunk| {
                let web = chunk.web.clone().unwrap_or_default();
                let link = url_policy::link(&web.uri).ok();
                let title = match web.title.trim() {
                    "" => link.as_ref().map(|l| l.host.clone()).unwrap_or_default(),
                    title => title.to_owned(),
                };
                Source { title, href: link.map(|l| l.href), supports: Vec::new() }
            })
            .collect();
        let mut supports: Vec<(usize, &GroundingSupport)> = metadata
            .grounding_supports
            .iter()
            .filter_map(|s| Some((segment_start(&s.segment, reply)?, s)))
            .collect();
        supports.sort_by_key(|(at, _)| *at);
        for (_, support) in supports {
            let Some(text) = segment_text(&support.segment, reply) else { continue };
            for &index in &support.grounding_chunk_indices {
                let Some(source) = sources.get_mut(index as usize) else { continue };
                if !source.supports.contains(&text) {
                    source.supports.push(text.clone());
                }
            }
        }
        sources.retain(|s| !s.title.is_empty() || s.href.is_some());
        let queries: Vec<Query> = metadata
            .web_search_queries
            .iter()
            .map(|q| q.trim())
            .filter(|q| !q.is_empty())
            .map(|q| Query { text: q.to_owned(), href: search_link(q) })
            .collect();
        (!sources.is_empty() || !queries.is_empty()).then_some(Sources { queries, sources })
    }
}

/// The stretch of `reply` a segment covers, trimmed; `None` when neither its offsets nor its
/// text find it and it has no text of its own.
pub fn segment_text(segment: &Segment, reply: &str) -> Option<String> {
    let claimed = segment.text.as_deref().map(str::trim).filter(|t| !t.is_empty());
    if let Some(slice) = by_offsets(segment, reply) {
        if claimed.is_none_or(|t| slice.trim() == t) {
            return Some(slice.trim().to_owned()).filter(|s| !s.is_empty());
        }
    }
    claimed.map(str::to_owned)
}

/// Where a segment starts in `reply` (bytes), for ordering: its offsets when they hold its
/// text, else where its text is found, else its claimed start.
fn segment_start(segment: &Segment, reply: &str) -> Option<usize> {
    let claimed = segment.text.as_deref().map(str::trim).filter(|t| !t.is_empty());
    let start = usize::try_from(segment.start_index.unwrap_or(0)).ok();
    match (by_offsets(segment, reply), claimed) {
        (Some(slice), Some(text)) if slice.trim() != text => reply.find(text).or(start),
        (None, Some(text)) => reply.find(text).or(start),
        _ => start,
    }
}

/// `reply[start..end]` when both are in range and on character boundaries.
fn by_offsets<'a>(segment: &Segment, reply: &'a str) -> Option<&'a str> {
    let start = usize::try_from(segment.start_index.unwrap_or(0)).ok()?;
    let end = usize::try_from(segment.end_index?).ok()?;
    (start < end).then(|| reply.get(start..end)).flatten()
}

/// A Google Search for `query`.
pub fn search_link(query: &str) -> String {
    let q: String = form_urlencoded::byte_serialize(query.as_bytes()).collect();
    format!("https://www.google.com/search?q={q}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn metadata(value: Value) -> GroundingMetadata {
        GroundingMetadata::read(&value).expect("grounding metadata")
    }

    #[test]
    fn each_source_lists_the_sentences_it_supports_in_the_replys_order() {
        // The docs' sample shape: byte offsets, startIndex left out for 0.
        let reply = "Spain won Euro 2024. They beat England 2–1 in the final. Yamal was named \
                     young player.";
        let second = reply.find("They").unwrap();
        let third = reply.find("Yamal").unwrap();
        let meta = metadata(json!({
            "webSearchQueries": ["who won euro 2024", "  "],
            "groundingChunks": [
                {"web": {"uri": "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AbC", "title": "uefa.com"}},
                {"web": {"uri": "https://en.wikipedia.org/wiki/UEFA_Euro_2024", "title": ""}},
                {"web": {"uri": "javascript:alert(1)", "title": "evil.example"}}
            ],
            "groundingSupports": [
                {"segment": {"startIndex": third, "endIndex": reply.len(), "text": "Yamal was named young player."},
                 "groundingChunkIndices": [1]},
                {"segment": {"endIndex": 20, "text": "Spain won Euro 2024."},
                 "groundingChunkIndices": [0, 1, 7], "confidenceScores": [0.9, 0.8, 0.1]},
                {"segment": {"startIndex": second, "endIndex": third - 1, "text": "They beat England 2–1 in the final."},
                 "groundingChunkIndices": [0, 2]}
            ]
        }));
        let sources = Sources::of(&meta, reply).unwrap();
        assert_eq!(sources.queries.len(), 1);
        assert_eq!(sources.queries[0].text, "who won euro 2024");
        assert_eq!(sources.queries[0].href, "https://www.google.com/search?q=who+won+euro+2024");
        let shown: Vec<(&str, Option<&str>, Vec<&str>)> = sources
            .sources
            .iter()
            .map(|s| {
                (
                    s.title.as_str(),
                    s.href.as_deref(),
                    s.supports.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        assert_eq!(
            shown,
            [
                (
                    "uefa.com",
                    Some("https://vertexaisearch.cloud.google.com/grounding-api-redirect/AbC"),
                    vec!["Spain won Euro 2024.", "They beat England 2–1 in the final."]
                ),
                (
                    "en.wikipedia.org",
                    Some("https://en.wikipedia.org/wiki/UEFA_Euro_2024"),
                    vec!["Spain won Euro 2024.", "Yamal was named young player."]
                ),
                // Never a link that is not https (or http to this computer).
                ("evil.example", None, vec!["They beat England 2–1 in the final."]),
            ]
        );
    }

    #[test]
    fn segments_are_found_by_their_text_when_the_offsets_do_not_hold_it() {
        let reply = "日本の首都は東京です。人口は約1400万人です。";
        let second = "人口は約1400万人です。";
        let bytes = reply.find(second).unwrap() as u64;
        // Offsets in bytes of UTF-8: right.
        let exact = Segment {
            start_index: Some(bytes),
            end_index: Some(reply.len() as u64),
            text: Some(second.into()),
            ..Segment::default()
        };
        assert_eq!(segment_text(&exact, reply).as_deref(), Some(second));
        // Counted in characters (or from another part): the text decides.
        let chars = Segment { start_index: Some(11), end_index: Some(24), ..exact.clone() };
        assert_eq!(segment_text(&chars, reply).as_deref(), Some(second));
        // Inside a character: not sliced, the text decides.
        let split = Segment { start_index: Some(1), end_index: Some(5), ..exact.clone() };
        assert_eq!(segment_text(&split, reply).as_deref(), Some(second));
        // Offsets only: the slice.
        let bare = Segment { text: None, ..exact.clone() };
        assert_eq!(segment_text(&bare, reply).as_deref(), Some(second));
        // Neither: nothing.
        let lost =
            Segment { start_index: Some(900), end_index: Some(901), text: None, part_index: None };
        assert_eq!(segment_text(&lost, reply), None);
        let reversed =
            Segment { start_index: Some(9), end_index: Some(3), text: None, part_index: None };
        assert_eq!(segment_text(&reversed, reply), None);
    }

    #[test]
    fn unexpected_shapes_cost_the_sources_not_the_reply() {
        assert_eq!(GroundingMetadata::read(&json!({"groundingChunks": 5})), None);
        assert_eq!(GroundingMetadata::read(&json!("x")), None);
        assert_eq!(Sources::of(&metadata(json!({})), "text"), None);
        let odd = metadata(json!({
            "groundingChunks": [{}, {"retrievedContext": {"uri": "gs://x"}}],
            "groundingSupports": [{"groundingChunkIndices": [0]}],
            "searchEntryPoint": {"renderedContent": "<style></style><div>chips</div>"}
        }));
        assert_eq!(Sources::of(&odd, "text"), None, "nothing to show");
    }
}
