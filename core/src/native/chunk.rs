//! Messages over Chrome's 1 MB cap, as [`Chunk`]s: [`frames`] cuts a message's JSON text into
//! pieces whose own frames fit the cap, and [`Reassembler`] puts them back together.
//!
//! Pieces are cut at character boundaries of the JSON text, so `data` is always a string and
//! joining is concatenation. A piece is sized by how long it is once escaped inside the chunk's
//! JSON (quotes and backslashes double, control characters take up to six bytes).

use std::collections::VecDeque;
use std::fmt;

use super::wire::{Chunk, FromBridge};

/// The frames (JSON texts) that carry `message` to the extension, each at most `limit` bytes:
/// the message itself when it fits, else its chunks under `id`.
pub fn frames(message: &FromBridge, id: u64, limit: usize) -> Result<Vec<String>, SplitError> {
    let text = serde_json::to_string(message).map_err(|e| SplitError::Encode(e.to_string()))?;
    if text.len() <= limit {
        return Ok(vec![text]);
    }
    let budget = limit.saturating_sub(envelope_len(id)?);
    if budget < MAX_ESCAPED_CHAR {
        return Err(SplitError::LimitTooSmall { limit });
    }
    let pieces = split(&text, budget);
    let count = u32::try_from(pieces.len()).map_err(|_| SplitError::TooManyPieces)?;
    pieces
        .into_iter()
        .zip(0..)
        .map(|(data, index)| {
            let chunk = FromBridge::Chunk(Chunk { id, index, count, data: data.to_owned() });
            serde_json::to_string(&chunk).map_err(|e| SplitError::Encode(e.to_string()))
        })
        .collect()
}

/// Why a message could not be cut into frames.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SplitError {
    Encode(String),
    LimitTooSmall { limit: usize },
    TooManyPieces,
}

impl fmt::Display for SplitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SplitError::Encode(e) => write!(f, "the message could not be encoded: {e}"),
            SplitError::LimitTooSmall { limit } => {
                write!(f, "a frame limit of {limit} bytes leaves no room for data")
            }
            SplitError::TooManyPieces => f.write_str("the message needs too many chunks"),
        }
    }
}

impl std::error::Error for SplitError {}

/// The most bytes one character takes escaped in a JSON string (`\u001f`).
const MAX_ESCAPED_CHAR: usize = 6;

/// A chunk frame's length without its data, with the widest index and count it could have.
fn envelope_len(id: u64) -> Result<usize, SplitError> {
    let empty =
        FromBridge::Chunk(Chunk { id, index: u32::MAX, count: u32::MAX, data: String::new() });
    serde_json::to_string(&empty).map(|t| t.len()).map_err(|e| SplitError::Encode(e.to_string()))
}

/// At least as many bytes as serde_json writes for `c` inside a string.
fn escaped_len(c: char) -> usize {
    match c {
        '"' | '\\' => 2,
        '\u{0}'..='\u{1f}' => MAX_ESCAPED_CHAR,
        _ => c.len_utf8(),
    }
}

/// Cuts `text` into pieces whose escaped length is at most `budget`.
fn split(text: &str, budget: usize) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut used = 0;
    for (at, c) in text.char_indices() {
        let width = escaped_len(c);
        if used + width > budget {
            pieces.push(&text[start..at]);
            start = at;
            used = 0;
        }
        used += width;
    }
    pieces.push(&text[start..]);
    pieces
}

/// Joins chunks back into messages. Bounded: at most `max_open` messages are being assembled
/// at once (a chunk of one more drops the oldest, reported by [`Reassembler::poll_dropped`])
/// and they hold at most `max_bytes` of data together.
#[derive(Debug)]
pub struct Reassembler {
    max_bytes: usize,
    max_open: usize,
    open: VecDeque<Partial>,
    /// Ids completed lately, so a repeated chunk of one is recognised rather than reopening it.
    finished: VecDeque<u64>,
    dropped: VecDeque<ChunkError>,
}

#[derive(Debug)]
struct Partial {
    id: u64,
    parts: Vec<Option<String>>,
    missing: usize,
    bytes: usize,
}

const FINISHED_REMEMBERED: usize = 16;

