//! `GET /v1beta/models` for the pages' model pickers, all pages of it, and the last list kept in
//! `chrome.storage.local` (`KnownModels`) so the pickers and the automatic default work offline.
//! Both pages write it, with the same content for the same address.

use std::time::Duration;

use gemipanel_core::gemini::{
    chat_models, list_error, list_models_path, token_count_label, KnownModels, ListModelsResponse,
    ModelInfo, MAX_LIST_BYTES, MAX_LIST_PAGES,
};
use gemipanel_core::mcp::{HttpRequest, Method, ResponseBody};
use gemipanel_core::settings::{GeminiSettings, ListedModels, Secret};
use wasm_bindgen::JsValue;

use crate::{chrome, http, timers};
use gemipanel_core::sync::within;

/// For all pages together.
const TIMEOUT: Duration = Duration::from_secs(30);

/// The chat models `key` can use (the stored key when `None`), from the API `gemini` points at,
/// kept for the next time as that key's list.
pub async fn list_models(
    gemini: &GeminiSettings,
    key: Option<Secret>,
) -> Result<Vec<ModelInfo>, String> {
    let Some(key) = key.or_else(|| gemini.api_key.clone()).filter(|k| !k.is_empty()) else {
        return Err("enter a Gemini API key first".into());
    };
    let deadline = timers::sleep(TIMEOUT);
    let listed = within(fetch_all(gemini.api_base(), &key), deadline).await.unwrap_or_else(|| {
        Err(format!("the Gemini API did not answer within {} s", TIMEOUT.as_secs()))
    });
    // Never echo the key, even if a server put it in its message.
    let models = listed.map_err(|message| message.replace(key.expose(), "…"))?;
    keep_models(gemini, &key, &models).await;
    Ok(models)
}

/// The last list kept for the API address `gemini` points at and its key.
pub async fn known_models(gemini: &GeminiSettings) -> Option<Vec<ModelInfo>> {
    let text = chrome::local_get(KnownModels::STORAGE_KEY).await.ok()?.as_string()?;
    // A kept list that no longer reads is as good as none: the next list replaces it.
    let key = gemini.api_key.as_ref().map(Secret::expose);
    serde_json::from_str::<KnownModels>(&text).ok()?.for_source(gemini.api_base(), key)
}

/// Keeps `models`, listed with `key` from the address `gemini` points at, for the next time.
async fn keep_models(gemini: &GeminiSettings, key: &Secret, models: &[ModelInfo]) {
    let known = KnownModels::new(gemini.api_base(), key.expose(), http::now_ms(), models.to_vec());
    if let Ok(text) = serde_json::to_string(&known) {
        let _ = chrome::local_set(KnownModels::STORAGE_KEY, &JsValue::from_str(&text)).await;
    }
}

/// The lists a page shows for `gemini`, in turn: the one kept from last time at once (offline,
/// or until the API answers), then the live one. Either may be missing.
pub async fn each_model_list(gemini: &GeminiSettings, mut show: impl FnMut(ListedModels)) {
    let listed = |models| ListedModels { source: gemini.model_source(), models };
    if let Some(models) = known_models(gemini).await {
        show(listed(models));
    }
    if let Ok(models) = list_models(gemini, None).await {
        show(listed(models));
    }
}

async fn fetch_all(base: &str, key: &Secret) -> Result<Vec<ModelInfo>, String> {
    let mut all = Vec::new();
    let mut token: Option<String> = None;
    for _ in 0..MAX_LIST_PAGES {
        let page =
            fetch_page(&format!("{base}{}", list_models_path(token.as_deref())), key).await?;
        all.extend(page.models);
        token = page.next_page_token.filter(|t| !t.is_empty());
        if token.is_none() {
            break;
        }
    }
    Ok(chat_models(&all).map(ModelInfo::from).collect())
}

async fn fetch_page(url: &str, key: &Secret) -> Result<ListModelsResponse, String> {
    let request = HttpRequest {
        method: Method::Get,
        url: url.to_owned(),
        headers: vec![("x-goog-api-key".into(), key.expose().to_owned())],
        body: None,
    };
    let mut response = http::send(request).await.map_err(|e| {
        if e.is_redirect() {
            "the Gemini API address answered with a redirect, which GemiPanel does not follow \
             (your key would go with it); set the address it redirects to"
                .to_owned()
        } else {
            format!("could not reach the Gemini API: {e}")
        }
    })?;
    let mut body = Vec::new();
    while let Some(chunk) = response.body.next_chunk().await.map_err(|e| e.to_string())? {
        body.extend_from_slice(&chunk);
        if body.len() > MAX_LIST_BYTES {
            return Err("the Gemini API sent a model list larger than 4 MB".into());
        }
    }
    if response.status != 200 {
        return Err(list_error(response.status, &body));
    }
    serde_json::from_slice(&body)
        .map_err(|e| format!("the Gemini API sent an unreadable model list: {e}"))
}

/// A model as a picker's option shows it: "Gemini 3.8 Flash · 1M tokens".
pub fn option_label(model: &ModelInfo) -> String {
    match model.input_token_limit {
        Some(limit) => {
            chrome::message("modelOption", &[&model.display_name, &token_count_label(limit)])
        }
        None => model.display_name.clone(),
    }
}
