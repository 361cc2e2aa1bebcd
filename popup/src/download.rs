//! Files in and out of the popup: the export download and reading the chosen import file.

use gemipanel_core::settings::MAX_IMPORT_BYTES;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// Offers `text` as a JSON file download named `name`.
pub fn save_text(name: &str, text: &str) -> Result<(), String> {
    let fail = |doing: &str| format!("could not save the file ({doing})");
    let parts = js_sys::Array::of1(&text.into());
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("application/json");
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options)
        .map_err(|_| fail("blob"))?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(|_| fail("url"))?;
    let document = web_sys::window().and_then(|w| w.document()).ok_or_else(|| fail("document"))?;
    let link: web_sys::HtmlAnchorElement = document
        .create_element("a")
        .map_err(|_| fail("link"))?
        .dyn_into()
        .map_err(|_| fail("link"))?;
    link.set_href(&url);
    link.set_download(name);
    link.click();
    // The object URL is not revoked: the download may still be reading it, and the popup's
    // short life frees it anyway.
    Ok(())
}

/// Reads the file the person picked, refusing files too large to be a settings file.
pub async fn read_text(file: web_sys::File) -> Result<String, String> {
    if file.size() > MAX_IMPORT_BYTES as f64 {
        return Err(gemipanel_browser::chrome::message(
            "popupImportTooLarge",
            &[&(MAX_IMPORT_BYTES / 1024).to_string()],
        ));
    }
    let text = JsFuture::from(file.text())
        .await
        .map_err(|_| gemipanel_browser::chrome::message("popupImportUnreadable", &[]))?;
    text.as_string().ok_or_else(|| gemipanel_browser::chrome::message("popupImportUnreadable", &[]))
}
