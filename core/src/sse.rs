//! Incremental Server-Sent Events parser (the WHATWG `text/event-stream` algorithm).
//!
//! Bytes go in as they arrive, split anywhere (inside a UTF-8 character or between CR and LF);
//! complete events come out. It knows nothing about MCP or Gemini: both feed it.

use std::fmt;

/// One dispatched event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Event {
    /// The `event:` field; `"message"` when the server sent none.
    pub event: String,
    /// The `data:` lines joined with `\n`.
    pub data: String,
    /// The stream's last event id when this event was dispatched (ids persist across events).
    pub id: Option<String>,
    /// A `retry:` value (milliseconds) seen in this event's block, if any.
    pub retry: Option<u64>,
}

/// The stream broke a limit; the parser discards the oversized event and can go on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    EventTooLarge { limit: usize },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::EventTooLarge { limit } => {
                write!(f, "an event in the stream is larger than {limit} bytes")
            }
        }
    }
}

impl std::error::Error for Error {}

const BOM: &[u8] = b"\xEF\xBB\xBF";
/// A line buffer up to this size is kept for the next line; a larger one (an app's HTML in one
/// `data:` line) is let go.
const LINE_KEPT_BYTES: usize = 64 * 1024;

/// The default cap on one event (its fields together), generous for tool results.
pub const DEFAULT_MAX_EVENT_BYTES: usize = 10 * 1024 * 1024;

#[derive(Debug)]
pub struct Parser {
    max_event_bytes: usize,
    /// Bytes of the line being received (no terminator yet).
    line: Vec<u8>,
    /// Undecided leading bytes that might still turn out to be a BOM.
    at_start: bool,
    /// The previous chunk ended with CR: an LF at the start of the next one belongs to it.
    after_cr: bool,
    /// While true, bytes are dropped until the next line end (an oversized line).
    skipping_line: bool,
    event_type: String,
    data: String,
    event_retry: Option<u64>,
    last_event_id: Option<String>,
    retry: Option<u64>,
}

impl Default for Parser {
    fn default() -> Self {
        Parser::new(DEFAULT_MAX_EVENT_BYTES)
    }
}

impl Parser {
    pub fn new(max_event_bytes: usize) -> Self {
        Parser {
            max_event_bytes,
            line: Vec::new(),
            at_start: true,
            after_cr: false,
            skipping_line: false,
            event_type: String::new(),
            data: String::new(),
            event_retry: None,
            last_event_id: None,
            retry: None,
        }
    }