impl Reassembler {
    pub fn new(max_bytes: usize, max_open: usize) -> Self {
        Reassembler {
            max_bytes,
            max_open: max_open.max(1),
            open: VecDeque::new(),
            finished: VecDeque::new(),
            dropped: VecDeque::new(),
        }
    }

    /// Takes one chunk; returns the whole JSON text once its last missing piece arrived. An
    /// error drops that message (its other chunks are then refused as unknown or reopen it).
    pub fn push(&mut self, chunk: Chunk) -> Result<Option<String>, ChunkError> {
        let Chunk { id, index, count, data } = chunk;
        if count == 0 || index >= count {
            self.discard(id);
            return Err(ChunkError::BadIndex { id, index, count });
        }
        if self.finished.contains(&id) {
            return Err(ChunkError::AlreadyComplete { id });
        }
        let position = match self.open.iter().position(|p| p.id == id) {
            Some(position) => position,
            None => self.open_message(id, count)?,
        };
        let held: usize = self.open.iter().map(|p| p.bytes).sum();
        let Some(partial) = self.open.get_mut(position) else {
            return Err(ChunkError::BadIndex { id, index, count });
        };
        if partial.parts.len() != count as usize {
            self.discard(id);
            return Err(ChunkError::CountChanged { id });
        }
        match partial.parts.get_mut(index as usize) {
            Some(Some(earlier)) if *earlier == data => return Ok(None),
            Some(Some(_)) => {
                self.discard(id);
                return Err(ChunkError::DuplicateDiffers { id, index });
            }
            Some(slot @ None) => {
                if held + data.len() > self.max_bytes {
                    self.discard(id);
                    return Err(ChunkError::TooLarge { id, limit: self.max_bytes });
                }
                partial.bytes += data.len();
                partial.missing -= 1;
                *slot = Some(data);
            }
            None => return Err(ChunkError::BadIndex { id, index, count }),
        }
        if partial.missing > 0 {
            return Ok(None);
        }
        let Some(done) = self.open.remove(position) else { return Ok(None) };
        self.finished.push_back(id);
        if self.finished.len() > FINISHED_REMEMBERED {
            self.finished.pop_front();
        }
        Ok(Some(done.parts.into_iter().flatten().collect()))
    }

    /// A message whose chunks will not all come: it was dropped to make room for newer ones.
    pub fn poll_dropped(&mut self) -> Option<ChunkError> {
        self.dropped.pop_front()
    }

    /// [`FromBridge`] as the worker receives it: chunks are collected and the whole message is
    /// returned once complete; any other message passes through.
    pub fn receive(&mut self, message: FromBridge) -> Result<Option<FromBridge>, ChunkError> {
        let FromBridge::Chunk(chunk) = message else { return Ok(Some(message)) };
        let id = chunk.id;
        let Some(text) = self.push(chunk)? else { return Ok(None) };
        match serde_json::from_str(&text) {
            Ok(FromBridge::Chunk(_)) => Err(ChunkError::Nested { id }),
            Ok(whole) => Ok(Some(whole)),
            Err(e) => Err(ChunkError::NotAMessage { id, message: e.to_string() }),
        }
    }

    fn open_message(&mut self, id: u64, count: u32) -> Result<usize, ChunkError> {
        // Every piece carries at least one byte, so more pieces than bytes cannot come true.
        if count as usize > self.max_bytes {
            return Err(ChunkError::TooLarge { id, limit: self.max_bytes });
        }
        while self.open.len() >= self.max_open {
            if let Some(oldest) = self.open.pop_front() {
                self.dropped
                    .push_back(ChunkError::Incomplete { id: oldest.id, missing: oldest.missing });
            }
        }
        self.open.push_back(Partial {
            id,
            parts: vec![None; count as usize],
            missing: count as usize,
            bytes: 0,
        });
        Ok(self.open.len() - 1)
    }

    fn discard(&mut self, id: u64) {
        self.open.retain(|p| p.id != id);
    }
}

/// Why chunks did not make a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChunkError {
    BadIndex {
        id: u64,
        index: u32,
        count: u32,
    },
    CountChanged {
        id: u64,
    },
    DuplicateDiffers {
        id: u64,
        index: u32,
    },
    TooLarge {
        id: u64,
        limit: usize,
    },
    AlreadyComplete {
        id: u64,
    },
    /// Dropped to make room while `missing` pieces had not come.
    Incomplete {
        id: u64,
        missing: usize,
    },
    /// The joined text is not a bridge message.
    NotAMessage {
        id: u64,
        message: String,
    },
    /// The joined text is itself a chunk.
    Nested {
        id: u64,
    },
}

