//! The settings requests of the pages: read, edit, import preview, export.

use gemipanel_browser::chrome;
use gemipanel_core::messages::{ImportPreviewView, Response};
use gemipanel_core::settings::{
    export, preview_import, ExportOptions, ImportSource, Settings, SettingsEdit,
};

use crate::store;

pub async fn edit(edit: SettingsEdit) -> Response {
    match store::edit(edit).await {
        Ok(settings) => Response::Settings { settings },
        Err(message) => Response::Error { message },
    }
}

pub fn preview(settings: &Settings, text: &str) -> Response {
    let seed = match chrome::random_bytes::<16>() {
        Ok(seed) => seed,
        Err(err) => return Response::Error { message: err.to_string() },
    };
    let preview = match preview_import(text, settings, seed) {
        Ok(preview) => preview,
        Err(err) => return Response::Error { message: err.to_string() },
    };
    let source = match preview.source {
        ImportSource::GemiPanel => "GemiPanel",
        ImportSource::GeminiCli => "gemini-cli",
        ImportSource::ClaudeDesktop => "Claude Desktop",
        ImportSource::McpServers => "mcpServers",
    };
    let view = ImportPreviewView {
        source: source.to_owned(),
        added: preview.added.clone(),
        updated: preview.updated.clone(),
        skipped: preview.skipped.iter().map(|s| (s.name.clone(), s.reason.clone())).collect(),
        warnings: preview.warnings.clone(),
        sets_api_key: preview.api_key.is_some(),
        model: preview.model.clone(),
        edit: preview.into_edit(),
    };
    Response::ImportPreview { preview: view }
}

pub fn export_json(settings: &Settings, include_secrets: bool) -> Response {
    Response::Exported { json: export(settings, ExportOptions { include_secrets }) }
}
