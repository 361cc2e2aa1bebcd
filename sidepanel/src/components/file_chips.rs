use std::rc::Rc;

use gemipanel_browser::chrome::message;
use gemipanel_core::gemini::attachments::{size_words, AttachmentKind};
use yew::prelude::*;

use crate::files::{PickedFile, UploadView};

#[derive(Properties, PartialEq)]
pub struct Props {
    pub files: Vec<Rc<PickedFile>>,
    pub on_remove: Callback<u32>,
}

/// The files waiting for the next message: a thumbnail for an image, else an icon of its kind,
/// with its name, media type and size; each removable with its button (Tab, then Enter).
#[function_component]
pub fn FileChips(props: &Props) -> Html {
    if props.files.is_empty() {
        return Html::default();
    }
    let chips = props.files.iter().map(|file| {
        let id = file.id;
        let onclick = props.on_remove.reform(move |_: MouseEvent| id);
        let detail = format!("{} · {}", file.mime_type, file.size_words());
        let label = message("panelFileChip", &[&file.name, &file.mime_type, &file.size_words()]);
        let remove = message("panelRemoveFile", &[&file.name]);
        html! {
            <li class="chip file-chip" data-testid="file-chip" data-kind={kind_name(file.kind)}
                title={label}>
                if let Some(src) = file.preview.clone() {
                    <img class="thumb" {src} alt="" width="28" height="28" />
                } else {
                    <span class="thumb icon" aria-hidden="true">{ icon(file.kind) }</span>
                }
                <span class="file-meta">
                    <span class="chip-title">{ file.name.clone() }</span>
                    <span class="file-detail">{ detail }</span>
                </span>
                <button type="button" class="remove" {onclick} aria-label={remove.clone()}
                    title={remove} data-testid="remove-file">{ "×" }</button>
            </li>
        }
    });
    html! { <ul class="file-chips" data-testid="file-chips">{ for chips }</ul> }
}

fn kind_name(kind: AttachmentKind) -> &'static str {
    match kind {
        AttachmentKind::Image => "image",
        AttachmentKind::Pdf => "pdf",
        AttachmentKind::Audio => "audio",
        AttachmentKind::Text => "text",
    }
}

fn icon(kind: AttachmentKind) -> &'static str {
    match kind {
        AttachmentKind::Image => "IMG",
        AttachmentKind::Pdf => "PDF",
        AttachmentKind::Audio => "AUDIO",
        AttachmentKind::Text => "TXT",
    }
}

#[derive(Properties, PartialEq)]
pub struct ProgressProps {
    pub progress: UploadView,
    pub on_cancel: Callback<()>,
}

/// A file uploading to the Files API: how far, and Cancel (the message is then not sent).
#[function_component]
pub fn UploadProgress(props: &ProgressProps) -> Html {
    let UploadView { name, sent, total } = &props.progress;
    let words = message("panelUploading", &[name, &size_words(*sent), &size_words(*total)]);
    let onclick = props.on_cancel.reform(|_: MouseEvent| ());
    html! {
        <div class="upload" data-testid="upload" role="status">
            <span class="upload-words">{ words.clone() }</span>
            <progress max={total.to_string()} value={sent.to_string()} aria-label={words}
                data-testid="upload-progress" />
            <button type="button" class="cancel-upload" {onclick} data-testid="cancel-upload">
                { message("panelCancelUpload", &[]) }</button>
        </div>
    }
}
