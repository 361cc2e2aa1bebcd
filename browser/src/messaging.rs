//! Conversion of the page↔worker messages to and from JS values, and the popup's one-shot
//! requests.

use gemipanel_core::json_pieces;
use gemipanel_core::messages::{ClientMessage, Request, Response, WorkerMessage};
use js_sys::{JsString, Reflect, Uint8Array};
use serde::{de::DeserializeOwned, Serialize};
use wasm_bindgen::prelude::*;

use crate::{chrome, BrowserError};

/// Serializes to a plain JS object (numbers stay numbers, maps become objects).
///
/// Through JSON text on purpose: every type then has one serializer (serde_json's) in the wasm
/// instead of a second one for `serde_wasm_bindgen`, which for the message types alone cost the
/// worker tens of kilobytes. Messages and storage hold only JSON values anyway.
pub fn to_js<T: Serialize>(value: &T) -> Result<JsValue, BrowserError> {
    let text = serde_json::to_string(value)
        .map_err(|e| BrowserError::new(format!("encoding a message: {e}")))?;
    js_sys::JSON::parse(&text).map_err(|e| BrowserError::from_js("encoding a message", e))
}

/// `value`'s JSON text as a JS string, written into it a piece at a time
/// (`core::json_pieces`): a document of megabytes (a long chat saved, a request that carries
/// its history) never takes one block of wasm memory.
pub fn to_js_text<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, serde_json::Error> {
    let pieces = js_sys::Array::new();
    json_pieces::write_json(value, |piece| {
        pieces.push(&JsValue::from_str(piece));
    })?;
    Ok(pieces.join("").into())
}

/// The inverse of [`to_js`], also through JSON text. `undefined` reads as `null`.
pub fn from_js<T: DeserializeOwned>(value: JsValue) -> Result<T, BrowserError> {
    // `catch`: stringify throws on cycles and BigInts, which no message or stored value has.
    let text = js_sys::JSON::stringify(&value)
        .map_err(|e| BrowserError::from_js("decoding a message", e))?
        .as_string()
        .unwrap_or_else(|| "null".to_owned());
    // `from_slice` like every other JSON read in the worker: `from_str` would compile a second
    // copy of serde_json's parser into it (~6 KB).
    serde_json::from_slice(text.as_bytes())
        .map_err(|e| BrowserError::new(format!("decoding a message: {e}")))
}

/// A record for JavaScript that is no JSON document (options of a browser API, what the side
/// panel and the app host module hand each other), made by serde-wasm-bindgen directly, maps as
/// plain objects. JSON documents (messages, storage, MCP results) go through [`to_js`], so that
/// what crosses is exactly what JSON would carry.
pub fn to_object<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, BrowserError> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| BrowserError::new(format!("encoding a record: {e}")))
}

/// The inverse of [`to_object`].
pub fn from_object<T: DeserializeOwned>(value: JsValue) -> Result<T, BrowserError> {
    serde_wasm_bindgen::from_value(value)
        .map_err(|e| BrowserError::new(format!("decoding a record: {e}")))
}

/// Decodes a message that came as JSON text (a page's fast lane, see [`crate::channel`]) or as
/// a JS object (a runtime port). Text skips building and walking a JS object on both sides.
pub fn from_text_or_js<T: DeserializeOwned>(value: JsValue) -> Result<T, BrowserError> {
    match value.as_string() {
        Some(text) => serde_json::from_slice(text.as_bytes())
            .map_err(|e| BrowserError::new(format!("decoding a message: {e}"))),
        None => from_js(value),
    }
}

/// A worker's message, as [`from_text_or_js`] decodes it, but with an app's HTML (hundreds of
/// KB, in `Response::App`) copied into wasm memory once, at its size. Read inside the JSON
/// text, it took three times that at once (the text, serde_json's scratch for the unescaped
/// string, the string), and a wasm module's memory keeps the most it ever held.
pub fn worker_message_from_js(value: JsValue) -> Result<WorkerMessage, BrowserError> {
    let object = match value.dyn_ref::<JsString>() {
        // Any other text goes straight to serde_json, exact: JSON.parse would round integers
        // past 2^53 and move keys that look like numbers first.
        Some(text) if !is_long_app_answer(text) => return from_text_or_js(value),
        // Parsed in JS: the text never enters wasm memory.
        Some(text) => {
            json_parse(text).map_err(|e| BrowserError::from_js("decoding a message", e))?
        }
        None => value,
    };
    let html = take_app_html(&object);
    let mut message: WorkerMessage = from_js(object)?;
    if let WorkerMessage::Response { response: Response::App { read }, .. } = &mut message {
        read.html = html.or(read.html.take());
    }
    Ok(message)
}

