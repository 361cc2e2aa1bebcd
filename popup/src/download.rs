//! The popup's files: the settings export download and the text of the chosen import file.

use gemipanel_browser::chrome::message;
use gemipanel_browser::files::{self, PickedFileError};
use gemipanel_core::settings::MAX_IMPORT_BYTES;

/// Offers `text` as a JSON file download named `name`.
pub fn save_text(name: &str, text: &str) -> Result<(), String> {
    files::save_bytes(name, "application/json", text.as_bytes())
}

/// Reads the file the person picked, refusing files too large to be a settings file.
pub async fn read_text(file: web_sys::File) -> Result<String, String> {
    files::read_text(file, MAX_IMPORT_BYTES).await.map_err(|error| match error {
        PickedFileError::TooLarge => {
            message("popupImportTooLarge", &[&(MAX_IMPORT_BYTES / 1024).to_string()])
        }
        PickedFileError::Unreadable => message("popupImportUnreadable", &[]),
    })
}
