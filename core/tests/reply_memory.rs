//! The most memory decoding one MCP reply of an app's size holds at once.
//!
//! The worker reads an app's HTML (700 KB for an app on the official SDK) each time one is
//! shown. Its wasm memory never shrinks: the most a read ever held at once is what the worker
//! keeps for good. Counted by this binary's allocator, on the calling thread only.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use gemipanel_core::jsonrpc::{Message, Response};
use gemipanel_core::mcp::reply::ReplyDecoder;

struct Counting;

thread_local! {
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

fn note(grown: isize) {
    // `try_with`: a thread being torn down still frees.
    let _ = LIVE.try_with(|live| {
        let now = live.get().saturating_add_signed(grown);
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

// SAFETY: every call is forwarded to `System` unchanged; only sizes are counted.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size() as isize);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        note(-(layout.size() as isize));
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // A move is counted as both blocks at once, as an allocator that cannot grow in place
        // holds them.
        note(new_size as isize);
        let moved = unsafe { System.realloc(ptr, layout, new_size) };
        note(-(layout.size() as isize));
        moved
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The most held at once above what was held before `work`, and what `work` returned.
fn peak_of<T>(work: impl FnOnce() -> T) -> (usize, T) {
    let base = LIVE.with(Cell::get);
    PEAK.with(|peak| peak.set(base));
    let out = work();
    (PEAK.with(Cell::get) - base, out)
}

/// A `resources/read` reply carrying an app of about 700 KB, with the quotes and line ends
/// that JSON escapes.
fn app_reply() -> (String, Vec<u8>) {
    let line = "<div class=\"row\"><button data-n=\"1\">+</button></div>\n";
    let html = line.repeat(700_000 / line.len());
    let reply = serde_json::json!({
        "jsonrpc": "2.0",
        "id": 1,
        "result": {"contents": [{"uri": "ui://counter", "mimeType": "text/html;profile=mcp-app", "text": html}]},
    });
    (html, serde_json::to_vec(&reply).unwrap())
}

fn decode(content_type: &str, body: &[u8], chunk_size: usize) -> Vec<Message> {
    let mut decoder = ReplyDecoder::for_content_type(Some(content_type), 16 << 20).unwrap();
    let mut messages = Vec::new();
    for chunk in body.chunks(chunk_size) {
        // As fetch hands them over: a block of its own each.
        messages.extend(decoder.feed(chunk.to_vec()).unwrap());
    }
    messages.extend(decoder.finish().unwrap());
    messages
}

fn the_html(messages: &[Message]) -> &str {
    let [Message::Response(Response { outcome: Ok(result), .. })] = messages else {
        panic!("not one result: {messages:?}");
    };
    result["contents"][0]["text"].as_str().expect("the app's text")
}

#[test]
fn an_app_sized_reply_is_held_at_most_three_and_a_half_times_at_once() {
    let (html, json) = app_reply();
    let mut sse = b"event: message\ndata: ".to_vec();
    sse.extend_from_slice(&json);
    sse.extend_from_slice(b"\n\n");
    // What is left once read is the HTML itself; at most there are also the reply's text (the
    // chunks given up for it) and serde_json's scratch for the unescaped string, 3.1 times the
    // HTML. A copy of the first chunk (an SSE stream's check for a byte order mark) made 4.2,
    // a JSON body grown chunk by chunk 3.5.
    let bound = 7 * html.len() / 2;
    for (content_type, body) in [("text/event-stream", &sse), ("application/json", &json)] {
        // In one block (a reply on this machine's loopback often is), and in fetch's 64 KB.
        for chunk_size in [body.len(), 64 * 1024] {
            let (peak, messages) = peak_of(|| decode(content_type, body, chunk_size));
            assert_eq!(the_html(&messages), html);
            let times = peak as f64 / html.len() as f64;
            eprintln!("{content_type} in chunks of {chunk_size}: {times:.2} times the HTML");
            assert!(peak <= bound, "{content_type} in chunks of {chunk_size}: {times:.2} times");
        }
    }
}
