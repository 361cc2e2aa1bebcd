//! Files the person attaches to a message: which ones the model reads and as what media type,
//! whether each goes in the request (`inlineData`, base64) or through the Files API, and the
//! Files API's resumable upload as a plan the page carries out (no I/O here).
//!
//! Limits (https://ai.google.dev/gemini-api/docs/file-input-methods, raised on 2026-01-08 in
//! https://ai.google.dev/gemini-api/docs/changelog): a request with inline data may be 100 MB in
//! all, files, text and instructions together; a PDF inline at most 50 MB. The Files API takes
//! up to 2 GB per file and keeps it 48 hours (https://ai.google.dev/gemini-api/docs/files).

use serde::{Deserialize, Serialize};

use crate::text::Text;

/// A whole request with inline data, as sent.
pub const MAX_INLINE_REQUEST_BYTES: u64 = 100 * 1024 * 1024;
/// A PDF sent inline.
pub const MAX_INLINE_PDF_BYTES: u64 = 50 * 1024 * 1024;
/// A file uploaded with the Files API.
pub const MAX_FILE_BYTES: u64 = 2 * 1024 * 1024 * 1024;
/// The bytes of one upload request: the granularity the API answers with (8 MiB, observed as
/// `X-Goog-Upload-Chunk-Granularity`) and the chunk the google-genai SDK sends.
pub const UPLOAD_CHUNK_BYTES: u64 = 8 * 1024 * 1024;

/// What kind of file, as the model reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttachmentKind {
    Image,
    Pdf,
    Audio,
    Text,
}

/// The kind of a file and the media type to send it as, from what the browser says of it
/// (`File.type`, often empty for text files) and its name; `None` when the model reads no such
/// file. Media types from https://ai.google.dev/gemini-api/docs/image-understanding,
/// .../document-processing and .../audio; text of any kind goes as `text/plain`, the one text
/// type the document page names.
pub fn media_type(browser_type: &str, file_name: &str) -> Option<(AttachmentKind, &'static str)> {
    let essence = browser_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    let from_type = match essence.as_str() {
        "image/png" => Some((AttachmentKind::Image, "image/png")),
        "image/jpeg" | "image/jpg" => Some((AttachmentKind::Image, "image/jpeg")),
        "image/webp" => Some((AttachmentKind::Image, "image/webp")),
        "image/heic" => Some((AttachmentKind::Image, "image/heic")),
        "image/heif" => Some((AttachmentKind::Image, "image/heif")),
        "application/pdf" => Some((AttachmentKind::Pdf, "application/pdf")),
        "audio/wav" | "audio/x-wav" | "audio/wave" => Some((AttachmentKind::Audio, "audio/wav")),
        "audio/mp3" | "audio/mpeg" => Some((AttachmentKind::Audio, "audio/mp3")),
        "audio/aiff" | "audio/x-aiff" => Some((AttachmentKind::Audio, "audio/aiff")),
        "audio/aac" => Some((AttachmentKind::Audio, "audio/aac")),
        "audio/ogg" => Some((AttachmentKind::Audio, "audio/ogg")),
        "audio/flac" | "audio/x-flac" => Some((AttachmentKind::Audio, "audio/flac")),
        "application/json"
        | "application/xml"
        | "application/javascript"
        | "application/x-yaml" => Some((AttachmentKind::Text, "text/plain")),
        t if t.starts_with("text/") => Some((AttachmentKind::Text, "text/plain")),
        _ => None,
    };
    from_type.or_else(|| {
        // Browsers leave the type empty for many text files (.md, .rs, .toml, …).
        let extension = file_name.rsplit_once('.')?.1.to_ascii_lowercase();
        const TEXT: &[&str] = &[
            "txt", "md", "markdown", "csv", "tsv", "json", "yaml", "yml", "toml", "xml", "html",
            "css", "js", "ts", "py", "rs", "go", "java", "c", "h", "cpp", "sh", "log", "ini",
        ];
        TEXT.contains(&extension.as_str()).then_some((AttachmentKind::Text, "text/plain"))
    })
}

/// Whether the model can read a file the person picked, and as what: its kind and media type,
/// or words saying why not (a type the model does not read, an empty file, one larger than the
/// Files API takes).
pub fn accept(
    browser_type: &str,
    file_name: &str,
    size: u64,
) -> Result<(AttachmentKind, &'static str), Text> {
    let Some(found) = media_type(browser_type, file_name) else {
        return Err(Text::new("errAttachmentType").arg(file_name));
    };
    if size == 0 {
        return Err(Text::new("errAttachmentEmpty").arg(file_name));
    }
    if size > MAX_FILE_BYTES {
        return Err(Text::new("errAttachmentTooLarge").arg(MAX_FILE_BYTES / (1 << 30)));
    }
    Ok(found)
}