impl fmt::Display for ChunkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChunkError::BadIndex { id, index, count } => {
                write!(f, "message {id}: chunk {index} of {count} does not exist")
            }
            ChunkError::CountChanged { id } => {
                write!(f, "message {id}: chunks disagree on how many there are")
            }
            ChunkError::DuplicateDiffers { id, index } => {
                write!(f, "message {id}: chunk {index} came twice with different data")
            }
            ChunkError::TooLarge { id, limit } => {
                write!(f, "message {id}: over {limit} bytes waiting to be joined")
            }
            ChunkError::AlreadyComplete { id } => {
                write!(f, "message {id}: a chunk came after the message was complete")
            }
            ChunkError::Incomplete { id, missing } => {
                write!(f, "message {id}: dropped with {missing} chunks missing")
            }
            ChunkError::NotAMessage { id, message } => {
                write!(f, "message {id}: the joined chunks are not a bridge message: {message}")
            }
            ChunkError::Nested { id } => write!(f, "message {id}: a chunk inside a chunk"),
        }
    }
}

impl std::error::Error for ChunkError {}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn chunks(frames: &[String]) -> Vec<Chunk> {
        frames
            .iter()
            .map(|f| match serde_json::from_str(f).unwrap() {
                FromBridge::Chunk(c) => c,
                other => panic!("not a chunk: {other:?}"),
            })
            .collect()
    }

    /// Text with every kind of character the escaping treats differently.
    fn awkward_message(len: usize) -> FromBridge {
        let alphabet = ['a', '"', '\\', '\n', '\u{1}', 'é', '語', '🦀', '/', ' '];
        let text: String = (0..len).map(|i| alphabet[(i * 7 + i / 3) % alphabet.len()]).collect();
        FromBridge::Message { server: "s".into(), message: json!({"result": text}) }
    }

    #[test]
    fn a_message_that_fits_is_sent_whole() {
        let message = awkward_message(10);
        let frames = frames(&message, 1, 1024).unwrap();
        assert_eq!(frames, vec![serde_json::to_string(&message).unwrap()]);
    }

    /// Every limit from the smallest usable one up: every frame fits, and joining gives the
    /// message back.
    #[test]
    fn every_split_fits_and_joins_back() {
        let message = awkward_message(300);
        let whole = serde_json::to_string(&message).unwrap();
        let smallest = envelope_len(9).unwrap() + MAX_ESCAPED_CHAR;
        for limit in smallest..whole.len() + 2 {
            let frames = frames(&message, 9, limit).unwrap();
            assert!(frames.iter().all(|f| f.len() <= limit), "limit {limit}");
            let mut joiner = Reassembler::new(1 << 20, 4);
            let mut result = None;
            for frame in &frames {
                let received = serde_json::from_str(frame).unwrap();
                assert!(result.is_none(), "limit {limit}: complete before the last chunk");
                result = joiner.receive(received).unwrap();
            }
            assert_eq!(result.as_ref(), Some(&message), "limit {limit}");
        }
        assert_eq!(
            frames(&message, 9, smallest - 1),
            Err(SplitError::LimitTooSmall { limit: smallest - 1 })
        );
    }

    #[test]
    fn five_megabytes_fit_chrome_frames() {
        let message = awkward_message(5 << 20);
        let frames = frames(&message, u64::MAX, crate::native::MAX_TO_EXTENSION).unwrap();
        assert!(frames.len() > 5);
        assert!(frames.iter().all(|f| f.len() <= crate::native::MAX_TO_EXTENSION));
        let mut joiner = Reassembler::new(64 << 20, 4);
        let mut joined = None;
        for chunk in chunks(&frames).into_iter().rev() {
            joined = joiner.push(chunk).unwrap();
        }
        assert_eq!(joined, Some(serde_json::to_string(&message).unwrap()));
    }

    #[test]
    fn chunks_join_in_any_order_and_ignore_repeats() {
        let message = awkward_message(200);
        let parts = chunks(&frames(&message, 5, 120).unwrap());
        let n = parts.len();
        assert!(n >= 4);
        let whole = serde_json::to_string(&message).unwrap();
        for rotation in 0..n {
            let rotated: Vec<usize> = (0..n).map(|i| (i + rotation) % n).collect();
            for order in [rotated.clone(), rotated.into_iter().rev().collect()] {
                let mut joiner = Reassembler::new(1 << 20, 2);
                let (last, rest) = order.split_last().unwrap();
                for &i in rest {
                    assert_eq!(joiner.push(parts[i].clone()), Ok(None));
                    assert_eq!(joiner.push(parts[i].clone()), Ok(None), "a repeat is ignored");
                }
                assert_eq!(joiner.push(parts[*last].clone()), Ok(Some(whole.clone())));
            }
        }
    }

    #[test]
    fn bad_chunks_are_refused() {
        let chunk = |id, index, count, data: &str| Chunk { id, index, count, data: data.into() };
        let mut joiner = Reassembler::new(10, 2);
        assert_eq!(
            joiner.push(chunk(1, 0, 0, "x")),
            Err(ChunkError::BadIndex { id: 1, index: 0, count: 0 })
        );
        assert_eq!(
            joiner.push(chunk(1, 2, 2, "x")),
            Err(ChunkError::BadIndex { id: 1, index: 2, count: 2 })
        );
        assert_eq!(joiner.push(chunk(2, 0, 2, "ab")), Ok(None));
        assert_eq!(joiner.push(chunk(2, 1, 3, "c")), Err(ChunkError::CountChanged { id: 2 }));
        assert_eq!(joiner.push(chunk(3, 0, 2, "ab")), Ok(None));
        assert_eq!(
            joiner.push(chunk(3, 0, 2, "zz")),
            Err(ChunkError::DuplicateDiffers { id: 3, index: 0 })
        );
        assert_eq!(joiner.push(chunk(4, 0, 2, "123456")), Ok(None));
        assert_eq!(
            joiner.push(chunk(4, 1, 2, "789012")),
            Err(ChunkError::TooLarge { id: 4, limit: 10 })
        );
        assert_eq!(
            joiner.push(chunk(5, 0, 1_000, "x")),
            Err(ChunkError::TooLarge { id: 5, limit: 10 })
        );
        assert_eq!(joiner.push(chunk(6, 0, 1, "{}")), Ok(Some("{}".into())));
        assert_eq!(joiner.push(chunk(6, 0, 1, "{}")), Err(ChunkError::AlreadyComplete { id: 6 }));
    }

    #[test]
    fn a_message_with_missing_chunks_is_dropped_when_newer_ones_need_room() {
        let chunk = |id, index, count| Chunk { id, index, count, data: "x".into() };
        let mut joiner = Reassembler::new(100, 2);
        assert_eq!(joiner.push(chunk(1, 0, 3)), Ok(None));
        assert_eq!(joiner.push(chunk(2, 0, 2)), Ok(None));
        assert_eq!(joiner.poll_dropped(), None);
        assert_eq!(joiner.push(chunk(3, 0, 2)), Ok(None));
        assert_eq!(joiner.poll_dropped(), Some(ChunkError::Incomplete { id: 1, missing: 2 }));
        assert_eq!(joiner.poll_dropped(), None);
        assert_eq!(joiner.push(chunk(2, 1, 2)), Ok(Some("xx".into())));
        assert_eq!(joiner.push(chunk(3, 1, 2)), Ok(Some("xx".into())));
    }

    #[test]
    fn joined_text_must_be_a_plain_message() {
        let mut joiner = Reassembler::new(1000, 2);
        let inner = serde_json::to_string(&FromBridge::Chunk(Chunk {
            id: 1,
            index: 0,
            count: 1,
            data: "{}".into(),
        }))
        .unwrap();
        let nested = FromBridge::Chunk(Chunk { id: 2, index: 0, count: 1, data: inner });
        assert_eq!(joiner.receive(nested), Err(ChunkError::Nested { id: 2 }));
        let garbage = FromBridge::Chunk(Chunk { id: 3, index: 0, count: 1, data: "{".into() });
        assert!(matches!(joiner.receive(garbage), Err(ChunkError::NotAMessage { id: 3, .. })));
    }
}
