//! Wire types against the real JSON: round trips, the model list, and the request fixture the
//! Node test compares with what the official `@google/genai` SDK sends.

use std::path::PathBuf;

use gemipanel_core::gemini::{
    chat_models, list_error, list_models_path, stream_path, supports_function_calling, Content,
    FunctionCall, FunctionDeclaration, FunctionResponse, GenerateContentRequest, GenerationConfig,
    ListModelsResponse, Model, ModelInfo, Part, ThinkingConfig, Tool,
};
use gemipanel_core::settings::GeminiSettings;
use serde_json::{json, Value};

fn data(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/gemini").join(file)
}

#[test]
fn model_parts_round_trip_verbatim() {
    let original = json!({
        "role": "model",
        "parts": [
            {"text": "thinking…", "thought": true},
            {"functionCall": {"id": "c1", "name": "f", "args": {"n": 1.5, "list": [1, "a", null]},
                              "futureField": {"x": 1}},
             "thoughtSignature": "Cq8CAdHtim8//+sig=="},
            {"executableCode": {"language": "PYTHON", "code": "1+1"}},
            {"text": "", "thoughtSignature": "AAAA////"},
            {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}, "videoMetadata": {}}
        ]
    });
    let content: Content = serde_json::from_value(original.clone()).unwrap();
    assert_eq!(serde_json::to_value(&content).unwrap(), original);
    let text = serde_json::to_string(&content).unwrap();
    assert!(text.contains(r#""thoughtSignature":"Cq8CAdHtim8//+sig==""#));
    assert_eq!(content.function_calls().count(), 1);
}

#[test]
fn paths() {
    assert_eq!(
        stream_path("models/gemini-2.5-flash"),
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    );
    assert_eq!(
        stream_path("gemma-3-27b-it"),
        "/v1beta/models/gemma-3-27b-it:streamGenerateContent?alt=sse"
    );
    assert_eq!(list_models_path(None), "/v1beta/models?pageSize=1000");
    assert_eq!(list_models_path(Some("a/b+c")), "/v1beta/models?pageSize=1000&pageToken=a%2Fb%2Bc");
}

#[test]
fn model_list_filters_chat_models_and_function_calling() {
    let list: ListModelsResponse =
        serde_json::from_str(&std::fs::read_to_string(data("models.json")).unwrap()).unwrap();
    let chat: Vec<&str> = chat_models(&list.models).map(|m| m.id()).collect();
    assert_eq!(
        chat,
        [
            "gemini-4-argon",
            "gemini-3.8-flash",
            "gemini-3.6-flash",
            "gemini-3.5-flash-lite",
            "gemini-3.1-flash-lite",
            "gemini-3-flash-preview",
            "gemini-flash-latest",
            "gemma-3-27b-it"
        ]
    );
    let without_tools: Vec<&str> = chat_models(&list.models)
        .filter(|m| !m.supports_function_calling())
        .map(|m| m.id())
        .collect();
    assert_eq!(without_tools, ["gemma-3-27b-it"]);
    assert!(!supports_function_calling("models/Gemma-2-9b"));
    assert!(supports_function_calling("gemini-2.5-pro"));
}

#[test]
fn the_pickers_show_the_id_and_a_name() {
    let named = Model {
        name: "models/gemma-3-27b-it".into(),
        display_name: "Gemma 3".into(),
        ..Default::default()
    };
    let info = ModelInfo::from(&named);
    assert_eq!((info.id.as_str(), info.display_name.as_str()), ("gemma-3-27b-it", "Gemma 3"));
    assert!(!info.supports_function_calling());
    let unnamed = Model { name: "models/gemini-x".into(), ..Default::default() };
    assert_eq!(ModelInfo::from(&unnamed).display_name, "gemini-x");
}

#[test]
fn a_refused_model_list_says_why_and_what_to_do() {
    let body = br#"{"error": {"code": 400, "message": "API key not valid.", "status": "INVALID_ARGUMENT"}}"#;
    assert_eq!(
        list_error(400, body),
        "the Gemini API answered HTTP 400: API key not valid. — check the API key"
    );
    assert_eq!(
        list_error(429, b"{}"),
        "the Gemini API answered HTTP 429:  — too many requests; try again in a minute"
    );
    assert_eq!(list_error(502, b"<html>"), "the Gemini API answered HTTP 502: ");
}

#[test]
fn the_api_base_defaults_to_google_and_loses_its_trailing_slash() {
    let mut gemini = GeminiSettings::default();
    assert_eq!(gemini.api_base(), "https://generativelanguage.googleapis.com");
    gemini.base_url = Some("http://127.0.0.1:9/".into());
    assert_eq!(gemini.api_base(), "http://127.0.0.1:9");
    gemini.base_url = Some("  ".into());
    assert_eq!(gemini.api_base(), "https://generativelanguage.googleapis.com");
}

/// The request GemiPanel sends for the second step of a function-calling turn. The same file is
/// what `tests/e2e-node/fake-gemini.test.mjs` expects the official SDK to send for the same
/// conversation. Regenerate with `UPDATE_FIXTURES=1 cargo test -p gemipanel-core --test gemini_wire`.
fn function_response_request() -> GenerateContentRequest {
    let call = FunctionCall {
        id: Some("fc-1".into()),
        name: "mcp_weather_get_forecast".into(),
        args: Some(json!({"city": "Tokyo"})),
        ..FunctionCall::default()
    };
    GenerateContentRequest {
        contents: vec![
            Content::user_text("What is the weather in Tokyo?"),
            Content {
                role: Some("model".into()),
                parts: vec![Part {
                    function_call: Some(call),
                    thought_signature: Some("EjQKMgG+Pvb7sig/+==".into()),
                    ..Part::default()
                }],
            },
            Content {
                role: Some("user".into()),
                parts: vec![Part::function_response(FunctionResponse {
                    id: Some("fc-1".into()),
                    name: "mcp_weather_get_forecast".into(),
                    response: json!({"output": {"temperature": 21, "sky": "clear"}}),
                    parts: Vec::new(),
                })],
            },
        ],
        tools: vec![Tool::functions(vec![FunctionDeclaration {
            name: "mcp_weather_get_forecast".into(),
            description: "Forecast for a city".into(),
            parameters_json_schema: Some(json!({
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
                "required": ["city"]
            })),
            parameters: None,
        }])],
        system_instruction: Some(Content::system("Be brief.")),
        generation_config: Some(GenerationConfig {
            thinking_config: Some(ThinkingConfig {
                include_thoughts: Some(true),
                ..ThinkingConfig::default()
            }),
            ..GenerationConfig::default()
        }),
        ..GenerateContentRequest::default()
    }
}

#[test]
fn request_matches_the_shared_sdk_fixture() {
    let actual = serde_json::to_value(function_response_request()).unwrap();
    let path = data("sdk_request_function_response.json");
    if std::env::var_os("UPDATE_FIXTURES").is_some() {
        std::fs::write(&path, serde_json::to_string_pretty(&actual).unwrap() + "\n").unwrap();
    }
    let expected: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        actual, expected,
        "run with UPDATE_FIXTURES=1 to regenerate after a deliberate change"
    );
    let back: GenerateContentRequest = serde_json::from_value(expected).unwrap();
    assert_eq!(back, function_response_request());
}

#[test]
fn google_search_tool_and_openapi_fallback_shapes() {
    assert_eq!(serde_json::to_value(Tool::google_search()).unwrap(), json!({"googleSearch": {}}));
    let decl = FunctionDeclaration {
        name: "f".into(),
        description: String::new(),
        parameters_json_schema: Some(json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"a": {"type": ["string", "null"]}},
            "additionalProperties": false
        })),
        parameters: None,
    };
    assert_eq!(
        serde_json::to_value(decl.to_openapi_parameters()).unwrap(),
        json!({"name": "f", "parameters": {"type": "object",
               "properties": {"a": {"type": "string", "nullable": true}}}})
    );
}
