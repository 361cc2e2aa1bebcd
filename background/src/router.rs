//! Turns each page request into a response.

use gemipanel_browser::chrome;
use gemipanel_core::messages::{Request, Response, WorkerStatus};

pub async fn route(request: Request) -> Response {
    match request {
        Request::Status => status().await,
        other => {
            Response::Error { message: format!("not supported by this worker yet: {other:?}") }
        }
    }
}

async fn status() -> Response {
    let configured_servers = match configured_servers().await {
        Ok(count) => count,
        Err(message) => return Response::Error { message },
    };
    Response::Status(WorkerStatus {
        extension_version: chrome::extension_version(),
        uptime_ms: crate::uptime_ms(),
        configured_servers,
    })
}

async fn configured_servers() -> Result<u32, String> {
    let settings = chrome::local_get("settings").await.map_err(|e| e.to_string())?;
    if !settings.is_object() {
        return Ok(0);
    }
    let servers = js_sys::Reflect::get(&settings, &"servers".into()).unwrap_or_default();
    // Only an array counts; a stored document of another shape is not ours to interpret here.
    Ok(if js_sys::Array::is_array(&servers) { js_sys::Array::from(&servers).length() } else { 0 })
}