/// Whether a text message is an app's answer of 64 KB or more.
fn is_long_app_answer(text: &JsString) -> bool {
    text.length() >= 64 * 1024 && {
        let start = String::from(text.slice(0, WorkerMessage::APP_ANSWER_PREFIX_CHARS));
        WorkerMessage::is_app_answer(&start)
    }
}

/// Takes the HTML out of a `Response::App` message (as a JS object), as a string of its own.
fn take_app_html(message: &JsValue) -> Option<String> {
    let response = field(message, "response")?;
    if field(&response, "type")?.as_string().as_deref() != Some("app") {
        return None;
    }
    Some(exact_string(&take_text(&field(&response, "read")?, "html")?))
}

/// The string at `key` of a JS object, left there empty: a field of hundreds of KB that the
/// rest of the object is then read without.
pub fn take_text(object: &JsValue, key: &str) -> Option<JsString> {
    let text = field(object, key)?.dyn_into::<JsString>().ok()?;
    // `false`: a field that cannot change (never so from JSON); then it is read as any other.
    Reflect::set(object, &JsValue::from_str(key), &JsValue::from_str(""))
        .ok()
        .filter(|&set| set)?;
    Some(text)
}

fn field(object: &JsValue, key: &str) -> Option<JsValue> {
    Reflect::get(object, &JsValue::from_str(key)).ok()
}

/// A JS string as a Rust one, through UTF-8 bytes made in JS: one block of exactly its size.
/// (wasm-bindgen's own conversion reserves three bytes a character once it meets one that is
/// not ASCII, and apps' scripts have some.)
pub fn exact_string(text: &JsString) -> String {
    let bytes = TextEncoder::new().encode(text).to_vec();
    // A TextEncoder's output is UTF-8 (a lone surrogate becomes U+FFFD).
    String::from_utf8(bytes).unwrap_or_default()
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = JSON, js_name = parse, catch)]
    fn json_parse(text: &JsString) -> Result<JsValue, JsValue>;

    type TextEncoder;
    #[wasm_bindgen(constructor)]
    fn new() -> TextEncoder;
    #[wasm_bindgen(method)]
    fn encode(this: &TextEncoder, text: &JsString) -> Uint8Array;
}

/// Sends one request with `chrome.runtime.sendMessage` and waits for its answer (the popup's
/// way: it lives too briefly to hold a port).
pub async fn request_once(request: Request) -> Result<Response, BrowserError> {
    let id = 1;
    let message = to_js(&ClientMessage { id, request })?;
    let answer = chrome::send_message(&message).await?;
    if answer.is_undefined() {
        return Err(BrowserError::new("the worker gave no answer"));
    }
    match from_js::<WorkerMessage>(answer)? {
        WorkerMessage::Response { response, .. } => Ok(response),
        WorkerMessage::Event { .. } => Err(BrowserError::new("the worker answered with an event")),
    }
}

#[cfg(all(test, target_arch = "wasm32"))]
mod tests {
    use super::*;
    use gemipanel_core::messages::{Event, WorkerStatus};
    use wasm_bindgen_test::*;

    wasm_bindgen_test_configure!(run_in_browser);

    fn status() -> Response {
        Response::Status(WorkerStatus {
            extension_version: "1.2.3".into(),
            uptime_ms: 4_000_000_000,
            configured_servers: 3,
            vault: Default::default(),
        })
    }

    #[wasm_bindgen_test]
    fn worker_messages_survive_the_js_boundary() {
        let messages = [
            WorkerMessage::Response { id: 9, response: status() },
            WorkerMessage::Event { event: Event::WorkerStarted { extension_version: "1".into() } },
        ];
        for message in messages {
            let js = to_js(&message).unwrap();
            assert!(js.is_object());
            assert_eq!(from_js::<WorkerMessage>(js).unwrap(), message);
        }
    }

