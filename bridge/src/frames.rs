//! Chrome's side of the pipe: each message is a 32-bit native-endian length and that many
//! bytes of JSON, both ways.

use bytes::BytesMut;
use gemipanel_core::native::chunk::frames;
use gemipanel_core::native::wire::{BridgeError, FromBridge, ToBridge};
use gemipanel_core::native::{MAX_FROM_EXTENSION, MAX_TO_EXTENSION};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio_util::codec::{Decoder, Encoder, LengthDelimitedCodec};

fn codec(max: usize) -> LengthDelimitedCodec {
    LengthDelimitedCodec::builder()
        .length_field_length(4)
        .native_endian()
        .max_frame_length(max)
        .new_codec()
}

/// What came from the extension.
pub enum Incoming {
    Request(ToBridge),
    /// A frame that is not a [`ToBridge`]; the pipe is still usable.
    Unreadable(BridgeError),
    /// The extension disconnected (end of input), or the input cannot be read any further;
    /// the error says why when it was not a plain disconnect.
    Closed(Option<BridgeError>),
}

/// Reads frames until the input ends, handing each to `deliver`.
pub async fn read_all(mut input: impl AsyncRead + Unpin, deliver: mpsc::Sender<Incoming>) {
    let mut codec = codec(MAX_FROM_EXTENSION);
    let mut buffer = BytesMut::with_capacity(64 * 1024);
    let end = loop {
        match codec.decode(&mut buffer) {
            Ok(Some(frame)) => {
                let incoming = match serde_json::from_slice::<ToBridge>(&frame) {
                    Ok(request) => Incoming::Request(request),
                    Err(e) => {
                        Incoming::Unreadable(BridgeError::BadRequest { message: e.to_string() })
                    }
                };
                if deliver.send(incoming).await.is_err() {
                    return;
                }
                continue;
            }
            Ok(None) => {}
            // Only an oversized length fails here; what follows it cannot be framed again.
            Err(e) => break Some(BridgeError::BadRequest { message: e.to_string() }),
        }
        match input.read_buf(&mut buffer).await {
            Ok(0) if buffer.is_empty() => break None,
            Ok(0) => {
                break Some(BridgeError::BadRequest {
                    message: format!("the input ended inside a frame ({} bytes)", buffer.len()),
                })
            }
            Ok(_) => {}
            Err(e) => {
                break Some(BridgeError::BadRequest { message: format!("reading stdin: {e}") })
            }
        }
    };
    let _ = deliver.send(Incoming::Closed(end)).await;
}

/// Writes each message as one frame, or as chunks when it is over Chrome's cap, until the
/// channel closes or the output breaks (then the browser is gone).
pub async fn write_all(
    mut output: impl AsyncWrite + Unpin,
    mut messages: mpsc::Receiver<FromBridge>,
) {
    let mut codec = codec(MAX_TO_EXTENSION);
    let mut buffer = BytesMut::new();
    let mut next_id: u64 = 0;
    while let Some(message) = messages.recv().await {
        buffer.clear();
        next_id += 1;
        let texts = frames(&message, next_id, MAX_TO_EXTENSION).or_else(|e| {
            let error = FromBridge::Error {
                server: None,
                error: BridgeError::Unencodable { message: e.to_string() },
            };
            serde_json::to_string(&error).map(|text| vec![text])
        });
        for text in texts.into_iter().flatten() {
            if let Err(e) = codec.encode(text.as_bytes(), &mut buffer) {
                eprintln!("gemipanel-bridge: a message was not sent: {e}");
            }
        }
        if output.write_all(&buffer).await.is_err() || output.flush().await.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Frames split across reads at every byte, and two frames in one read, decode alike.
    #[tokio::test]
    async fn frames_survive_any_read_boundary() {
        let messages = [r#"{"type":"hello","protocol":1}"#, r#"{"type":"stop","server":"é"}"#];
        let mut bytes = Vec::new();
        for m in messages {
            bytes.extend_from_slice(&(m.len() as u32).to_ne_bytes());
            bytes.extend_from_slice(m.as_bytes());
        }
        for cut in 0..=bytes.len() {
            let (first, second) = bytes.split_at(cut);
            let input = tokio_test_reader(vec![first.to_vec(), second.to_vec()]);
            let (tx, mut rx) = mpsc::channel(8);
            read_all(input, tx).await;
            let mut got = Vec::new();
            while let Ok(item) = rx.try_recv() {
                got.push(item);
            }
            assert!(matches!(
                got.first(),
                Some(Incoming::Request(ToBridge::Hello { protocol: 1 }))
            ));
            assert!(
                matches!(got.get(1), Some(Incoming::Request(ToBridge::Stop { server })) if server == "é")
            );
            assert!(matches!(got.get(2), Some(Incoming::Closed(None))), "cut {cut}");
        }
    }

    #[tokio::test]
    async fn a_truncated_frame_and_a_bad_message_are_reported() {
        let mut bytes = Vec::new();
        bytes.extend_from_slice(&4u32.to_ne_bytes());
        bytes.extend_from_slice(b"nope");
        bytes.extend_from_slice(&10u32.to_ne_bytes());
        bytes.extend_from_slice(b"{}");
        let (tx, mut rx) = mpsc::channel(8);
        read_all(tokio_test_reader(vec![bytes]), tx).await;
        assert!(matches!(
            rx.recv().await,
            Some(Incoming::Unreadable(BridgeError::BadRequest { .. }))
        ));
        assert!(matches!(
            rx.recv().await,
            Some(Incoming::Closed(Some(BridgeError::BadRequest { .. })))
        ));
    }

    #[tokio::test]
    async fn an_oversized_length_ends_the_input() {
        let bytes = ((MAX_FROM_EXTENSION + 1) as u32).to_ne_bytes().to_vec();
        let (tx, mut rx) = mpsc::channel(8);
        read_all(tokio_test_reader(vec![bytes]), tx).await;
        assert!(matches!(
            rx.recv().await,
            Some(Incoming::Closed(Some(BridgeError::BadRequest { .. })))
        ));
    }

    #[tokio::test]
    async fn large_messages_go_out_as_chunks_within_the_cap() {
        let (tx, rx) = mpsc::channel(4);
        let big = "x\"".repeat(MAX_TO_EXTENSION);
        tx.send(FromBridge::Log { server: "s".into(), text: big.clone(), truncated: false })
            .await
            .unwrap();
        drop(tx);
        let mut out = Vec::new();
        write_all(&mut out, rx).await;
        let mut joiner = gemipanel_core::native::chunk::Reassembler::new(16 << 20, 2);
        let mut rest = &out[..];
        let mut whole = None;
        let mut frames = 0;
        while !rest.is_empty() {
            let (len, tail) = rest.split_at(4);
            let len = u32::from_ne_bytes(len.try_into().unwrap()) as usize;
            assert!(len <= MAX_TO_EXTENSION);
            let (frame, tail) = tail.split_at(len);
            rest = tail;
            frames += 1;
            whole = joiner.receive(serde_json::from_slice(frame).unwrap()).unwrap().or(whole);
        }
        assert!(frames >= 4, "{frames} frames");
        assert_eq!(
            whole,
            Some(FromBridge::Log { server: "s".into(), text: big, truncated: false })
        );
    }

    /// A reader that returns the given pieces one read at a time.
    fn tokio_test_reader(pieces: Vec<Vec<u8>>) -> impl AsyncRead + Unpin {
        let mut builder = tokio_test::io::Builder::new();
        for piece in pieces.into_iter().filter(|p| !p.is_empty()) {
            builder.read(&piece);
        }
        builder.build()
    }
}