    /// The id to send as `Last-Event-ID` when reconnecting (set by priming events too).
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_event_id.as_deref()
    }

    /// The reconnection delay the server asked for, in milliseconds.
    pub fn retry(&self) -> Option<u64> {
        self.retry
    }

    /// Feeds the next chunk; appends dispatched events to `out`.
    ///
    /// An oversized event is reported once and dropped; the events before it stay in `out`.
    pub fn feed(&mut self, mut chunk: &[u8], out: &mut Vec<Event>) -> Result<(), Error> {
        if self.at_start && self.line.is_empty() && chunk.len() >= BOM.len() {
            // Decided at once, without a copy of the chunk (which may be a whole app's HTML).
            self.at_start = false;
            return self.feed_lines(chunk.strip_prefix(BOM).unwrap_or(chunk), out);
        }
        if self.at_start {
            // Buffer until we know whether the stream opens with a BOM.
            self.line.extend_from_slice(chunk);
            if self.line.len() < BOM.len() && BOM.starts_with(&self.line) {
                return Ok(());
            }
            self.at_start = false;
            let pending = std::mem::take(&mut self.line);
            let body = pending.strip_prefix(BOM).unwrap_or(&pending);
            return self.feed_lines(body, out);
        }
        if self.after_cr && !chunk.is_empty() {
            self.after_cr = false;
            if let Some(rest) = chunk.strip_prefix(b"\n") {
                chunk = rest;
            }
        }
        self.feed_lines(chunk, out)
    }

    fn feed_lines(&mut self, mut chunk: &[u8], out: &mut Vec<Event>) -> Result<(), Error> {
        let mut result = Ok(());
        while let Some(end) = chunk.iter().position(|&b| b == b'\n' || b == b'\r') {
            let terminator = chunk[end];
            let line_result = if self.skipping_line {
                self.skipping_line = false;
                Ok(())
            } else if self.line.len() + end + self.data.len() > self.max_event_bytes {
                // The bound a line still arriving meets below: where chunks end changes nothing.
                self.line.clear();
                self.discard_event();
                Err(Error::EventTooLarge { limit: self.max_event_bytes })
            } else if self.line.is_empty() {
                self.process_line(&chunk[..end], out)
            } else {
                let mut line = std::mem::take(&mut self.line);
                line.extend_from_slice(&chunk[..end]);
                let r = self.process_line(&line, out);
                // A long line's buffer goes now, before its event is parsed, not with the
                // stream.
                if line.capacity() <= LINE_KEPT_BYTES {
                    line.clear();
                    self.line = line;
                }
                r
            };
            if result.is_ok() {
                result = line_result;
            }
            chunk = &chunk[end + 1..];
            if terminator == b'\r' {
                match chunk.first() {
                    Some(b'\n') => chunk = &chunk[1..],
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
        }
        if !self.skipping_line {
            if self.line.len() + chunk.len() + self.data.len() > self.max_event_bytes {
                self.line.clear();
                self.discard_event();
                self.skipping_line = true;
                result = result.and(Err(Error::EventTooLarge { limit: self.max_event_bytes }));
            } else {
                self.line.extend_from_slice(chunk);
            }
        }
        result
    }

    fn process_line(&mut self, line: &[u8], out: &mut Vec<Event>) -> Result<(), Error> {
        if line.is_empty() {
            self.dispatch(out);
            return Ok(());
        }
        if line[0] == b':' {
            return Ok(()); // a comment, often a keep-alive
        }
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        match name {
            b"data" => {
                if self.data.len() + value.len() + 1 > self.max_event_bytes {
                    self.discard_event();
                    return Err(Error::EventTooLarge { limit: self.max_event_bytes });
                }
                // A first line exactly: pushing the '\n' onto a full buffer doubled it, and an
                // event of an app's HTML took twice its size of the worker's memory, which
                // never shrinks.
                if self.data.is_empty() {
                    self.data.reserve_exact(value.len() + 1);
                }
                push_lossy(&mut self.data, value);
                self.data.push('\n');
            }
            b"event" => self.event_type = lossy(value),
            b"id" if !value.contains(&0) => self.last_event_id = Some(lossy(value)),
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                // Absurdly long digit strings saturate instead of failing.
                let ms = std::str::from_utf8(value)
                    .ok()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(u64::MAX);
                self.retry = Some(ms);
                self.event_retry = Some(ms);
            }
            _ => {}
        }
        Ok(())
    }

    fn dispatch(&mut self, out: &mut Vec<Event>) {
        let retry = self.event_retry.take();
        let event_type = std::mem::take(&mut self.event_type);
        if self.data.is_empty() {
            // A priming event (an id, maybe a retry, no data): state only, nothing to deliver.
            return;
        }
        let mut data = std::mem::take(&mut self.data);
        data.pop(); // the trailing \n added after the last data line
        out.push(Event {
            event: if event_type.is_empty() { "message".into() } else { event_type },
            data,
            id: self.last_event_id.clone(),
            retry,
        });
    }

    fn discard_event(&mut self) {
        self.data.clear();
        self.event_type.clear();
        self.event_retry = None;
    }
}

/// `String::from_utf8_lossy(bytes).into_owned()`, written with `str::from_utf8`, which the
/// wasm has anyway: the std version (with `Utf8Chunks`) was ~0.9 KB of the worker's wasm.
pub(crate) fn lossy(bytes: &[u8]) -> String {
    let mut text = String::new();
    push_lossy(&mut text, bytes);
    text
}

