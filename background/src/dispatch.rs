//! The one place the worker's events (`events::WorkerEvent`) are handled: each goes to the
//! module above the one that raised it.

use crate::events::WorkerEvent;
use crate::{listen, registry, settings_sync};

pub fn dispatch(event: WorkerEvent<'_>) {
    match event {
        WorkerEvent::ClientsChanged => listen::sync(),
        WorkerEvent::ProcessEnded { id, problem } => registry::process_ended(id, problem),
        WorkerEvent::SettingsEdited { before, after } => settings_sync::edited(before, after),
    }
}
