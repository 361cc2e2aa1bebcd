//! Random bytes into everything that reads network data: errors are fine, panics are not.

use gemipanel_core::jsonrpc::Message;
use gemipanel_core::mcp::reply::ReplyDecoder;
use gemipanel_core::sse::Parser;

/// xorshift64*: deterministic, so a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Bytes biased towards the ones parsers care about.
    fn bytes(&mut self, len: usize) -> Vec<u8> {
        const INTERESTING: &[u8] = b"\r\n:{}\"[],data idevntry0123456789\xEF\xBB\xBF\xC3\xA9\x00";
        (0..len)
            .map(|_| {
                let r = self.next();
                if r.is_multiple_of(4) {
                    r as u8
                } else {
                    INTERESTING[(r >> 8) as usize % INTERESTING.len()]
                }
            })
            .collect()
    }
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for round in 0..3000 {
        let len = (rng.next() % 300) as usize;
        let input = rng.bytes(len);
        let cut = if input.is_empty() { 0 } else { (rng.next() as usize) % input.len() };
        let (a, b) = input.split_at(cut);

        let mut parser = Parser::new(64 + round % 128);
        let mut events = Vec::new();
        let _ = parser.feed(a, &mut events);
        let _ = parser.feed(b, &mut events);

        for content_type in [Some("text/event-stream"), Some("application/json"), None] {
            let mut decoder = ReplyDecoder::for_content_type(content_type, 256).expect("MCP type");
            let _ = decoder.feed(a.to_vec());
            let _ = decoder.feed(b.to_vec());
            let _ = decoder.finish();
        }
        let _ = Message::parse(&input);
    }
}

#[test]
fn random_json_rpc_shaped_text_never_panics() {
    let mut rng = Rng(42);
    let pieces = [
        "{",
        "}",
        "\"jsonrpc\":\"2.0\"",
        ",",
        "\"id\":",
        "1",
        "-1e400",
        "\"x\"",
        "null",
        "\"method\":",
        "\"result\":",
        "\"error\":",
        "{\"code\":1,\"message\":\"m\"}",
        "[",
        "]",
    ];
    for _ in 0..5000 {
        let text: String =
            (0..(rng.next() % 12)).map(|_| pieces[(rng.next() as usize) % pieces.len()]).collect();
        let _ = Message::parse(text.as_bytes());
    }
}
