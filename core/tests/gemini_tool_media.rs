//! Images and audio an MCP tool returns reach the model as media, never as base64 text: inside
//! the function response for Gemini 3 and later
//! (https://ai.google.dev/gemini-api/docs/function-calling#multimodal), as `inlineData` parts
//! after the function responses otherwise.

use gemipanel_core::gemini::{
    Action, Chat, ChatConfig, FunctionDeclaration, ModelRequest, ToolOutcome,
};
use serde_json::{json, Value};

const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const WAV: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=";

/// The request that carries the results of one call returning `result`, asked of `model`.
fn request_after(model: &str, result: Value) -> Value {
    let mut config = ChatConfig::new(model);
    config.declarations = vec![FunctionDeclaration {
        name: "mcp_s_shot".into(),
        parameters_json_schema: Some(json!({"type": "object"})),
        ..FunctionDeclaration::default()
    }];
    let mut chat = Chat::new(config, Vec::new());
    chat.send_text("Take a screenshot").unwrap();
    let Some(Action::Send(first)) = chat.poll_action() else { panic!() };
    let call = json!({"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"id": "c1", "name": "mcp_s_shot", "args": {}}, "thoughtSignature": "c2ln"}
    ]}, "finishReason": "STOP"}]});
    chat.handle_stream_data(first.id, &call.to_string());
    chat.handle_stream_end(first.id, 0);
    let Some(Action::CallTools(calls)) = chat.poll_action() else { panic!() };
    let result = serde_json::from_value(result).unwrap();
    chat.handle_tool_result(&calls[0].call_id, ToolOutcome::Mcp(result));
    let Some(Action::Send(second)) = chat.poll_action() else { panic!() };
    let second: ModelRequest = *second;
    serde_json::to_value(&second.body.contents[2]).unwrap()
}

fn result_with_media() -> Value {
    json!({"content": [
        {"type": "text", "text": "Here it is."},
        {"type": "image", "mimeType": "image/png", "data": PNG},
        {"type": "audio", "mimeType": "audio/wav", "data": WAV}
    ]})
}

#[test]
fn gemini_3_gets_images_inside_the_function_response_and_audio_beside_it() {
    for model in ["gemini-3.8-flash", "gemini-4-argon", "gemini-3-flash-preview"] {
        let turn = request_after(model, result_with_media());
        assert_eq!(
            turn,
            json!({"role": "user", "parts": [
                {"functionResponse": {
                    "id": "c1",
                    "name": "mcp_s_shot",
                    "response": {"output": "Here it is.", "image_1": {"$ref": "image_1.png"}},
                    "parts": [{"inlineData": {"mimeType": "image/png", "data": PNG,
                                              "displayName": "image_1.png"}}]
                }},
                {"inlineData": {"mimeType": "audio/wav", "data": WAV}}
            ]}),
            "{model}"
        );
    }
}

#[test]
fn older_models_get_every_medium_after_the_function_responses() {
    let turn = request_after("gemini-2.5-flash", result_with_media());
    assert_eq!(
        turn,
        json!({"role": "user", "parts": [
            {"functionResponse": {"id": "c1", "name": "mcp_s_shot",
                                  "response": {"output": "Here it is."}}},
            {"inlineData": {"mimeType": "image/png", "data": PNG}},
            {"inlineData": {"mimeType": "audio/wav", "data": WAV}}
        ]})
    );
}

#[test]
fn no_base64_ever_reaches_the_model_as_text() {
    let result = json!({"content": [
        {"type": "resource", "resource": {"uri": "file:///a.pdf", "mimeType": "application/pdf", "blob": PNG}},
        {"type": "resource", "resource": {"uri": "file:///b.bin", "mimeType": "application/zip", "blob": WAV}},
        {"type": "image", "mimeType": "image/gif", "data": PNG},
        {"type": "video_frame", "mimeType": "image/png", "data": PNG, "meta": {"blob": WAV}}
    ]});
    for model in ["gemini-3.8-flash", "gemini-2.5-flash"] {
        let turn = request_after(model, result.clone());
        let response = &turn["parts"][0]["functionResponse"]["response"];
        let text = response.to_string();
        assert!(!text.contains(PNG) && !text.contains(WAV), "{model}: {text}");
        assert!(text.contains("application/zip content left out"), "{text}");
        assert!(text.contains("image/gif content left out"), "{text}");
        assert!(text.contains("base64 characters"), "{text}");
        let pdf = json!({"mimeType": "application/pdf", "data": PNG});
        let all = turn.to_string();
        assert!(all.contains(PNG), "the PDF travels as media");
        if model == "gemini-3.8-flash" {
            let inside = &turn["parts"][0]["functionResponse"]["parts"][0]["inlineData"];
            assert_eq!(inside["mimeType"], pdf["mimeType"]);
            assert_eq!(inside["displayName"], "application_1.pdf");
            assert_eq!(response["application_1"], json!({"$ref": "application_1.pdf"}));
        } else {
            assert_eq!(turn["parts"][1]["inlineData"], pdf);
        }
    }
}

#[test]
fn a_result_with_only_media_says_so_in_its_output() {
    let turn = request_after(
        "gemini-3.8-flash",
        json!({"content": [{"type": "image", "mimeType": "image/jpeg", "data": PNG},
                           {"type": "image", "mimeType": "image/webp", "data": PNG}]}),
    );
    let response = &turn["parts"][0]["functionResponse"]["response"];
    assert_eq!(
        response,
        &json!({"output": "2 attachment(s) follow.",
                "image_1": {"$ref": "image_1.jpeg"}, "image_2": {"$ref": "image_2.webp"}})
    );
}
