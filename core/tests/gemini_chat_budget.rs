//! The function-calling loop with more tools than one request may carry: `search_tools`
//! answered inside the chat, flattened arguments parsed back, refused requests retried once
//! with fewer tools.

use gemipanel_core::gemini::budget::{Refusal, SEARCH_TOOLS};
use gemipanel_core::gemini::{
    Action, Chat, ChatConfig, ChatEvent, FunctionDeclaration, ModelRequest, Notice, ToolCall,
};
use serde_json::{json, Value};

/// 200 tools: `mcp_s_tool_N`, plus a few with words a request can name.
fn declarations() -> Vec<FunctionDeclaration> {
    let mut out: Vec<FunctionDeclaration> = (0..200)
        .map(|i| FunctionDeclaration {
            name: format!("mcp_s_tool_{i:03}"),
            description: format!("Does thing number {i} of the generic kind."),
            parameters_json_schema: Some(
                json!({"type": "object", "properties": {"x": {"type": "string"}}}),
            ),
            parameters: None,
        })
        .collect();
    out.push(FunctionDeclaration {
        name: "mcp_weather_forecast".into(),
        description: "Weather forecast for a city.".into(),
        parameters_json_schema: Some(
            json!({"type": "object", "properties": {"city": {"type": "string"}}}),
        ),
        parameters: None,
    });
    out.push(FunctionDeclaration {
        name: "mcp_cal_create_event".into(),
        description: "Creates a calendar event.".into(),
        parameters_json_schema: Some(json!({"type": "object", "properties": {
            "event": {"type": "object", "properties": {
                "when": {"type": "object", "properties": {
                    "start": {"type": "object", "properties": {
                        "zone": {"type": "object", "properties": {"name": {"type": "string"}}}}}}}}}}})),
        parameters: None,
    });
    out
}

fn config() -> ChatConfig {
    let mut config = ChatConfig::new("gemini-2.5-flash");
    config.declarations = declarations();
    config
}

fn next_request(chat: &mut Chat) -> ModelRequest {
    match chat.poll_action() {
        Some(Action::Send(request)) => *request,
        other => panic!("expected a request, got {other:?}"),
    }
}

fn declared(request: &ModelRequest) -> Vec<String> {
    request
        .body
        .tools
        .iter()
        .flat_map(|t| &t.function_declarations)
        .map(|d| d.name.clone())
        .collect()
}

fn call(chat: &mut Chat, request: &ModelRequest, name: &str, args: Value) {
    let chunk = json!({"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": name, "args": args}}]}, "finishReason": "STOP"}]});
    chat.handle_stream_data(request.id, &chunk.to_string());
    chat.handle_stream_end(request.id, 0);
}

fn events(chat: &mut Chat) -> Vec<ChatEvent> {
    std::iter::from_fn(|| chat.poll_event()).collect()
}

fn last_response(request: &ModelRequest) -> Value {
    let last = request.body.contents.last().expect("contents");
    let part = last.parts.first().expect("a part");
    serde_json::to_value(part.function_response.as_ref().expect("a function response")).unwrap()
}

#[test]
fn a_search_is_answered_in_the_chat_and_its_tools_are_declared_next() {
    let mut chat = Chat::new(config(), Vec::new());
    chat.send_text("Plan my afternoon").unwrap();
    let first = next_request(&mut chat);
    assert!(first.tools.search);
    assert_eq!(first.tools.enabled, 202);
    assert_eq!(first.tools.sent + 1, declared(&first).len());
    assert!(!declared(&first).contains(&"mcp_weather_forecast".to_owned()));
    assert_eq!(declared(&first).last().map(String::as_str), Some(SEARCH_TOOLS));

    call(&mut chat, &first, SEARCH_TOOLS, json!({"query": "weather forecast"}));
    // No tool for the driver to run: the next request goes out at once.
    let second = next_request(&mut chat);
    let response = last_response(&second);
    assert_eq!(response["name"], SEARCH_TOOLS);
    assert_eq!(response["response"]["output"]["found"][0]["name"], "mcp_weather_forecast");
    assert!(declared(&second).contains(&"mcp_weather_forecast".to_owned()));

    call(&mut chat, &second, "mcp_weather_forecast", json!({"city": "Kyoto"}));
    let calls: Vec<ToolCall> = match chat.poll_action() {
        Some(Action::CallTools(calls)) => calls,
        other => panic!("expected tool calls, got {other:?}"),
    };
    assert_eq!(calls.len(), 1);
    assert!(calls[0].found_by_search);
    assert_eq!(calls[0].args["city"], "Kyoto");
}

