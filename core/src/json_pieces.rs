//! JSON text written in pieces of whole characters, for a page to hand each piece to
//! JavaScript as it is written: a document of megabytes (a long chat with apps, saved after
//! each turn) then never needs a block of its size in wasm memory. Such a block, larger at
//! each save, left a hole behind that later saves could not use, and wasm memory never
//! shrinks.

use std::io::{self, Write};

use serde::Serialize;

/// The size of a piece: large enough that the pieces are few, small against the megabytes of a
/// long chat.
pub const PIECE_BYTES: usize = 64 * 1024;

/// Writes `value` as JSON, handing `piece` the text a piece at a time, in order.
pub fn write_json<T: Serialize + ?Sized>(
    value: &T,
    mut piece: impl FnMut(&str),
) -> Result<(), serde_json::Error> {
    let mut pieces = Pieces { buffer: Vec::with_capacity(PIECE_BYTES), piece: &mut piece };
    serde_json::to_writer(&mut pieces, value)?;
    pieces.hand_over();
    debug_assert!(pieces.buffer.is_empty(), "serde_json ends on a whole character");
    Ok(())
}

/// `value` as JSON text, written through the same pieces: a page that writes a type both ways
/// then carries one serializer of it, not two.
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String, serde_json::Error> {
    let mut text = String::new();
    write_json(value, |piece| text.push_str(piece))?;
    Ok(text)
}

/// Not generic over the receiver of the pieces: serde_json's serializer of every type written
/// is made once for this writer.
struct Pieces<'a> {
    buffer: Vec<u8>,
    piece: &'a mut dyn FnMut(&str),
}

impl Pieces<'_> {
    /// Hands over the whole characters written; a character cut at the end stays for the next
    /// piece.
    fn hand_over(&mut self) {
        let whole = match std::str::from_utf8(&self.buffer) {
            Ok(text) => text,
            // serde_json writes UTF-8: only the piece's end can cut a character.
            Err(cut) => std::str::from_utf8(&self.buffer[..cut.valid_up_to()]).unwrap_or_default(),
        };
        if whole.is_empty() {
            return;
        }
        (self.piece)(whole);
        let handed = whole.len();
        self.buffer.drain(..handed);
    }
}

impl Write for Pieces<'_> {
    /// Takes what fits in the piece (serde_json writes a string without escapes at once, and
    /// an app's HTML can be one such string of hundreds of KB); `write_all` sends the rest.
    // Not inlined: serde_json writes each token with `write_all`, and a copy of this in each
    // of them was 5 KB of the side panel's wasm.
    #[inline(never)]
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let taken = bytes.len().min(PIECE_BYTES.saturating_sub(self.buffer.len()));
        self.buffer.extend_from_slice(&bytes[..taken]);
        if self.buffer.len() >= PIECE_BYTES {
            self.hand_over();
        }
        Ok(taken)
    }

    #[inline(never)]
    fn write_all(&mut self, mut bytes: &[u8]) -> io::Result<()> {
        while !bytes.is_empty() {
            let taken = self.write(bytes)?;
            if taken == 0 {
                return Err(io::ErrorKind::WriteZero.into());
            }
            bytes = &bytes[taken..];
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pieces_of(value: &serde_json::Value) -> Vec<String> {
        let mut pieces = Vec::new();
        write_json(value, |piece| pieces.push(piece.to_owned())).unwrap();
        pieces
    }

    #[test]
    fn the_pieces_join_into_the_json_text() {
        // Characters of 1 to 4 bytes, shifted by 0 to 9 bytes, so that pieces end 1, 2 and 3
        // bytes into characters.
        let long: String = "aé€😀".repeat(PIECE_BYTES / 4);
        let mut cut = [false; 4];
        for shift in 0..10 {
            let value = json!({"pad": "x".repeat(shift), "text": long, "list": [1, null, "x\"y"]});
            let pieces = pieces_of(&value);
            assert!(pieces.len() >= 2, "{} pieces", pieces.len());
            assert!(pieces.iter().all(|p| p.len() <= PIECE_BYTES), "a piece stays small");
            assert_eq!(pieces.concat(), serde_json::to_string(&value).unwrap());
            // How far into a character the first piece's end would have fallen.
            cut[PIECE_BYTES - pieces[0].len()] = true;
        }
        assert_eq!(cut, [true; 4], "pieces ended 0, 1, 2 and 3 bytes into a character");
    }

    #[test]
    fn a_small_document_is_one_piece() {
        assert_eq!(pieces_of(&json!({"a": [1]})), ["{\"a\":[1]}"]);
        assert_eq!(to_string(&json!({"a": [1]})).unwrap(), "{\"a\":[1]}");
    }
}
