//! The streaming decoders: `core::sse`, the MCP reply decoder and the Gemini stream. Input cut
//! anywhere gives what the uncut input gives, nothing panics, and the work grows with the input
//! no faster than linearly.

use std::time::Duration;

use gemipanel_core::gemini::{StreamAccumulator, StreamEvent, StreamOutcome};
use gemipanel_core::jsonrpc::Message;
use gemipanel_core::mcp::reply::{DecodeError, ReplyDecoder};
use gemipanel_core::sse::{self, Event, Parser};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::{select, Index};

use crate::json::{bytes, chunks, cuts, near, text};
use crate::support::check;

/// What a parser made of a whole stream.
#[derive(Debug, PartialEq)]
struct SseRun {
    events: Vec<Event>,
    last_event_id: Option<String>,
    retry: Option<u64>,
    /// Whether any event was over the limit.
    too_large: bool,
}

fn sse_run(pieces: &[&[u8]], limit: usize) -> SseRun {
    let mut parser = Parser::new(limit);
    let mut events = Vec::new();
    let mut too_large = false;
    for piece in pieces {
        too_large |= parser.feed(piece, &mut events).is_err();
    }
    SseRun {
        events,
        last_event_id: parser.last_event_id().map(str::to_owned),
        retry: parser.retry(),
        too_large,
    }
}

/// Input, where to cut it, and an event size limit from tiny to none in practice.
fn cut_input(max: usize) -> impl Strategy<Value = (Vec<u8>, Vec<Index>)> {
    (bytes(max), vec(any::<Index>(), 0..8))
}

fn limit() -> impl Strategy<Value = usize> {
    prop_oneof![1 => 0usize..64, 2 => 64usize..1024, 1 => Just(sse::DEFAULT_MAX_EVENT_BYTES)]
}

#[test]
fn sse_events_do_not_depend_on_where_the_input_is_cut() {
    check("sse_split", (cut_input(512), limit()), |((input, at), limit)| {
        let whole = sse_run(&[&input], limit);
        let cut = sse_run(&chunks(&input, &cuts(input.len(), &at)), limit);
        prop_assert_eq!(&cut, &whole);
        let bytewise: Vec<&[u8]> = input.chunks(1).collect();
        prop_assert_eq!(&sse_run(&bytewise, limit), &whole);
        Ok(())
    });
}

/// What the MCP client makes of one reply: every message, or the first error (the exchange
/// ends there).
fn reply_run(content_type: Option<&str>, pieces: &[&[u8]], limit: usize) -> ReplyRun {
    let mut decoder = match ReplyDecoder::for_content_type(content_type, limit) {
        Ok(decoder) => decoder,
        Err(e) => return ReplyRun::Failed(kind(&e)),
    };
    let mut messages = Vec::new();
    for piece in pieces {
        match decoder.feed(piece.to_vec()) {
            Ok(more) => messages.extend(more),
            Err(e) => return ReplyRun::Failed(kind(&e)),
        }
    }
    match decoder.finish() {
        Ok(more) => messages.extend(more),
        Err(e) => return ReplyRun::Failed(kind(&e)),
    }
    let (id, retry) = decoder.resume_point();
    ReplyRun::Read { messages, resume: (id.map(str::to_owned), retry) }
}

#[derive(Debug, PartialEq)]
enum ReplyRun {
    Read { messages: Vec<Message>, resume: (Option<String>, Option<u64>) },
    Failed(&'static str),
}

fn kind(e: &DecodeError) -> &'static str {
    match e {
        DecodeError::NotMcp { .. } => "not MCP",
        DecodeError::TooLarge { .. } => "too large",
        DecodeError::Malformed(_) => "malformed",
    }
}

fn content_type() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        3 => select(&[
            "text/event-stream",
            "application/json",
            "text/event-stream; charset=utf-8",
            " Application/JSON ;q=1",
            "TEXT/EVENT-STREAM",
            "text/html",
            "",
        ][..])
        .prop_map(|t| Some(t.to_owned())),
        1 => Just(None),
        1 => text().prop_map(Some),
    ]
}

