//! The files a message carries, made ready before it is sent: those that fit inline read as
//! base64, the others uploaded with the Files API's resumable protocol (core's `Upload` plan,
//! one request at a time, the progress shown). Stop or Cancel aborts an upload, and the message
//! is not sent.

use std::rc::Rc;

use gemipanel_browser::chrome::{message, word};
use gemipanel_browser::gemini_http::Abort;
use gemipanel_browser::gemini_upload::{read_base64, send};
use gemipanel_core::gemini::attachments::{
    file_parts, routes, size_words, Route, Sent, Upload, UploadStep,
};
use gemipanel_core::gemini::{Error, Part};
use gemipanel_core::page::context::{ContextKind, ContextLabel};

use super::Driver;
use crate::files::{PickedFile, UploadView};
use crate::state::Action;

/// How the files of a message ended up.
pub(super) enum Prepared {
    Ready {
        parts: Vec<Part>,
        labels: Vec<ContextLabel>,
    },
    /// Stopped by the person while uploading: words saying so.
    Cancelled(String),
    /// Words for the person.
    Failed(String),
}

impl Driver {
    /// Reads or uploads `files`; `request_bytes` is the rest of the request as sent.
    pub(super) async fn prepare_files(
        &self,
        files: &[Rc<PickedFile>],
        key: &str,
        api_base: &str,
        request_bytes: u64,
    ) -> Prepared {
        let sizes: Vec<_> = files.iter().map(|f| (f.kind, f.size)).collect();
        let routes = match routes(&sizes, request_bytes) {
            Ok(routes) => routes,
            Err(text) => return Prepared::Failed(word(&text)),
        };
        let (mut parts, mut labels) = (Vec::new(), Vec::new());
        for (file, route) in files.iter().zip(routes) {
            let sent = match route {
                Route::Inline => match read_base64(&file.file).await {
                    Ok(data) => Sent::Inline(data),
                    Err(e) => {
                        return Prepared::Failed(message(
                            "errAttachmentRead",
                            &[&file.name, e.message()],
                        ))
                    }
                },
                Route::Upload => match self.upload(file, key, api_base).await {
                    Ok(sent) => sent,
                    Err(done) => return done,
                },
            };
            parts.extend(file_parts(&file.name, &file.mime_type, &sent));
            labels.push(ContextLabel {
                kind: ContextKind::File,
                title: file.name.clone(),
                url: format!("{}, {}", file.mime_type, size_words(file.size)),
                server_id: None,
            });
        }
        Prepared::Ready { parts, labels }
    }

    async fn upload(&self, file: &PickedFile, key: &str, api_base: &str) -> Result<Sent, Prepared> {
        let abort = Rc::new(Abort::new().map_err(|e| failed(file, e.message()))?);
        self.0.borrow_mut().upload_abort = Some(abort.clone());
        let result = self.run_upload(file, key, api_base, &abort).await;
        self.0.borrow_mut().upload_abort = None;
        self.dispatch(Action::Uploading(None));
        result
    }

    async fn run_upload(
        &self,
        file: &PickedFile,
        key: &str,
        api_base: &str,
        abort: &Abort,
    ) -> Result<Sent, Prepared> {
        let mut upload = Upload::new(file.size, &file.mime_type, &file.name);
        let progress = |upload: &Upload| {
            let (sent, total) = upload.progress();
            Action::Uploading(Some(UploadView { name: file.name.clone(), sent, total }))
        };
        self.dispatch(progress(&upload));
        let stopped = |e: &gemipanel_browser::BrowserError| {
            if e.is_abort() {
                Prepared::Cancelled(message("panelUploadCancelled", &[&file.name]))
            } else {
                failed(file, e.message())
            }
        };
        let start = upload.start_request(api_base);
        let answer = send(&start, Some(key), &file.file, abort).await.map_err(|e| stopped(&e))?;
        if !(200..300).contains(&answer.status) {
            return Err(failed(file, &word(&Error::from_http(answer.status, &answer.body).text())));
        }
        upload
            .started(answer.upload_url.as_deref(), answer.granularity.as_deref())
            .map_err(|t| failed(file, &word(&t)))?;
        while let Some(request) = upload.next_request() {
            if self.0.borrow().stop_requested {
                return Err(Prepared::Cancelled(message("panelUploadCancelled", &[&file.name])));
            }
            let answer = send(&request, None, &file.file, abort).await.map_err(|e| stopped(&e))?;
            if !(200..300).contains(&answer.status) {
                return Err(failed(
                    file,
                    &word(&Error::from_http(answer.status, &answer.body).text()),
                ));
            }
            match upload.chunk_sent(answer.upload_status.as_deref(), &answer.body) {
                Ok(UploadStep::More) => self.dispatch(progress(&upload)),
                Ok(UploadStep::Done(uploaded)) => {
                    self.dispatch(progress(&upload));
                    return Ok(Sent::Uploaded(uploaded));
                }
                Err(text) => return Err(failed(file, &word(&text))),
            }
        }
        Err(failed(file, &message("errUploadUnexpected", &[])))
    }
}

fn failed(file: &PickedFile, why: &str) -> Prepared {
    Prepared::Failed(message("errUploadFailed", &[&file.name, why]))
}
