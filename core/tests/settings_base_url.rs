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

#[test]
fn a_model_list_belongs_to_one_key_and_one_address() {
    use gemipanel_core::secret::Secret;
    use gemipanel_core::settings::GeminiSettings;
    let with = |key: &str, base: Option<&str>| GeminiSettings {
        api_key: Some(Secret::new(key)),
        base_url: base.map(str::to_owned),
        ..GeminiSettings::default()
    };
    let google = with("AIza-one", None);
    assert!(google
        .same_model_source(&with("AIza-one", Some("https://generativelanguage.googleapis.com/"))));
    assert!(google.same_model_source(&GeminiSettings {
        model: Some("gemini-other".into()),
        ..google.clone()
    }));
    assert!(!google.same_model_source(&with("AIza-two", None)), "another key");
    assert!(
        !google.same_model_source(&with("AIza-one", Some("https://proxy.example.com"))),
        "another address"
    );
    assert!(!google.same_model_source(&GeminiSettings::default()), "no key");
}
