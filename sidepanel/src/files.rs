//! Files the person picked, dropped or pasted into the composer: each checked by core
//! (`attachments::accept`) as it arrives, kept as the browser's `File` (its bytes are read or
//! uploaded only when the message is sent), with a thumbnail address for an image.

use std::rc::Rc;

use gemipanel_browser::chrome::word;
use gemipanel_core::gemini::attachments::{accept, size_words, AttachmentKind};

/// A file waiting in the composer.
#[derive(Debug, Clone, PartialEq)]
pub struct PickedFile {
    /// Unique in this panel: removing one chip removes only that file.
    pub id: u32,
    pub name: String,
    /// The media type the model reads it as.
    pub mime_type: String,
    pub kind: AttachmentKind,
    pub size: u64,
    pub file: web_sys::File,
    /// An object URL of an image, for its thumbnail.
    pub preview: Option<String>,
}

impl PickedFile {
    /// "report.pdf · 1.2 MB".
    pub fn size_words(&self) -> String {
        size_words(self.size)
    }
}

/// An upload in progress, for the progress bar.
#[derive(Debug, Clone, PartialEq)]
pub struct UploadView {
    pub name: String,
    pub sent: u64,
    pub total: u64,
}

/// The files the model can read, and words for each it cannot.
pub fn pick(files: Vec<web_sys::File>, next_id: &mut u32) -> (Vec<Rc<PickedFile>>, Vec<String>) {
    let (mut picked, mut refused) = (Vec::new(), Vec::new());
    for file in files {
        let (name, size) = (file.name(), file.size() as u64);
        match accept(&file.type_(), &name, size) {
            Ok((kind, mime_type)) => {
                *next_id += 1;
                let preview = (kind == AttachmentKind::Image)
                    .then(|| web_sys::Url::create_object_url_with_blob(&file).ok())
                    .flatten();
                picked.push(Rc::new(PickedFile {
                    id: *next_id,
                    name,
                    mime_type: mime_type.to_owned(),
                    kind,
                    size,
                    file,
                    preview,
                }));
            }
            Err(text) => refused.push(word(&text)),
        }
    }
    (picked, refused)
}

/// Lets the thumbnail's object URL go once its chip is gone.
pub fn release(file: &PickedFile) {
    if let Some(url) = &file.preview {
        let _ = web_sys::Url::revoke_object_url(url);
    }
}

/// The files of a `FileList` (the picker's, a drop's, a paste's).
pub fn from_list(list: Option<web_sys::FileList>) -> Vec<web_sys::File> {
    let Some(list) = list else { return Vec::new() };
    (0..list.length()).filter_map(|i| list.item(i)).collect()
}