/// A size as a person reads it on a chip: bytes, then KB, MB and GB of 1024, one decimal below
/// ten. (Integers only: float formatting would cost the panel's wasm kilobytes.)
pub fn size_words(bytes: u64) -> String {
    const UNITS: [&str; 3] = ["KB", "MB", "GB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut unit = 0;
    let mut divisor: u64 = 1024;
    while unit + 1 < UNITS.len() && bytes >= divisor * 1024 {
        divisor *= 1024;
        unit += 1;
    }
    let tenths = bytes * 10 / divisor;
    if tenths < 100 {
        format!("{}.{} {}", tenths / 10, tenths % 10, UNITS[unit])
    } else {
        format!("{} {}", (bytes + divisor / 2) / divisor, UNITS[unit])
    }
}

/// How an attached file travels in the message, once read or uploaded.
#[derive(Debug, Clone, PartialEq)]
pub enum Sent {
    /// Its bytes as base64.
    Inline(String),
    Uploaded(UploadedFile),
}

/// The parts of the user message that carry a file: a line naming it (the model reads which
/// file is which, and a reopened chat's history says what was attached), then its data or its
/// uploaded file.
pub fn file_parts(name: &str, mime_type: &str, sent: &Sent) -> Vec<crate::gemini::Part> {
    use crate::gemini::Part;
    let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
    let label = Part::text(format!("[A file the person attached: “{name}” ({mime_type})]"));
    let data = match sent {
        Sent::Inline(data) => Part::inline_data(mime_type, data.clone()),
        Sent::Uploaded(file) => Part::file_data(mime_type, file.uri.clone()),
    };
    vec![label, data]
}

/// How a file reaches the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Route {
    /// Base64 in the request.
    Inline,
    /// Uploaded first, then named by its `uri`.
    Upload,
}

/// How many bytes `bytes` take as base64, as they travel inline.
pub fn base64_len(bytes: u64) -> u64 {
    bytes.div_ceil(3) * 4
}

/// The route of each file of a message, in order: inline while the request stays within
/// its limit (`request_bytes` is the rest of it as sent: the history, with the inline data of
/// earlier messages that goes again each time, the instructions and the tools), a PDF inline
/// only up to its own limit, the Files API otherwise. `Err` names the first file too large even
/// for the Files API, with words for the person.
pub fn routes(files: &[(AttachmentKind, u64)], request_bytes: u64) -> Result<Vec<Route>, Text> {
    let mut used = request_bytes;
    files
        .iter()
        .map(|&(kind, size)| {
            if size > MAX_FILE_BYTES {
                return Err(Text::new("errAttachmentTooLarge").arg(MAX_FILE_BYTES / (1 << 30)));
            }
            let fits = used.saturating_add(base64_len(size)) <= MAX_INLINE_REQUEST_BYTES;
            if fits && !(kind == AttachmentKind::Pdf && size > MAX_INLINE_PDF_BYTES) {
                used += base64_len(size);
                Ok(Route::Inline)
            } else {
                Ok(Route::Upload)
            }
        })
        .collect()
}

/// One HTTP request of an upload; the page adds the API key to the first (the session URL of
/// the others carries what it needs).
#[derive(Debug, Clone, PartialEq)]
pub struct UploadRequest {
    pub url: String,
    pub headers: Vec<(&'static str, String)>,
    pub body: UploadBody,
}

#[derive(Debug, Clone, PartialEq)]
pub enum UploadBody {
    Json(String),
    /// These bytes of the file.
    Bytes {
        offset: u64,
        len: u64,
    },
}

/// A file as the Files API describes it (https://ai.google.dev/api/files#File); int64 fields
/// come as strings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UploadedFile {
    pub name: String,
    pub uri: String,
    #[serde(default)]
    pub mime_type: String,
    /// `PROCESSING`, `ACTIVE` or `FAILED`: only an active file may be used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// RFC 3339; 48 hours after the upload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expiration_time: Option<String>,
}

#[derive(Deserialize)]
struct FinalAnswer {
    file: UploadedFile,
}

/// Where an upload stands after a request.
#[derive(Debug, Clone, PartialEq)]
pub enum UploadStep {
    /// Send [`Upload::next_request`].
    More,
    Done(UploadedFile),
}

