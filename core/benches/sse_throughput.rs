//! Throughput of `core::sse::Parser` on a 64 MB stream of MCP-like events, fed in network-sized
//! chunks. Run by `cargo xtask bench`; prints one `sse_throughput_mb_s=<n>` line.

use std::time::Instant;

use gemipanel_core::sse::Parser;

const STREAM_BYTES: usize = 64 * 1024 * 1024;
const CHUNK: usize = 16 * 1024;
const RUNS: usize = 5;

fn stream() -> Vec<u8> {
    let mut out = Vec::with_capacity(STREAM_BYTES + 4096);
    let mut n = 0u64;
    while out.len() < STREAM_BYTES {
        let text = "lorem ipsum dolor sit amet ".repeat(30);
        let line = format!(
            "id: {n}\r\nevent: message\r\ndata: {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\
             \"params\":{{\"progressToken\":{n},\"progress\":{n},\"message\":\"{text}\"}}}}\r\n\r\n"
        );
        out.extend_from_slice(line.as_bytes());
        if n.is_multiple_of(16) {
            out.extend_from_slice(b": keep-alive\n\n");
        }
        n += 1;
    }
    out
}

fn main() {
    let input = stream();
    let mut best = f64::MAX;
    let mut events = 0;
    for _ in 0..RUNS {
        let mut parser = Parser::default();
        let mut out = Vec::new();
        events = 0;
        let start = Instant::now();
        for chunk in input.chunks(CHUNK) {
            parser.feed(chunk, &mut out).expect("no event exceeds the cap");
            events += out.len();
            out.clear();
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    let mb = input.len() as f64 / (1024.0 * 1024.0);
    println!("sse parser: {mb:.0} MB, {events} events, best of {RUNS}: {:.3} s", best);
    println!("sse_throughput_mb_s={:.0}", mb / best);
}
