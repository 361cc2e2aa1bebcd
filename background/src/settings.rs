//! The settings edits of the pages. Import previews and exports are made by the popup itself
//! from the document it reads (keeping the import parsers out of the worker's wasm).

use gemipanel_core::messages::Response;
use gemipanel_core::settings::SettingsEdit;

use crate::{registry, store};

pub async fn edit(edit: SettingsEdit) -> Response {
    match store::edit(edit).await {
        Ok(settings) => {
            // A removed server's client (and subscription) goes at once.
            let ids: Vec<_> = settings.servers.iter().map(|s| s.id.clone()).collect();
            registry::retain(&ids);
            Response::Settings { settings }
        }
        Err(message) => Response::Error { message },
    }
}
