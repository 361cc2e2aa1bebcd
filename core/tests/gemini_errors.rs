//! API error bodies (`data/gemini/errors/`) → predicates, retry delay and message; backoff.

use std::path::PathBuf;
use std::time::Duration;

use gemipanel_core::gemini::budget::Refusal;
use gemipanel_core::gemini::{parse_proto_duration, Error, RetryPolicy};
use serde_json::Value;

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/gemini/errors")
}

fn load(file: &str, status: u16) -> Error {
    Error::from_http(status, &std::fs::read_to_string(data_dir().join(file)).unwrap())
}

#[test]
fn recorded_error_bodies_answer_the_predicates() {
    let expected: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(data_dir().join("expected.json")).unwrap())
            .unwrap();
    for case in expected {
        let file = case["file"].as_str().unwrap();
        let status = case["status"].as_u64().unwrap() as u16;
        let error = load(file, status);
        assert_eq!(error.status(), Some(status), "{file}");
        assert_eq!(error.is_auth(), case["auth"].as_bool().unwrap(), "{file}: is_auth");
        assert_eq!(error.is_rate_limited(), case["rate_limited"].as_bool().unwrap(), "{file}");
        assert_eq!(error.is_server(), case["server"].as_bool().unwrap(), "{file}: is_server");
        assert_eq!(error.is_schema_rejected(), case["schema"].as_bool().unwrap(), "{file}: schema");
        assert_eq!(
            error.retry_after().map(|d| d.as_millis() as u64),
            case["retry_after_ms"].as_u64(),
            "{file}: retry_after"
        );
        assert_eq!(error.is_file_gone(), case["file_gone"] == true, "{file}: is_file_gone");
        if let Some(daily) = case["daily_quota"].as_bool() {
            assert_eq!(error.is_daily_quota(), daily, "{file}: is_daily_quota");
        }
        let refusal = error.tool_refusal().map(|r| match r {
            Refusal::TooManyDeclarations => "TooManyDeclarations".to_owned(),
            Refusal::TooManyStates => "TooManyStates".to_owned(),
            Refusal::TooDeep { function: None } => "TooDeep".to_owned(),
            Refusal::TooDeep { function: Some(f) } => format!("TooDeep {f}"),
        });
        assert_eq!(refusal.as_deref(), case["refusal"].as_str(), "{file}: tool_refusal");
        if let Some(display) = case["display"].as_str() {
            assert_eq!(error.to_string(), display, "{file}: Display");
        }
        // Display always carries the API's own message when there is one.
        if let Some(message) = error.api_status().map(|s| s.message.clone()) {
            assert!(error.to_string().contains(&message), "{file}");
        }
    }
}

#[test]
fn proto_durations() {
    for (text, want) in [
        ("20s", Some(Duration::from_secs(20))),
        ("1.5s", Some(Duration::from_millis(1500))),
        ("0.000000001s", Some(Duration::from_nanos(1))),
        (" 3s ", Some(Duration::from_secs(3))),
        ("20", None),
        ("-1s", None),
        ("s", None),
        ("NaNs", None),
        ("1e30s", None),
        ("", None),
    ] {
        assert_eq!(parse_proto_duration(text), want, "{text:?}");
    }
}

#[test]
fn backoff_honours_retry_delay_then_doubles_with_a_cap() {
    let policy = RetryPolicy::default();
    let rate_limited = load("rate_limited.json", 429);
    assert_eq!(policy.delay(&rate_limited, 1), Some(Duration::from_secs(20)));
    assert_eq!(policy.delay(&rate_limited, 3), Some(Duration::from_secs(20)));
    assert_eq!(policy.delay(&rate_limited, 4), None, "max retries");

    let server = load("internal.json", 500);
    let delays: Vec<_> = (1..=4).map(|n| policy.delay(&server, n)).collect();
    assert_eq!(
        delays,
        [
            Some(Duration::from_secs(1)),
            Some(Duration::from_secs(2)),
            Some(Duration::from_secs(4)),
            None
        ]
    );
    let capped = RetryPolicy { max_retries: 20, ..policy };
    assert_eq!(capped.delay(&server, 20), Some(capped.backoff.max));

    for not_retryable in [
        load("api_key_invalid.json", 400),
        load("schema_unknown_name.json", 400),
        Error::network("reset"),
    ] {
        assert_eq!(policy.delay(&not_retryable, 1), None, "{not_retryable}");
    }
    let too_long = Error::from_http(
        429,
        r#"{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"3600s"}]}}"#,
    );
    assert_eq!(policy.delay(&too_long, 1), None, "an hour is not worth waiting in a chat");
    assert_eq!(RetryPolicy::none().delay(&rate_limited, 1), None);
    // The delay a 429 names only in its message is honoured too.
    let worded = load("rate_limited_message_only.json", 429);
    assert_eq!(policy.delay(&worded, 1), Some(Duration::from_nanos(53_016_342_224)));
    // A quota counted per day is not retried, however short the delay it names.
    let daily = load("rate_limited_daily.json", 429);
    assert_eq!(policy.delay(&daily, 1), None);
}

#[test]
fn other_errors_say_what_failed() {
    assert!(Error::missing_key().is_auth());
    assert!(Error::missing_key().is_missing_key());
    assert!(Error::network("connection reset").to_string().contains("connection reset"));
    assert!(Error::network("x").is_network());
    assert_eq!(Error::from_http(500, "").to_string(), "Gemini API answered HTTP 500");
    // Some proxies wrap the status in an array.
    let wrapped = Error::from_http(
        503,
        r#"[{"error":{"code":503,"message":"Overloaded","status":"UNAVAILABLE"}}]"#,
    );
    assert_eq!(wrapped.to_string(), "Gemini API error 503 (UNAVAILABLE): Overloaded");
    // A body cut mid-way is still an error with its status.
    let cut = Error::from_http(429, r#"{"error":{"code":429,"mess"#);
    assert!(cut.is_rate_limited() && cut.retry_after().is_none());
}
