//! The panel's files: a download of bytes core made, and the text of a chats file to import.

use gemipanel_browser::files::{self, PickedFileError};
use gemipanel_core::chats::archive::MAX_BYTES;
use gemipanel_core::chats::markdown::Download;
use gemipanel_core::text::Text;

/// Offers `download` to the person as a file.
pub fn save(download: &Download) -> Result<(), String> {
    files::save_bytes(&download.file_name, download.mime_type, &download.bytes)
}

/// The text of the picked file, refusing one too large to be a chats file before reading it.
pub async fn read_text(file: web_sys::File) -> Result<String, Text> {
    files::read_text(file, MAX_BYTES).await.map_err(|error| match error {
        PickedFileError::TooLarge => Text::new("importTooBig").arg(MAX_BYTES / (1024 * 1024)),
        PickedFileError::Unreadable => Text::new("importUnreadableFile"),
    })
}