/// The resumable upload of one file (the REST sample of https://ai.google.dev/gemini-api/docs/files):
/// a `start` request says the size and type and gets a session URL in `X-Goog-Upload-URL`; the
/// bytes follow in chunks at increasing `X-Goog-Upload-Offset`, the last one with
/// `upload, finalize`, whose answer is the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Upload {
    size: u64,
    mime_type: String,
    display_name: String,
    session: Option<String>,
    chunk: u64,
    sent: u64,
}

impl Upload {
    pub fn new(size: u64, mime_type: &str, display_name: &str) -> Self {
        Self {
            size,
            mime_type: mime_type.to_owned(),
            display_name: display_name.to_owned(),
            session: None,
            chunk: UPLOAD_CHUNK_BYTES,
            sent: 0,
        }
    }

    /// The first request, to `api_base` (Google's endpoint or the configured one).
    pub fn start_request(&self, api_base: &str) -> UploadRequest {
        let body = serde_json::json!({ "file": { "display_name": self.display_name } });
        UploadRequest {
            url: format!("{}/upload/v1beta/files", api_base.trim_end_matches('/')),
            headers: vec![
                ("X-Goog-Upload-Protocol", "resumable".into()),
                ("X-Goog-Upload-Command", "start".into()),
                ("X-Goog-Upload-Header-Content-Length", self.size.to_string()),
                ("X-Goog-Upload-Header-Content-Type", self.mime_type.clone()),
                ("Content-Type", "application/json".into()),
            ],
            body: UploadBody::Json(body.to_string()),
        }
    }

    /// The answer to the start: its `X-Goog-Upload-URL` and `X-Goog-Upload-Chunk-Granularity`
    /// headers. Chunks are whole multiples of the granularity.
    pub fn started(
        &mut self,
        upload_url: Option<&str>,
        granularity: Option<&str>,
    ) -> Result<(), Text> {
        let url = upload_url.map(str::trim).filter(|u| !u.is_empty());
        let Some(url) = url else { return Err(Text::new("errUploadNoSession")) };
        self.session = Some(url.to_owned());
        if let Some(g) = granularity.and_then(|g| g.trim().parse::<u64>().ok()).filter(|g| *g > 0) {
            self.chunk = UPLOAD_CHUNK_BYTES.div_ceil(g) * g;
        }
        Ok(())
    }

    /// The next chunk to send; `None` before the start was answered or once all was sent.
    pub fn next_request(&self) -> Option<UploadRequest> {
        let url = self.session.clone()?;
        if self.sent >= self.size && self.size > 0 {
            return None;
        }
        let len = self.chunk.min(self.size - self.sent);
        let last = self.sent + len >= self.size;
        let command = if last { "upload, finalize" } else { "upload" };
        Some(UploadRequest {
            url,
            headers: vec![
                ("X-Goog-Upload-Command", command.into()),
                ("X-Goog-Upload-Offset", self.sent.to_string()),
            ],
            body: UploadBody::Bytes { offset: self.sent, len },
        })
    }

    /// The answer to the chunk [`Self::next_request`] gave: its `X-Goog-Upload-Status` header
    /// and body (the file, once final).
    pub fn chunk_sent(&mut self, status: Option<&str>, body: &str) -> Result<UploadStep, Text> {
        let Some(request) = self.next_request() else {
            return Err(Text::new("errUploadUnexpected"));
        };
        if let UploadBody::Bytes { len, .. } = request.body {
            self.sent += len;
        }
        match status.map(str::trim) {
            Some("final") => serde_json::from_str::<FinalAnswer>(body)
                .map(|a| UploadStep::Done(a.file))
                .map_err(|e| Text::new("errUploadBadAnswer").arg(e)),
            Some("active") | None if self.sent < self.size => Ok(UploadStep::More),
            _ => Err(Text::new("errUploadUnexpected")),
        }
    }