#[test]
fn flattened_arguments_reach_the_tool_as_json_and_bad_text_is_the_function_error() {
    let mut chat = Chat::new(config(), Vec::new());
    chat.send_text("create a calendar event").unwrap();
    let first = next_request(&mut chat);
    let declaration = first.body.tools[0]
        .function_declarations
        .iter()
        .find(|d| d.name == "mcp_cal_create_event")
        .expect("relevant tool declared");
    let when = &declaration.parameters_json_schema.as_ref().unwrap()["properties"]["event"]
        ["properties"]["when"];
    let zone = &when["properties"]["start"]["properties"]["zone"];
    assert_eq!(zone["type"], "string", "{when}");

    call(
        &mut chat,
        &first,
        "mcp_cal_create_event",
        json!({"event": {"when": {"start": {"zone": "{oops"}}}}),
    );
    let second = next_request(&mut chat);
    let response = last_response(&second);
    let error = response["response"]["error"].as_str().expect("an error");
    assert!(error.contains("event.when.start.zone"), "{error}");

    call(
        &mut chat,
        &second,
        "mcp_cal_create_event",
        json!({"event": {"when": {"start": {"zone": "{\"name\": \"Asia/Tokyo\"}"}}}}),
    );
    let calls = match chat.poll_action() {
        Some(Action::CallTools(calls)) => calls,
        other => panic!("expected tool calls, got {other:?}"),
    };
    assert_eq!(calls[0].args["event"]["when"]["start"]["zone"], json!({"name": "Asia/Tokyo"}));
    assert!(!calls[0].found_by_search);
}

const TOO_MANY: &str = r#"{"error": {"code": 400, "message": "The GenerateContentRequest proto is invalid:\n  * tools[0].function_declarations: [FIELD_INVALID] At most 512 function declarations can be specified.", "status": "INVALID_ARGUMENT"}}"#;

#[test]
fn a_refused_request_is_retried_once_with_fewer_tools() {
    let mut chat = Chat::new(config(), Vec::new());
    chat.send_text("Do the generic thing").unwrap();
    let first = next_request(&mut chat);
    assert_eq!(first.tools.sent, 24, "the pick of the budget");
    chat.handle_http_error(first.id, 400, TOO_MANY, 0);
    let second = next_request(&mut chat);
    assert!(second.tools.sent < first.tools.sent, "{:?} !< {:?}", second.tools, first.tools);
    let notice = events(&mut chat).into_iter().find_map(|e| match e {
        ChatEvent::Notice(Notice::ToolsLeftOut { refusal, tools }) => Some((refusal, tools)),
        _ => None,
    });
    let (refusal, tools) = notice.expect("a notice");
    assert_eq!(refusal, Refusal::TooManyDeclarations);
    assert_eq!(tools.len(), first.tools.sent - second.tools.sent);
    let text = Notice::ToolsLeftOut { refusal, tools: tools.clone() }.to_string();
    assert!(text.contains(&tools[0]), "{text}");

    // Refused again: the error is shown and the chat waits for the next message.
    chat.handle_http_error(second.id, 400, TOO_MANY, 0);
    assert_eq!(chat.poll_action(), None);
    let events = events(&mut chat);
    assert!(matches!(events.as_slice(), [.., ChatEvent::Error(_), ChatEvent::Idle]), "{events:?}");
    assert!(!chat.is_busy());

    // The smaller set is kept for the next message.
    chat.send_text("again").unwrap();
    let third = next_request(&mut chat);
    assert!(third.tools.sent <= second.tools.sent);
}

#[test]
fn a_tool_refused_as_too_deep_is_left_out_by_name() {
    let mut config = ChatConfig::new("gemini-2.5-flash");
    config.declarations = declarations().into_iter().rev().take(2).collect();
    let mut chat = Chat::new(config, Vec::new());
    chat.send_text("hi").unwrap();
    let first = next_request(&mut chat);
    assert!(!first.tools.search, "two tools fit");
    assert_eq!(first.tools.sent, 2);
    let body = r#"{"error": {"code": 400, "message": "FunctionDeclaration 'mcp_cal_create_event' in the request exceeds the maximum allowed nesting depth.", "status": "INVALID_ARGUMENT"}}"#;
    chat.handle_http_error(first.id, 400, body, 0);
    let second = next_request(&mut chat);
    assert_eq!(declared(&second), ["mcp_weather_forecast"]);
    assert!(events(&mut chat).iter().any(|e| matches!(e,
        ChatEvent::Notice(Notice::ToolsLeftOut { tools, .. }) if tools == &["mcp_cal_create_event"])));
}
