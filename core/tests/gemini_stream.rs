//! Recorded `streamGenerateContent?alt=sse` replies, one expectation each
//! (`data/gemini/streams/expected.json`), plus malformed input.

use std::path::PathBuf;

use gemipanel_core::gemini::{StreamAccumulator, StreamEvent};
use serde_json::Value;

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/gemini/streams")
}

/// The `data` payloads of an SSE text: events end at a blank line, `data:` lines join with \n.
/// (Deliberately tiny: `core::sse` is the real parser.)
fn sse_payloads(text: &str) -> Vec<String> {
    let text = text.replace("\r\n", "\n");
    text.split("\n\n")
        .map(|event| {
            event
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(|d| d.strip_prefix(' ').unwrap_or(d))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .filter(|d| !d.is_empty())
        .collect()
}

fn replay(file: &str) -> (Vec<StreamEvent>, gemipanel_core::gemini::StreamOutcome) {
    let text = std::fs::read_to_string(data_dir().join(file)).expect("fixture");
    let mut acc = StreamAccumulator::new();
    let mut events = Vec::new();
    for payload in sse_payloads(&text) {
        events.extend(acc.push(&payload));
    }
    (events, acc.finish())
}

#[test]
fn recorded_streams_match_their_expectations() {
    let expected: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(data_dir().join("expected.json")).unwrap())
            .unwrap();
    for case in expected {
        let file = case["file"].as_str().unwrap();
        let (events, outcome) = replay(file);

        let text: String = events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::TextDelta(t) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        let thoughts: String = events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::ThoughtDelta(t) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(text, case["text"].as_str().unwrap(), "{file}: text deltas");
        assert_eq!(outcome.content.text(), text, "{file}: accumulated text");
        assert_eq!(thoughts, case["thoughts"].as_str().unwrap(), "{file}: thoughts");

        let calls: Vec<String> =
            outcome.function_calls().into_iter().filter_map(|c| c.id).collect();
        let want_calls: Vec<String> = serde_json::from_value(case["calls"].clone()).unwrap();
        assert_eq!(calls, want_calls, "{file}: calls");

        let finish = outcome.finish_reason.as_ref().map(|r| r.code());
        assert_eq!(finish, case["finish"].as_str(), "{file}: finish reason");
        if let Some(notice) = case["notice"].as_str() {
            let reason = outcome.finish_reason.as_ref().expect("a finish reason");
            assert_eq!(reason.notice().map(|t| t.to_string()).as_deref(), Some(notice), "{file}");
        }
        assert_eq!(outcome.incomplete, case["incomplete"].as_bool().unwrap(), "{file}: incomplete");
        assert_eq!(outcome.content.parts.len() as u64, case["parts"].as_u64().unwrap(), "{file}");
        assert_eq!(outcome.content.role.as_deref(), Some("model"));
        assert_eq!(
            outcome.usage.map(|u| u.total_token_count),
            case["total_tokens"].as_u64(),
            "{file}: usage"
        );

        match case["error"].as_str() {
            None => assert!(outcome.error.is_none(), "{file}: unexpected {:?}", outcome.error),
            Some(kind) => {
                let error = outcome.error.as_ref().expect("an error");
                let ok = match kind {
                    "server" => error.is_server(),
                    "blocked" => error.is_blocked(),
                    other => panic!("unknown kind {other}"),
                };
                assert!(ok, "{file}: {error}");
                if let Some(text) = case["error_text"].as_str() {
                    assert_eq!(error.to_string(), text, "{file}: error text");
                }
                assert!(events.iter().any(|e| matches!(e, StreamEvent::Error(_))));
            }
        }
    }
}

#[test]
fn thought_signature_stays_on_its_own_part_byte_for_byte() {
    let (_, outcome) = replay("thoughts_and_signature.sse");
    let signed: Vec<_> =
        outcome.content.parts.iter().filter(|p| p.thought_signature.is_some()).collect();
    assert_eq!(signed.len(), 1);
    assert_eq!(signed[0].thought_signature.as_deref(), Some("CiQB0e2Kb9xQ+/tF3w==Zm9vYmFy/+0="));
    assert_eq!(signed[0].text.as_deref(), Some(""));
    // And the whole content serialises with the signature intact.
    let json = serde_json::to_string(&outcome.content).unwrap();
    assert!(json.contains(r#""thoughtSignature":"CiQB0e2Kb9xQ+/tF3w==Zm9vYmFy/+0=""#), "{json}");
}

#[test]
fn unknown_parts_are_kept_verbatim() {
    let (_, outcome) = replay("unknown_parts.sse");
    let json = serde_json::to_value(&outcome.content).unwrap();
    assert_eq!(json["parts"][0]["executableCode"]["code"], "print(1)");
    assert_eq!(json["parts"][1]["codeExecutionResult"]["output"], "1\n");
}

#[test]
fn malformed_payloads_become_errors_and_never_panic() {
    let cases = [
        "not json",
        "{\"candidates\": 5}",
        "{\"candidates\": [{\"content\": {\"parts\": [{\"text\": 7}]}}]}",
        "[1,2,3]",
        "{\"error\": \"string instead of object\"}",
        "{\"candidates\": [{\"content\": {\"parts\": [{\"functionCall\": {\"args\": {}}}]}}]}",
        "\u{0}\u{1}",
        "{\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"ok\"}]}}]",
    ];
    for payload in cases {
        let mut acc = StreamAccumulator::new();
        acc.push(r#"{"candidates":[{"content":{"parts":[{"text":"before"}],"role":"model"}}]}"#);
        let events = acc.push(payload);
        assert!(
            matches!(events.as_slice(), [StreamEvent::Error(e)] if e.is_malformed()),
            "{payload:?} gave {events:?}"
        );
        let outcome = acc.finish();
        assert!(outcome.incomplete, "{payload:?}");
        assert_eq!(outcome.content.text(), "before", "partial text kept for {payload:?}");
    }
}

#[test]
fn empty_and_keepalive_payloads_are_ignored() {
    let mut acc = StreamAccumulator::new();
    assert!(acc.push("").is_empty());
    assert!(acc.push("  \n").is_empty());
    assert!(!acc.has_data());
    assert!(acc.push("{}").is_empty());
    assert!(acc.has_data());
}
