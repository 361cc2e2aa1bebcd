//! Turns the body of one HTTP reply into JSON-RPC messages, whichever form the server chose.
//!
//! Streamable HTTP lets a server answer each POST with `application/json` (one message) or
//! `text/event-stream` (messages as SSE events); the form is decided per reply.

use crate::jsonrpc::Message;
use crate::sse;
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// The reply's media type is not one MCP uses (an HTML login page, say).
    NotMcp {
        content_type: String,
    },
    TooLarge {
        limit: usize,
    },
    Malformed(String),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::NotMcp { content_type } => write!(f, "not MCP: {content_type}"),
            DecodeError::TooLarge { limit } => write!(f, "reply larger than {limit} bytes"),
            DecodeError::Malformed(what) => f.write_str(what),
        }
    }
}

/// A chunk smaller than this is joined to the one before when that one is smaller too.
const SMALL_CHUNK_BYTES: usize = 64 * 1024;

#[derive(Debug)]
enum Form {
    /// The body's chunks as they came: joined once, at the end, into a block of exactly the
    /// body's size (a buffer grown chunk by chunk ends up to twice that).
    Json(Vec<Vec<u8>>),
    Sse(sse::Parser),
}

#[derive(Debug)]
pub struct ReplyDecoder {
    form: Form,
    limit: usize,
    received: usize,
}

impl ReplyDecoder {
    /// Picks the decoder from the `Content-Type` header; a missing header is taken as JSON.
    pub fn for_content_type(content_type: Option<&str>, limit: usize) -> Result<Self, DecodeError> {
        let media_type = content_type
            .and_then(|ct| ct.split(';').next())
            .map(|mt| mt.trim().to_ascii_lowercase());
        let form = match media_type.as_deref() {
            None | Some("application/json") => Form::Json(Vec::new()),
            Some("text/event-stream") => Form::Sse(sse::Parser::new(limit)),
            Some(other) => return Err(DecodeError::NotMcp { content_type: other.to_owned() }),
        };
        Ok(ReplyDecoder { form, limit, received: 0 })
    }

    pub fn is_stream(&self) -> bool {
        matches!(self.form, Form::Sse(_))
    }

    /// For SSE replies: the id to resume from and the delay the server asked for.
    pub fn resume_point(&self) -> (Option<&str>, Option<u64>) {
        match &self.form {
            Form::Sse(parser) => (parser.last_event_id(), parser.retry()),
            Form::Json(_) => (None, None),
        }
    }

    /// Starts the size count again: a long-lived stream (`subscriptions/listen`) is bounded per
    /// message, not as a whole.
    pub(crate) fn restart_count(&mut self) {
        self.received = 0;
    }

    /// Feeds a body chunk; returns the messages completed by it.
    ///
    /// Takes the chunk to let it go before the messages are parsed: a chunk may be a whole
    /// app's HTML, and the worker's memory keeps the most it ever held at once.
    pub fn feed(&mut self, chunk: Vec<u8>) -> Result<Vec<Message>, DecodeError> {
        self.received = self.received.saturating_add(chunk.len());
        if self.received > self.limit {
            return Err(DecodeError::TooLarge { limit: self.limit });
        }
        match &mut self.form {
            Form::Json(chunks) => {
                match chunks.last_mut() {
                    // A server trickling bytes: an entry for each would cost far more than them.
                    Some(last)
                        if last.len() < SMALL_CHUNK_BYTES && chunk.len() < SMALL_CHUNK_BYTES =>
                    {
                        last.extend_from_slice(&chunk)
                    }
                    _ => chunks.push(chunk),
                }
                Ok(Vec::new())
            }
            Form::Sse(parser) => {
                let mut events = Vec::new();
                let fed = parser.feed(&chunk, &mut events);
                drop(chunk);
                fed.map_err(|_| DecodeError::TooLarge { limit: self.limit })?;
                events
                    .into_iter()
                    .filter(|e| e.event == "message" && !e.data.is_empty())
                    .map(|e| parse_message(e.data.as_bytes(), "an SSE event"))
                    .collect()
            }
        }
    }

    /// The body ended; returns what only the whole body could tell.
    pub fn finish(&mut self) -> Result<Vec<Message>, DecodeError> {
        match &mut self.form {
            Form::Json(chunks) => {
                let body = join(std::mem::take(chunks));
                if body.iter().all(u8::is_ascii_whitespace) {
                    return Ok(Vec::new());
                }
                if looks_like_html(&body) {
                    return Err(DecodeError::NotMcp { content_type: "an HTML page".into() });
                }
                parse_message(&body, "the JSON body").map(|m| vec![m])
            }
            Form::Sse(_) => Ok(Vec::new()),
        }
    }
}

/// One block of the chunks' bytes; a lone chunk is that block already.
fn join(mut chunks: Vec<Vec<u8>>) -> Vec<u8> {
    if chunks.len() == 1 {
        return chunks.pop().unwrap_or_default();
    }
    let mut body = Vec::with_capacity(chunks.iter().map(Vec::len).sum());
    for chunk in chunks {
        body.extend_from_slice(&chunk);
    }
    body
}

fn parse_message(bytes: &[u8], place: &str) -> Result<Message, DecodeError> {
    Message::parse(bytes).map_err(|e| DecodeError::Malformed(format!("{place}: {e}")))
}

fn looks_like_html(body: &[u8]) -> bool {
    let start = body.iter().position(|b| !b.is_ascii_whitespace());
    start.is_some_and(|i| body[i] == b'<')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_is_not_mcp_whatever_the_header_says() {
        assert!(matches!(
            ReplyDecoder::for_content_type(Some("text/html; charset=utf-8"), 100),
            Err(DecodeError::NotMcp { .. })
        ));
        let mut d = ReplyDecoder::for_content_type(Some("application/json"), 100).unwrap();
        d.feed(b"<!doctype html>".to_vec()).unwrap();
        assert!(matches!(d.finish(), Err(DecodeError::NotMcp { .. })));
    }

    #[test]
    fn a_trickled_json_body_is_kept_in_few_blocks() {
        let body =
            format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"t":"{}"}}}}"#, "x".repeat(200_000));
        let mut d = ReplyDecoder::for_content_type(Some("application/json"), 1 << 20).unwrap();
        for byte in body.bytes() {
            d.feed(vec![byte]).unwrap();
        }
        let Form::Json(chunks) = &d.form else { unreachable!() };
        assert!(chunks.len() <= body.len() / SMALL_CHUNK_BYTES + 1, "{} blocks", chunks.len());
        assert_eq!(d.finish().unwrap().len(), 1);
    }

    #[test]
    fn sse_priming_events_are_skipped_and_limit_holds() {
        let mut d = ReplyDecoder::for_content_type(Some("text/event-stream"), 200).unwrap();
        let m = d
            .feed(
                b"id: a\ndata: \n\nid: b\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"
                    .to_vec(),
            )
            .unwrap();
        assert_eq!(m.len(), 1);
        assert_eq!(d.resume_point().0, Some("b"));
        assert!(matches!(d.feed(vec![b' '; 200]), Err(DecodeError::TooLarge { .. })));
    }
}
