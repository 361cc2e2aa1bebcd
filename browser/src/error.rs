use wasm_bindgen::JsValue;

/// Failure of a browser API call or of a message exchange with the worker.
#[derive(Debug, Clone, PartialEq)]
pub struct BrowserError {
    message: String,
}

impl BrowserError {
    pub fn new(message: impl Into<String>) -> Self {
        Self { message: message.into() }
    }

    /// Wraps an exception thrown by a browser API, naming what was being done.
    pub fn from_js(doing: &str, err: JsValue) -> Self {
        use wasm_bindgen::JsCast;
        let detail = err
            .dyn_ref::<js_sys::Error>()
            .and_then(|e| e.message().as_string())
            .or_else(|| err.as_string())
            .unwrap_or_else(|| format!("{err:?}"));
        Self::new(format!("{doing}: {detail}"))
    }

    pub fn message(&self) -> &str {
        &self.message
    }
}

impl std::fmt::Display for BrowserError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for BrowserError {}