/// A reply body as a server sends it: JSON-RPC messages (some damaged) as SSE events with
/// ids, retries and comments between them, or one message as JSON; or free bytes. With the
/// content type that goes with it, mostly.
fn mcp_reply() -> BoxedStrategy<(Option<String>, Vec<u8>)> {
    let message = || {
        prop_oneof![
            3 => crate::mcp::message().prop_map(|m| m.to_json()),
            1 => near(crate::mcp::message().prop_map(|m| serde_json::to_value(m).expect("JSON")))
                .prop_map(|v| v.to_string()),
        ]
    };
    let field = select(&["", "id: 1", "id: ", "retry: 500", ": ping", "event: other"][..]);
    let eol = select(&["\n", "\r\n", "\r"][..]);
    let event = (field, message(), eol).prop_map(|(field, data, eol)| {
        let field = if field.is_empty() { String::new() } else { format!("{field}{eol}") };
        format!("{field}data: {data}{eol}{eol}")
    });
    let sse = vec(event, 0..4).prop_map(|events| events.concat().into_bytes());
    let json = (message(), select(&["", " ", "\n"][..]))
        .prop_map(|(body, pad)| format!("{pad}{body}{pad}").into_bytes());
    prop_oneof![
        3 => (prop_oneof![3 => Just(Some("text/event-stream".to_owned())), 1 => content_type()], sse),
        2 => (prop_oneof![3 => Just(Some("application/json".to_owned())), 1 => content_type()], json),
        1 => (content_type(), bytes(512)),
    ]
    .boxed()
}

#[test]
fn mcp_replies_do_not_depend_on_where_the_body_is_cut() {
    let strategy =
        (mcp_reply(), vec(any::<Index>(), 0..8), prop_oneof![16usize..600, Just(1 << 20)]);
    check("mcp_reply_split", strategy, |((content_type, input), at, limit)| {
        let content_type = content_type.as_deref();
        let whole = reply_run(content_type, &[&input], limit);
        let cut = reply_run(content_type, &chunks(&input, &cuts(input.len(), &at)), limit);
        // An error ends the exchange whichever message caused it; which error comes first
        // may depend on the cuts (one chunk holding a bad message and an oversized one).
        match (&whole, &cut) {
            (ReplyRun::Read { .. }, _) => prop_assert_eq!(&cut, &whole),
            (ReplyRun::Failed(_), ReplyRun::Failed(_)) => {}
            (ReplyRun::Failed(_), ReplyRun::Read { .. }) => {
                prop_assert!(false, "the uncut body failed ({whole:?}), the cut one read {cut:?}")
            }
        }
        Ok(())
    });
}

/// The side panel's path: bytes into `core::sse`, each event's data into the accumulator.
fn gemini_run(pieces: &[&[u8]]) -> (Vec<StreamEvent>, StreamOutcome) {
    let mut parser = Parser::default();
    let mut acc = StreamAccumulator::new();
    let mut seen = Vec::new();
    for piece in pieces {
        let mut events = Vec::new();
        let _ = parser.feed(piece, &mut events);
        for event in events {
            seen.extend(acc.push(&event.data));
        }
    }
    (seen, acc.finish())
}

/// A Gemini stream: chunks of the right shape (some damaged) as SSE events, or free bytes.
fn gemini_stream() -> BoxedStrategy<Vec<u8>> {
    let event = (near(crate::gemini::response_value()), select(&["\n\n", "\r\n\r\n", "\r\r"][..]))
        .prop_map(|(chunk, end)| format!("data: {chunk}{end}").into_bytes());
    prop_oneof![
        3 => vec(event, 0..5).prop_map(|events| events.concat()),
        1 => bytes(512),
    ]
    .boxed()
}

#[test]
fn gemini_streams_do_not_depend_on_where_the_reply_is_cut() {
    check("gemini_stream_split", (gemini_stream(), vec(any::<Index>(), 0..8)), |(input, at)| {
        let whole = gemini_run(&[&input]);
        let cut = gemini_run(&chunks(&input, &cuts(input.len(), &at)));
        prop_assert_eq!(&cut, &whole);
        Ok(())
    });
}

