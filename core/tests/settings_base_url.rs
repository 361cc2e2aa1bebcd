//! `gemini.base_url`: optional, https or loopback http, absent from the JSON when unset.

use gemipanel_core::settings::{load, Settings};
use serde_json::json;

fn doc(base_url: &str) -> serde_json::Value {
    json!({"version": 2, "gemini": {"model": "gemini-2.5-flash", "base_url": base_url}, "servers": []})
}

#[test]
fn https_and_loopback_http_are_accepted() {
    for url in ["https://proxy.example.com", "http://127.0.0.1:4010", "http://localhost:9"] {
        let loaded = load(&doc(url)).unwrap_or_else(|e| panic!("{url}: {e}"));
        assert_eq!(loaded.settings.gemini.base_url.as_deref(), Some(url));
    }
}

#[test]
fn other_addresses_are_refused_with_a_reason() {
    for url in ["http://example.com", "ftp://example.com", "not a url", "http://10.0.0.1"] {
        let err = load(&doc(url)).expect_err(url);
        assert!(err.to_string().contains("Gemini API address"), "{url}: {err}");
    }
}

#[test]
fn an_unset_base_url_is_left_out_of_the_stored_json() {
    let value = serde_json::to_value(Settings::default()).unwrap();
    assert!(value["gemini"].get("base_url").is_none(), "{value}");
}