/// Appends `bytes` as text, each invalid sequence (a maximal subpart, as std replaces it)
/// becoming one U+FFFD.
fn push_lossy(text: &mut String, mut bytes: &[u8]) {
    loop {
        match std::str::from_utf8(bytes) {
            Ok(valid) => return text.push_str(valid),
            Err(e) => {
                let (valid, rest) = bytes.split_at(e.valid_up_to());
                text.push_str(std::str::from_utf8(valid).unwrap_or_default());
                text.push(char::REPLACEMENT_CHARACTER);
                bytes = &rest[e.error_len().unwrap_or(rest.len())..];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_all(input: &[u8]) -> Vec<Event> {
        let mut parser = Parser::default();
        let mut out = Vec::new();
        parser.feed(input, &mut out).expect("no limit hit");
        out
    }

    #[test]
    fn a_long_event_in_chunks_takes_its_size_once() {
        // An app's HTML in one `data:` line, arriving in 64 KB chunks as fetch reads them.
        let html = "<p>".repeat(200_000);
        let stream = format!("data: {html}\n\n");
        let mut parser = Parser::default();
        let mut out = Vec::new();
        for chunk in stream.as_bytes().chunks(64 * 1024) {
            parser.feed(chunk, &mut out).unwrap();
        }
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].data, html);
        // Not twice its size (the '\n' pushed onto a full buffer), and the line's buffer is
        // not kept with the stream.
        assert!(out[0].data.capacity() <= html.len() + 1, "{}", out[0].data.capacity());
        assert!(parser.line.capacity() <= LINE_KEPT_BYTES, "{}", parser.line.capacity());
    }

    #[test]
    fn joins_data_lines_and_keeps_ids() {
        let events = parse_all(b"id: 1\nevent: e\ndata: a\ndata:b\n\ndata: c\n\n");
        assert_eq!(events.len(), 2);
        assert_eq!((events[0].event.as_str(), events[0].data.as_str()), ("e", "a\nb"));
        assert_eq!(events[1].event, "message");
        assert_eq!(events[1].id.as_deref(), Some("1"));
    }

    #[test]
    fn lossy_decoding_is_the_std_one() {
        let samples: [&[u8]; 9] = [
            b"",
            b"plain",
            "h\u{e9}llo \u{4e16}\u{1F600}".as_bytes(),
            b"a\xFFb",
            b"\xF0\x9F\x98",
            b"x\xF0\x9F\x98y\xE4\xB8",
            b"\xC0\x80\xED\xA0\x80",
            b"\xF4\x90\x80\x80z",
            b"\x80\x80\xE2\x82\xACok\xE2",
        ];
        for bytes in samples {
            assert_eq!(lossy(bytes), String::from_utf8_lossy(bytes), "{bytes:?}");
        }
        // Every split of a mixed sample, so each kind of cut sequence is met at the end.
        let mixed = b"a\xE2\x82\xAC\xF0\x9F\x98\x80\xFF\xC3\xA9\xED\xA0\x80";
        for end in 0..=mixed.len() {
            for start in 0..=end {
                let bytes = &mixed[start..end];
                assert_eq!(lossy(bytes), String::from_utf8_lossy(bytes), "{bytes:?}");
            }
        }
    }

    #[test]
    fn unfinished_event_is_not_dispatched() {
        assert!(parse_all(b"data: x\n").is_empty());
        assert!(parse_all(b"data: x").is_empty());
    }

    #[test]
    fn priming_event_sets_id_and_retry_only() {
        let mut parser = Parser::default();
        let mut out = Vec::new();
        parser.feed(b"id: p0\nretry: 250\ndata:\n\n", &mut out).unwrap();
        // `data:` with an empty value yields a single "\n", which is an event with empty data.
        assert_eq!(out.len(), 1);
        out.clear();
        parser.feed(b"id: p1\nretry: 300\n\n", &mut out).unwrap();
        assert!(out.is_empty());
        assert_eq!(parser.last_event_id(), Some("p1"));
        assert_eq!(parser.retry(), Some(300));
    }

    #[test]
    fn oversized_event_is_an_error_and_parsing_goes_on() {
        let mut parser = Parser::new(16);
        let mut out = Vec::new();
        let r = parser.feed(b"data: 0123456789abcdefghij\n\ndata: ok\n\n", &mut out);
        assert_eq!(r, Err(Error::EventTooLarge { limit: 16 }));
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].data, "ok");
        let r = parser.feed(b"data: 0123456789\ndata: 0123456789\n\n", &mut out);
        assert!(r.is_err());
    }
}
