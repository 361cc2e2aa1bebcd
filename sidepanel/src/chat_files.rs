//! Export and import of saved chats: reads them from `chats_store`, has core make or read the
//! file (`core::chats::{archive, markdown}`) and hands it over (`download`). Errors come back
//! worded in the person's language.

use std::collections::HashSet;

use gemipanel_browser::chrome::{message, word};
use gemipanel_core::chats::{archive, markdown};

use crate::chats_store;
use crate::components::history_list::ExportAsked;
use crate::state::ChatSummary;

fn now_ms() -> u64 {
    js_sys::Date::now() as u64
}

pub async fn export(asked: ExportAsked) -> Result<(), String> {
    let download = match asked {
        ExportAsked::Chat { id, markdown: as_markdown } => {
            let chat = chats_store::load(&id).await.map_err(|e| e.to_string())?;
            if as_markdown {
                markdown::chat_markdown(&chat).map_err(|t| word(&t))?
            } else {
                markdown::chat_json(&chat, now_ms())
            }
        }
        ExportAsked::All { markdown: as_markdown } => {
            let chats = chats_store::all().await.map_err(|e| e.to_string())?;
            if as_markdown {
                markdown::all_markdown(&chats, now_ms()).map_err(|t| word(&t))?
            } else {
                markdown::all_json(chats, now_ms())
            }
        }
    };
    crate::download::save(&download)
}

/// Reads the file and saves its chats; the new index and what to tell the person.
pub async fn import(file: web_sys::File) -> Result<(Vec<ChatSummary>, String), String> {
    let text = crate::download::read_text(file).await.map_err(|t| word(&t))?;
    let taken: HashSet<String> =
        chats_store::list().await.map_err(|e| e.to_string())?.into_iter().map(|c| c.id).collect();
    let imported =
        archive::import(&text, &taken, &mut crate::app::new_chat_id).map_err(|t| word(&t))?;
    let count = imported.chats.len().to_string();
    let index = chats_store::import(imported.chats).await.map_err(|e| e.to_string())?;
    let said = if imported.new_ids == 0 {
        message("panelImported", &[&count])
    } else {
        message("panelImportedNewIds", &[&count, &imported.new_ids.to_string()])
    };
    Ok((index, said))
}