/// The CPU time of this thread: unlike wall time, it does not grow while other work on the
/// machine (other tests, other builds) has the processor.
fn thread_cpu_time() -> Duration {
    let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `now` is a valid `timespec` for the call to fill in.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    assert_eq!(status, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

/// The least CPU time `run` took in five runs.
fn fastest(run: &dyn Fn()) -> Duration {
    (0..5)
        .map(|_| {
            let start = thread_cpu_time();
            run();
            thread_cpu_time().saturating_sub(start)
        })
        .min()
        .unwrap_or_default()
}

/// `pattern` repeated to `small` and to 16 times that many bytes, fed one byte at a time: the
/// large input must take less than 4 × 16 times as long (linear work is 16 times; quadratic
/// work would be 256 times).
fn assert_linear(what: &str, pattern: &[u8], small: usize, feed: &dyn Fn(&[u8])) {
    let input = |len: usize| pattern.iter().copied().cycle().take(len).collect::<Vec<u8>>();
    let (short, long) = (input(small), input(small * 16));
    let short_time = fastest(&|| feed(&short));
    let long_time = fastest(&|| feed(&long));
    let ratio = long_time.as_secs_f64() / short_time.as_secs_f64().max(1e-9);
    assert!(
        ratio < 64.0,
        "{what}: {:?} repeated: 16 times the input took {ratio:.0} times as long \
         ({short_time:?} → {long_time:?})",
        String::from_utf8_lossy(pattern)
    );
}

/// The check above can fail: work that grows with the square of the input is caught.
#[test]
#[should_panic(expected = "times as long")]
fn quadratic_work_fails_the_linearity_check() {
    assert_linear("a parser that rescans what it holds", b"x", 256, &|input| {
        let mut held = 0u64;
        for end in 0..input.len() {
            held = held.wrapping_add(input[..end].iter().map(|&b| u64::from(b)).sum::<u64>());
        }
        std::hint::black_box(held);
    });
}

/// Inputs that make a careless parser rescan or copy what it holds: one endless line, endless
/// CRs, an event of many data lines, comments, ids, a BOM that never completes.
const SSE_PATTERNS: &[&[u8]] = &[
    b"data: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    b"\r",
    b"\r\n",
    b"data: x\n",
    b"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
    b": keep-alive\n",
    b"id: 1234\n",
    b"retry: 1234567890\n",
    b"\xEF\xBB",
    b"event",
    b"data:\xE2\x82",
];

#[test]
fn sse_work_is_linear_in_the_input() {
    for pattern in SSE_PATTERNS {
        assert_linear("sse::Parser", pattern, 4 * 1024, &|input| {
            let mut parser = Parser::new(1 << 20);
            let mut events = Vec::new();
            for byte in input.chunks(1) {
                let _ = parser.feed(byte, &mut events);
                events.clear();
            }
        });
    }
}

#[test]
fn mcp_reply_work_is_linear_in_the_body() {
    let json_body: &[&[u8]] = &[b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":[1,2,3]}}", b" "];
    for (content_type, patterns) in
        [("text/event-stream", SSE_PATTERNS), ("application/json", json_body)]
    {
        for pattern in patterns {
            assert_linear(content_type, pattern, 4 * 1024, &|input| {
                let Ok(mut decoder) = ReplyDecoder::for_content_type(Some(content_type), 1 << 24)
                else {
                    panic!("{content_type} is MCP");
                };
                for byte in input.chunks(1) {
                    let _ = decoder.feed(byte.to_vec());
                }
                let _ = decoder.finish();
            });
        }
    }
}

#[test]
fn gemini_stream_work_is_linear_in_the_reply() {
    let patterns: &[&[u8]] = &[
        b"data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Hi \"}]}}]}\n\n",
        b"data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"t\",\"thought\":true}]}}]}\n\n",
        b"data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"f\"}}]}}]}\n\n",
        b"data: {\"usageMetadata\":{\"totalTokenCount\":3}}\n\n",
        b"data: not json\n\n",
    ];
    for pattern in patterns {
        assert_linear("Gemini stream", pattern, 4 * 1024, &|input| {
            let chunks: Vec<&[u8]> = input.chunks(1).collect();
            let _ = gemini_run(&chunks);
        });
    }
}
