//! The only crate that touches extension APIs.
//!
//! `chrome.*` bindings, the typed messaging between pages and the worker, and (later) the
//! fetch-based HTTP transport. Everything here is a thin adapter over `gemipanel-core` types.

pub mod app_frame;
pub mod channel;
pub mod chrome;
mod chrome_options;
pub mod early;
mod error;
pub mod files;
pub mod gemini_http;
pub mod gemini_models;
pub mod gemini_upload;
pub mod http;
pub mod keys;
pub mod locks;
pub mod messaging;
pub mod page;
pub mod port;
pub mod timers;
pub mod vault;

pub use error::BrowserError;

use gemipanel_core::messages::{UptimeUnit, WorkerStatus};

/// The one-line description of the worker that both pages show, in the user's language.
pub fn worker_status_text(status: &WorkerStatus) -> String {
    let (amount, unit) = status.uptime();
    let key = match unit {
        UptimeUnit::Seconds => "uptimeSeconds",
        UptimeUnit::Minutes => "uptimeMinutes",
        UptimeUnit::Hours => "uptimeHours",
    };
    let uptime = chrome::message(key, &[&amount.to_string()]);
    let servers = status.configured_servers as usize;
    let line = chrome::counted_message(
        "workerStatusLine",
        servers,
        &[&status.extension_version, &uptime, &servers.to_string()],
    );
    match status.vault {
        gemipanel_core::vault::VaultState::Locked => {
            format!("{line} · {}", chrome::message("workerSecretsLocked", &[]))
        }
        _ => line,
    }
}
