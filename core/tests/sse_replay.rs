//! Recorded streams replayed through the SSE parser and the MCP reply decoder, split at every
//! byte offset (and byte by byte): the result must never depend on where chunks end.

use gemipanel_core::jsonrpc::Message;
use gemipanel_core::mcp::reply::ReplyDecoder;
use gemipanel_core::sse::{Event, Parser};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn data_dir(kind: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(kind)
}

fn fixtures(kind: &str, ext: &str) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(data_dir(kind))
        .expect("fixture directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    found.sort();
    assert!(!found.is_empty(), "no .{ext} fixtures in {kind}");
    found
}

/// Every way of cutting `input` into two chunks, plus one byte at a time.
fn splits(input: &[u8]) -> Vec<Vec<&[u8]>> {
    let mut all: Vec<Vec<&[u8]>> =
        (0..=input.len()).map(|i| vec![&input[..i], &input[i..]]).collect();
    all.push(input.chunks(1).collect());
    all
}

fn run_parser(chunks: &[&[u8]]) -> (Vec<Event>, Option<String>, Option<u64>) {
    let mut parser = Parser::default();
    let mut events = Vec::new();
    for chunk in chunks {
        parser.feed(chunk, &mut events).expect("within limits");
    }
    (events, parser.last_event_id().map(str::to_owned), parser.retry())
}

fn expected_event(v: &Value) -> Event {
    Event {
        event: v["event"].as_str().unwrap_or("message").to_owned(),
        data: v["data"].as_str().unwrap_or_default().to_owned(),
        id: v["id"].as_str().map(str::to_owned),
        retry: v["retry"].as_u64(),
    }
}

#[test]
fn sse_fixtures_parse_the_same_at_every_split() {
    for path in fixtures("sse", "sse") {
        let input = std::fs::read(&path).expect("fixture");
        let expected: Value = serde_json::from_slice(
            &std::fs::read(path.with_extension("json")).expect("expectation"),
        )
        .expect("expectation is JSON");
        let events: Vec<Event> =
            expected["events"].as_array().expect("events").iter().map(expected_event).collect();
        let last_id = expected["last_event_id"].as_str().map(str::to_owned);
        let retry = expected["retry"].as_u64();
        for chunks in splits(&input) {
            let got = run_parser(&chunks);
            assert_eq!(
                got,
                (events.clone(), last_id.clone(), retry),
                "{} split as {:?}",
                path.display(),
                chunks.iter().map(|c| c.len()).collect::<Vec<_>>()
            );
        }
    }
}

fn kind(message: &Message) -> &'static str {
    match message {
        Message::Request(_) => "request",
        Message::Notification(_) => "notification",
        Message::Response(_) => "response",
    }
}

#[test]
fn mcp_replies_decode_the_same_at_every_split() {
    for (ext, content_type) in [("sse", "text/event-stream"), ("json", "application/json")] {
        for path in fixtures("mcp", ext) {
            let input = std::fs::read(&path).expect("fixture");
            let expected =
                std::fs::read_to_string(path.with_extension("expect")).expect("expectation");
            let expected: Vec<&str> = expected.split_whitespace().collect();
            for chunks in splits(&input) {
                let mut decoder =
                    ReplyDecoder::for_content_type(Some(content_type), 1 << 20).expect("MCP type");
                let mut kinds = Vec::new();
                for chunk in &chunks {
                    kinds.extend(decoder.feed(chunk.to_vec()).expect("decodes").iter().map(kind));
                }
                kinds.extend(decoder.finish().expect("finishes").iter().map(kind));
                assert_eq!(kinds, expected, "{}", path.display());
            }
        }
    }
}

#[test]
fn tool_meta_from_a_recorded_reply() {
    let body = std::fs::read(data_dir("mcp").join("json-reply.json")).expect("fixture");
    let Ok(Message::Response(response)) = Message::parse(&body) else { panic!("a response") };
    let page: gemipanel_core::mcp::ListToolsResult =
        serde_json::from_value(response.outcome.expect("result")).expect("tools");
    assert_eq!(page.next_cursor.as_deref(), Some("2"));
    let (tools, invalid) = page.split();
    assert!(invalid.is_empty(), "{invalid:?}");
    assert_eq!(tools[0].ui_resource_uri(), Some("ui://echo/app.html"));
    use gemipanel_core::mcp::Visibility;
    assert!(tools[0].is_visible_to(Visibility::App) && !tools[0].is_visible_to(Visibility::Model));
}

/// Events, the retry delay and how many feeds reported an oversized event, for a parser with
/// event limit `limit` fed `pieces`.
fn limited(pieces: &[&[u8]], limit: usize) -> (Vec<Event>, Option<u64>, usize) {
    let mut parser = Parser::new(limit);
    let mut events = Vec::new();
    let errors = pieces.iter().filter(|p| parser.feed(p, &mut events).is_err()).count();
    (events, parser.retry(), errors)
}

/// Whether an event was over the limit depended on where its lines were cut: a line still
/// arriving counted with its field name, a whole line did not count at all (only its data).
/// Now every line counts whole, however it arrives.
#[test]
fn an_event_is_over_the_limit_or_not_however_it_arrives() {
    for (limit, events) in [(16, 1), (10, 0)] {
        let whole = limited(&[b"data: 12345678\n\n"], limit);
        assert_eq!(whole.0.len(), events, "limit {limit}: {whole:?}");
        assert_eq!(limited(&[b"data: 1234", b"5678\n\n"], limit), whole, "limit {limit}");
        assert_eq!(limited(&[b"data: 1", b"2345", b"678\n", b"\n"], limit).0, whole.0);
    }
}

/// A line over the limit was dropped when it arrived in pieces and read when it arrived whole.
#[test]
fn a_line_over_the_limit_is_dropped_however_it_arrives() {
    let input = b"retry: 1000\ndata: x\n\n";
    let bytewise: Vec<&[u8]> = input.chunks(1).collect();
    let whole = limited(&[input], 8);
    assert_eq!((whole.0.len(), whole.1, whole.2), (1, None, 1), "{whole:?}");
    assert_eq!(limited(&[&input[..3], &input[3..]], 8), whole);
    assert_eq!(limited(&bytewise, 8), whole);
}
