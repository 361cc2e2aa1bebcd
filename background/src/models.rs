//! `ListModels`: the Gemini models a key can use, for the popup's model picker.

use std::time::Duration;

use gemipanel_browser::http;
use gemipanel_core::gemini::{chat_models, ListModelsResponse};
use gemipanel_core::mcp::{HttpRequest, Method, ResponseBody};
use gemipanel_core::messages::{ModelInfo, Response};
use gemipanel_core::settings::{Secret, Settings};

use crate::wait::within;

const DEFAULT_BASE: &str = "https://generativelanguage.googleapis.com";
/// More pages than any real key has; a server that keeps sending tokens is cut off.
const MAX_PAGES: usize = 20;
const MAX_BODY: usize = 4 << 20;
/// For all pages together.
const TIMEOUT: Duration = Duration::from_secs(30);

pub async fn list(settings: &Settings, api_key: Option<Secret>) -> Response {
    let Some(key) = api_key.or_else(|| settings.gemini.api_key.clone()).filter(|k| !k.is_empty())
    else {
        return Response::Error { message: "enter a Gemini API key first".into() };
    };
    let base = settings.gemini.base_url.as_deref().unwrap_or(DEFAULT_BASE).trim_end_matches('/');
    let listed = within(fetch_all(base, &key), TIMEOUT).await.unwrap_or_else(|| {
        Err(format!("the Gemini API did not answer within {} s", TIMEOUT.as_secs()))
    });
    match listed {
        // Never echo the key, even if a server put it in its message.
        Err(message) => Response::Error { message: message.replace(key.expose(), "…") },
        Ok(models) => Response::Models { models },
    }
}

async fn fetch_all(base: &str, key: &Secret) -> Result<Vec<ModelInfo>, String> {
    let mut all = Vec::new();
    let mut token: Option<String> = None;
    for _ in 0..MAX_PAGES {
        // The API's own page size; pages are followed below.
        let mut url = format!("{base}/v1beta/models");
        if let Some(token) = &token {
            url.push_str("?pageToken=");
            url.push_str(&encode(token));
        }
        let page = fetch_page(&url, key).await?;
        all.extend(page.models);
        token = page.next_page_token.filter(|t| !t.is_empty());
        if token.is_none() {
            break;
        }
    }
    Ok(chat_models(&all)
        .map(|m| ModelInfo {
            id: m.id().to_owned(),
            display_name: if m.display_name.is_empty() {
                m.id().to_owned()
            } else {
                m.display_name.clone()
            },
            supports_function_calling: m.supports_function_calling(),
        })
        .collect())
}

async fn fetch_page(url: &str, key: &Secret) -> Result<ListModelsResponse, String> {
    let request = HttpRequest {
        method: Method::Get,
        url: url.to_owned(),
        headers: vec![("x-goog-api-key".into(), key.expose().to_owned())],
        body: None,
    };
    let mut response =
        http::send(request).await.map_err(|e| format!("could not reach the Gemini API: {e}"))?;
    let mut body = Vec::new();
    while let Some(chunk) = response.body.next_chunk().await.map_err(|e| e.to_string())? {
        body.extend_from_slice(&chunk);
        if body.len() > MAX_BODY {
            return Err("the Gemini API sent a model list larger than 4 MB".into());
        }
    }
    if response.status != 200 {
        let message = serde_json::from_slice::<serde_json::Value>(&body)
            .ok()
            .and_then(|v| v.pointer("/error/message")?.as_str().map(str::to_owned))
            .unwrap_or_default();
        let hint = match response.status {
            400 | 401 | 403 => " — check the API key",
            429 => " — too many requests; try again in a minute",
            _ => "",
        };
        return Err(format!("the Gemini API answered HTTP {}: {message}{hint}", response.status));
    }
    serde_json::from_slice(&body)
        .map_err(|e| format!("the Gemini API sent an unreadable model list: {e}"))
}

/// Percent-encodes a page token for the query string.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