    /// (bytes sent, bytes in all), for a progress bar.
    pub fn progress(&self) -> (u64, u64) {
        (self.sent, self.size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MB: u64 = 1024 * 1024;

    #[test]
    fn files_the_model_reads_get_the_documented_media_type() {
        use AttachmentKind::*;
        assert_eq!(media_type("image/png", "a.png"), Some((Image, "image/png")));
        assert_eq!(media_type("image/jpg", "a.jpg"), Some((Image, "image/jpeg")));
        assert_eq!(media_type("application/pdf", "a.pdf"), Some((Pdf, "application/pdf")));
        assert_eq!(media_type("audio/mpeg", "a.mp3"), Some((Audio, "audio/mp3")));
        assert_eq!(media_type("text/csv; charset=utf-8", "a.csv"), Some((Text, "text/plain")));
        assert_eq!(media_type("", "notes.MD"), Some((Text, "text/plain")), "no type: by name");
        assert_eq!(media_type("image/gif", "a.gif"), None, "not a documented image type");
        assert_eq!(media_type("", "archive.zip"), None);
        assert_eq!(media_type("", "no-extension"), None);
    }

    #[test]
    fn inline_while_the_request_fits_the_files_api_above() {
        // A file just under and just over the request's limit, as base64.
        let under = MAX_INLINE_REQUEST_BYTES / 4 * 3 - 3 * 1024;
        assert_eq!(routes(&[(AttachmentKind::Image, under)], 1024), Ok(vec![Route::Inline]));
        assert_eq!(
            routes(&[(AttachmentKind::Image, under + 6 * 1024)], 1024),
            Ok(vec![Route::Upload])
        );
        // A PDF has its own limit, below the request's.
        assert_eq!(
            routes(&[(AttachmentKind::Pdf, MAX_INLINE_PDF_BYTES)], 0),
            Ok(vec![Route::Inline])
        );
        assert_eq!(
            routes(&[(AttachmentKind::Pdf, MAX_INLINE_PDF_BYTES + 1)], 0),
            Ok(vec![Route::Upload])
        );
        // The first files take the room; the history sent again counts.
        assert_eq!(
            routes(
                &[
                    (AttachmentKind::Audio, 40 * MB),
                    (AttachmentKind::Image, 40 * MB),
                    (AttachmentKind::Text, MB)
                ],
                0
            ),
            Ok(vec![Route::Inline, Route::Upload, Route::Inline])
        );
        assert_eq!(
            routes(&[(AttachmentKind::Image, MB)], 99 * MB + MB / 2),
            Ok(vec![Route::Upload])
        );
        let too_large =
            routes(&[(AttachmentKind::Image, MB), (AttachmentKind::Audio, MAX_FILE_BYTES + 1)], 0)
                .unwrap_err();
        assert_eq!(too_large, Text::new("errAttachmentTooLarge").arg(2));
        assert_eq!(base64_len(0), 0);
        assert_eq!(base64_len(1), 4);
        assert_eq!(base64_len(3), 4);
        assert_eq!(base64_len(4), 8);
    }

    #[test]
    fn a_resumable_upload_starts_sends_chunks_and_finalizes() {
        let size = 2 * UPLOAD_CHUNK_BYTES + 5;
        let mut upload = Upload::new(size, "application/pdf", "report.pdf");
        assert_eq!(upload.next_request(), None, "nothing before the session");
        let start = upload.start_request("http://127.0.0.1:9/");
        assert_eq!(start.url, "http://127.0.0.1:9/upload/v1beta/files");
        assert!(start.headers.contains(&("X-Goog-Upload-Command", "start".into())));
        assert!(start.headers.contains(&("X-Goog-Upload-Header-Content-Length", size.to_string())));
        assert_eq!(
            start.body,
            UploadBody::Json(r#"{"file":{"display_name":"report.pdf"}}"#.into())
        );
        assert_eq!(upload.started(None, None), Err(Text::new("errUploadNoSession")));
        upload.started(Some("http://127.0.0.1:9/session?id=1"), Some("8388608")).unwrap();

        let mut seen = Vec::new();
        loop {
            let request = upload.next_request().unwrap();
            let command = request.headers[0].1.clone();
            let offset = request.headers[1].1.clone();
            seen.push((command.clone(), offset, request.body.clone()));
            let last = command == "upload, finalize";
            let body = r#"{"file": {"name": "files/abc", "uri": "http://127.0.0.1:9/v1beta/files/abc",
                "mimeType": "application/pdf", "state": "ACTIVE"}}"#;
            match upload.chunk_sent(Some(if last { "final" } else { "active" }), body).unwrap() {
                UploadStep::More => assert!(!last),
                UploadStep::Done(file) => {
                    assert!(last);
                    assert_eq!(file.uri, "http://127.0.0.1:9/v1beta/files/abc");
                    break;
                }
            }
        }
        let chunk = UPLOAD_CHUNK_BYTES;
        assert_eq!(
            seen,
            [
                ("upload".into(), "0".into(), UploadBody::Bytes { offset: 0, len: chunk }),
                (
                    "upload".into(),
                    chunk.to_string(),
                    UploadBody::Bytes { offset: chunk, len: chunk }
                ),
                (
                    "upload, finalize".into(),
                    (2 * chunk).to_string(),
                    UploadBody::Bytes { offset: 2 * chunk, len: 5 }
                ),
            ]
        );
        assert_eq!(upload.progress(), (size, size));
        assert_eq!(upload.next_request(), None);
    }

    #[test]
    fn an_uploaded_file_is_named_in_a_part_as_the_api_reads_it() {
        let part = crate::gemini::Part::file_data("application/pdf", "https://x/v1beta/files/abc");
        assert_eq!(
            serde_json::to_value(&part).unwrap(),
            serde_json::json!({"fileData": {"mimeType": "application/pdf", "fileUri": "https://x/v1beta/files/abc"}})
        );
        let back: crate::gemini::Part = serde_json::from_value(serde_json::json!(
            {"fileData": {"fileUri": "https://x/v1beta/files/abc"}}
        ))
        .unwrap();
        assert_eq!(
            back.file_data.map(|f| f.file_uri).as_deref(),
            Some("https://x/v1beta/files/abc")
        );
    }

    #[test]
    fn odd_granularity_and_bad_answers() {
        let mut upload = Upload::new(10 * MB, "audio/mp3", "a.mp3");
        upload.started(Some("http://x/s"), Some("3000000")).unwrap();
        let UploadBody::Bytes { len, .. } = upload.next_request().unwrap().body else {
            panic!("bytes")
        };
        assert_eq!(len % 3_000_000, 0, "a whole multiple of the granularity");
        assert!(len >= UPLOAD_CHUNK_BYTES);
        // The last chunk answered without the file.
        let mut small = Upload::new(5, "text/plain", "a.txt");
        small.started(Some("http://x/s"), None).unwrap();
        assert!(
            matches!(small.chunk_sent(Some("final"), "{}"), Err(t) if t.key == "errUploadBadAnswer")
        );
        let mut cut = Upload::new(5, "text/plain", "a.txt");
        cut.started(Some("http://x/s"), None).unwrap();
        assert_eq!(cut.chunk_sent(Some("active"), ""), Err(Text::new("errUploadUnexpected")));
    }

    #[test]
    fn a_picked_file_is_accepted_or_refused_in_words() {
        assert_eq!(accept("image/png", "a.png", 10), Ok((AttachmentKind::Image, "image/png")));
        assert_eq!(
            accept("image/gif", "a.gif", 10),
            Err(Text::new("errAttachmentType").arg("a.gif"))
        );
        assert_eq!(accept("", "a.zip", 10), Err(Text::new("errAttachmentType").arg("a.zip")));
        assert_eq!(
            accept("text/plain", "e.txt", 0),
            Err(Text::new("errAttachmentEmpty").arg("e.txt"))
        );
        assert_eq!(
            accept("application/pdf", "big.pdf", MAX_FILE_BYTES + 1),
            Err(Text::new("errAttachmentTooLarge").arg(2))
        );
    }

    #[test]
    fn sizes_in_words() {
        assert_eq!(size_words(0), "0 B");
        assert_eq!(size_words(1023), "1023 B");
        assert_eq!(size_words(1024), "1.0 KB");
        assert_eq!(size_words(1536), "1.5 KB");
        assert_eq!(size_words(50 * MB + 1), "50 MB");
        assert_eq!(size_words(3 * 1024 * MB), "3.0 GB");
    }

    #[test]
    fn a_file_travels_after_a_line_naming_it() {
        let inline = file_parts("cat\n.png", "image/png", &Sent::Inline("iVBO".into()));
        assert_eq!(
            serde_json::to_value(&inline).unwrap(),
            serde_json::json!([
                {"text": "[A file the person attached: “cat .png” (image/png)]"},
                {"inlineData": {"mimeType": "image/png", "data": "iVBO"}}
            ])
        );
        let file = UploadedFile {
            name: "files/abc".into(),
            uri: "https://x/v1beta/files/abc".into(),
            mime_type: "application/pdf".into(),
            state: Some("ACTIVE".into()),
            expiration_time: None,
        };
        let uploaded = file_parts("r.pdf", "application/pdf", &Sent::Uploaded(file));
        assert_eq!(
            serde_json::to_value(&uploaded[1]).unwrap(),
            serde_json::json!({"fileData": {"mimeType": "application/pdf", "fileUri": "https://x/v1beta/files/abc"}})
        );
    }
}