    /// Native messages are JSON documents, read and written as the worker's other ones (the
    /// worker's `local` module): a JSON-RPC id must stay an integer (`7`, not `7.0`), or the
    /// answer would match no request.
    #[wasm_bindgen_test]
    fn bridge_messages_decode_from_objects_as_from_json() {
        use gemipanel_core::native::wire::{FromBridge, ToBridge};
        let text = r#"{"type":"message","server":"s","message":{"jsonrpc":"2.0","id":7,"result":{"x":1.5}}}"#;
        let object = js_sys::JSON::parse(text).unwrap();
        let FromBridge::Message { message, .. } = from_js::<FromBridge>(object).unwrap() else {
            panic!("not a message")
        };
        assert_eq!(message["id"], serde_json::json!(7));
        assert!(message["id"].is_i64() || message["id"].is_u64());
        assert_eq!(message["result"]["x"], serde_json::json!(1.5));
        let stop = ToBridge::Stop { server: "s".into() };
        let js = to_js(&stop).unwrap();
        let back = js_sys::JSON::stringify(&js).unwrap().as_string().unwrap();
        assert_eq!(serde_json::from_str::<ToBridge>(&back).unwrap(), stop);
        let odd = js_sys::eval(r#"({type: "from_the_future", x: 1})"#).unwrap();
        assert!(from_js::<FromBridge>(odd).is_err());
    }

    /// Every module's stack is 256 KB (`.cargo/config.toml`). A hostile server's reply may be
    /// nested as deep as serde_json reads; unoptimised, as here, frames are larger than in the
    /// product.
    #[wasm_bindgen_test]
    fn json_as_deep_as_serde_json_reads_fits_the_stack() {
        use gemipanel_core::jsonrpc::Message;
        let nested = |depth: usize| {
            let value = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
            format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"a":{value}}}}}"#)
        };
        // With the envelope and the result, 127 levels: the most serde_json reads.
        let deepest = nested(125);
        let message = Message::parse(deepest.as_bytes()).expect("within serde_json's depth");
        assert_eq!(message.to_json(), deepest);
        assert_eq!(from_js::<Message>(to_js(&message).unwrap()).unwrap(), message);
        let object = from_object::<serde_json::Value>(to_object(&message).unwrap()).unwrap();
        assert_eq!(object.to_string(), deepest);
        assert!(Message::parse(nested(126).as_bytes()).is_err(), "past serde_json's depth");
    }

    /// An app's HTML arrives whole and unchanged, whichever way its message came.
    #[wasm_bindgen_test]
    fn an_app_read_decodes_alike_from_long_text_short_text_and_objects() {
        use gemipanel_core::apps::resource::AppRead;
        let app = |html: Option<String>| WorkerMessage::Response {
            id: 4,
            response: Response::App {
                read: AppRead { meta: Default::default(), digest: "d".into(), html },
            },
        };
        let page = "<p class=\"x\">caf\u{e9} \u{4e16} \u{1F600}\\</p>\n";
        let long = page.repeat(20_000);
        assert!(long.len() > 64 * 1024);
        let held_status = WorkerMessage::Response { id: 5, response: status() };
        for message in [app(Some(long)), app(Some(page.into())), app(None), held_status] {
            let text = serde_json::to_string(&message).unwrap();
            assert_eq!(worker_message_from_js(JsValue::from_str(&text)).unwrap(), message);
            assert_eq!(worker_message_from_js(to_js(&message).unwrap()).unwrap(), message);
        }
        // Other long answers are read from their text, exact: big integers, keys in order.
        let exact = r#"{"kind":"response","id":6,"response":{"type":"tool_result","result":{"content":[],"structuredContent":{"b":1,"2":"x","n":12345678901234567890}}}}"#;
        let message: WorkerMessage = serde_json::from_str(exact).unwrap();
        let text = serde_json::to_string(&message).unwrap();
        assert!(text.contains(r#"{"b":1,"2":"x","n":12345678901234567890}"#), "{text}");
        let long = format!("{text}{}", " ".repeat(64 * 1024));
        let read = worker_message_from_js(JsValue::from_str(&long)).unwrap();
        assert_eq!(serde_json::to_string(&read).unwrap(), text);
        let odd = r#"{"kind":"response","id":4,"response":{"type":"app","read":{"digest":"d","html":5}}}"#;
        let padded = format!("{odd}{}", " ".repeat(64 * 1024));
        for text in [odd, padded.as_str()] {
            let err = worker_message_from_js(JsValue::from_str(text)).unwrap_err();
            assert!(err.message().contains("decoding"), "{err}");
        }
        let broken = format!("{{\"kind\":{}", " ".repeat(64 * 1024));
        assert!(worker_message_from_js(JsValue::from_str(&broken)).is_err());
    }

    #[wasm_bindgen_test]
    fn a_js_string_comes_in_at_its_utf8_size() {
        let text = "caf\u{e9} \u{4e16}\u{1F600}\"\n".repeat(1000);
        let read = exact_string(&JsString::from(text.as_str()));
        assert_eq!(read, text);
        assert_eq!(read.capacity(), text.len(), "one block, exactly");
        let lone = js_sys::eval(r"'a\ud800b'").unwrap();
        assert_eq!(exact_string(lone.dyn_ref().unwrap()), "a\u{fffd}b");
    }

    #[wasm_bindgen_test]
    fn large_ids_stay_plain_numbers() {
        let js = to_js(&ClientMessage { id: 1 << 40, request: Request::Status }).unwrap();
        let id = js_sys::Reflect::get(&js, &"id".into()).unwrap();
        assert_eq!(id.as_f64(), Some((1u64 << 40) as f64));
    }

    #[wasm_bindgen_test]
    fn undefined_reads_as_null_and_odd_values_fail_cleanly() {
        assert_eq!(from_js::<Option<u32>>(JsValue::UNDEFINED).unwrap(), None);
        assert!(from_js::<WorkerMessage>(JsValue::UNDEFINED).is_err());
        let big = js_sys::eval("10n").unwrap();
        assert!(from_js::<serde_json::Value>(big).unwrap_err().message().contains("decoding"));
    }

    #[wasm_bindgen_test]
    fn lane_text_and_port_objects_decode_alike() {
        let message = WorkerMessage::Response { id: 9, response: status() };
        let text = serde_json::to_string(&message).unwrap();
        assert_eq!(from_text_or_js::<WorkerMessage>(JsValue::from_str(&text)).unwrap(), message);
        assert_eq!(from_text_or_js::<WorkerMessage>(to_js(&message).unwrap()).unwrap(), message);
        let err = from_text_or_js::<WorkerMessage>(JsValue::from_str("status")).unwrap_err();
        assert!(err.message().contains("decoding a message"), "{err}");
    }

    #[wasm_bindgen_test]
    async fn request_once_sends_an_envelope_and_reads_the_answer() {
        // A stand-in for chrome.runtime that answers like the worker and records what it got.
        js_sys::eval(
            r#"globalThis.chrome = { runtime: { sendMessage: async (m) => {
                globalThis.lastSent = m;
                return { kind: "response", id: m.id, response: {
                    type: "status", extension_version: "1.2.3", uptime_ms: 4000000000, configured_servers: 3 } };
            } } };"#,
        )
        .unwrap();
        let response = request_once(Request::Status).await.unwrap();
        assert_eq!(response, status());
        let sent = js_sys::eval("JSON.stringify(globalThis.lastSent)").unwrap();
        assert_eq!(sent.as_string().unwrap(), r#"{"id":1,"request":{"type":"status"}}"#);
    }

    #[wasm_bindgen_test]
    async fn request_once_reports_a_missing_answer() {
        js_sys::eval("globalThis.chrome = { runtime: { sendMessage: async () => undefined } };")
            .unwrap();
        let err = request_once(Request::Status).await.unwrap_err();
        assert!(err.message().contains("no answer"), "{err}");
    }

    #[wasm_bindgen_test]
    async fn request_once_reports_a_throwing_runtime() {
        js_sys::eval(
            "globalThis.chrome = { runtime: { sendMessage: async () => { throw new Error('Receiving end does not exist.'); } } };",
        )
        .unwrap();
        let err = request_once(Request::Status).await.unwrap_err();
        assert!(err.message().contains("Receiving end does not exist"), "{err}");
    }
}
