//! The settings requests of the pages: edits, exports, and recovering from a document that could
//! not be read. Import previews are made by the popup from the document it reads.

use gemipanel_core::messages::{Recovery, Response};
use gemipanel_core::settings::{self, Export, ExportOptions, SettingsEdit};

use crate::{auth, registry, store};

pub async fn edit(edit: SettingsEdit) -> Response {
    let removed = match &edit {
        SettingsEdit::RemoveServer { id } => Some(id.clone()),
        _ => None,
    };
    // Read before the removal blanks them (in the same write as the server): to revoke.
    let credentials = match &removed {
        Some(id) => auth::stored_credentials(id).await,
        None => None,
    };
    let confirmed = match &edit {
        SettingsEdit::ConfirmCommand { id, .. } => Some(id.clone()),
        _ => None,
    };
    match store::edit(edit).await {
        Ok(settings) => {
            // A removed or changed server's client (and subscription) goes at once.
            registry::retain(&settings.servers);
            if let Some(id) = removed {
                registry::forget_tools(&id).await;
                wasm_bindgen_futures::spawn_local(async move {
                    auth::forget(id.as_str(), credentials).await;
                });
            }
            // A command the person just allowed starts now: its status and tools follow as
            // events, whether or not a page lists the servers again.
            if let Some(server) = confirmed.and_then(|id| settings.server(&id).cloned()) {
                wasm_bindgen_futures::spawn_local(async move {
                    let _ = registry::fetch_tools(&server, true).await;
                });
            }
            Response::Settings { settings: settings.for_pages() }
        }
        Err(error) => Response::Error { error },
    }
}

/// Exports are made here, where the secrets are: the pages never see header values. With
/// secrets locked, only an export without them.
pub async fn export(include_secrets: bool) -> Response {
    if include_secrets && crate::vault::is_locked().await {
        return Response::Error { error: gemipanel_core::text::Text::new("errVaultLocked") };
    }
    match store::read().await {
        Ok(doc) => {
            Response::Exported { export: settings::export(&doc, ExportOptions { include_secrets }) }
        }
        Err(error) => Response::Error { error },
    }
}

pub async fn recover(action: Recovery) -> Response {
    match store::recover(action).await {
        Ok(Some(text)) => Response::Exported {
            export: Export { text, urls_shortened: Vec::new(), args_blanked: Vec::new() },
        },
        Ok(None) => match store::read().await {
            Ok(settings) => Response::Settings { settings: settings.for_pages() },
            Err(error) => Response::Error { error },
        },
        Err(error) => Response::Error { error },
    }
}
