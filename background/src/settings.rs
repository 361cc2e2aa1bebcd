//! The settings edits of the pages. Import previews and exports are made by the popup itself
//! from the document it reads (keeping the import parsers out of the worker's wasm).

use gemipanel_core::messages::Response;
use gemipanel_core::settings::SettingsEdit;

use crate::{registry, store};

pub async fn edit(edit: SettingsEdit) -> Response {
    match store::edit(edit).await {
        Ok(settings) => {
            // A removed or changed server's client (and subscription) goes at once.
            registry::retain(&settings.servers);
            Response::Settings { settings }
        }
        Err(message) => Response::Error { message },
    }
}
