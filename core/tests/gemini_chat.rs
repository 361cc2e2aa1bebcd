//! The function-calling loop, driven in memory: the test plays the HTTP layer and the tools.

use std::time::Duration;

use gemipanel_core::gemini::{
    prompts, Action, Busy, Chat, ChatConfig, ChatEvent, FunctionDeclaration, ModelRequest, Notice,
    ToolCall, ToolOutcome, ToolsOff, TurnUsage,
};
use serde_json::{json, Value};

fn declaration(name: &str) -> FunctionDeclaration {
    FunctionDeclaration {
        name: name.into(),
        description: "test tool".into(),
        parameters_json_schema: Some(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {"q": {"type": "string", "format": "uri"}},
            "additionalProperties": false
        })),
        parameters: None,
    }
}

fn config() -> ChatConfig {
    let mut config = ChatConfig::new("gemini-2.5-flash");
    config.declarations = vec![declaration("mcp_s_echo"), declaration("mcp_s_image")];
    config.system_instruction = Some("Be brief.".into());
    config
}

fn text_chunk(text: &str) -> String {
    json!({"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}}]}).to_string()
}

fn stop_chunk(text: &str) -> String {
    json!({"candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
                           "finishReason": "STOP"}]})
    .to_string()
}

fn calls_chunk(calls: &[(&str, &str, Value)]) -> String {
    let parts: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(i, (id, name, args))| {
            let mut part = json!({"functionCall": {"id": id, "name": name, "args": args}});
            if i == 0 {
                part["thoughtSignature"] = json!("c2lnbmF0dXJl/+==");
            }
            part
        })
        .collect();
    json!({"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}]})
        .to_string()
}

fn next_request(chat: &mut Chat) -> ModelRequest {
    match chat.poll_action() {
        Some(Action::Send(request)) => *request,
        other => panic!("expected a request, got {other:?}"),
    }
}

fn next_calls(chat: &mut Chat) -> Vec<ToolCall> {
    match chat.poll_action() {
        Some(Action::CallTools(calls)) => calls,
        other => panic!("expected tool calls, got {other:?}"),
    }
}

fn stream(chat: &mut Chat, request: &ModelRequest, chunks: &[String]) {
    for chunk in chunks {
        chat.handle_stream_data(request.id, chunk);
    }
    chat.handle_stream_end(request.id, 0);
}

fn events(chat: &mut Chat) -> Vec<ChatEvent> {
    std::iter::from_fn(|| chat.poll_event()).collect()
}

fn text_of(events: &[ChatEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            ChatEvent::TextDelta(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_plain_answer() {
    let mut chat = Chat::new(config(), Vec::new());
    chat.send_text("Hi").unwrap();
    assert_eq!(chat.send_text("again"), Err(Busy));
    let request = next_request(&mut chat);
    assert_eq!(request.path(), "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    let body = serde_json::to_value(&request.body).unwrap();
    assert_eq!(body["contents"], json!([{"role": "user", "parts": [{"text": "Hi"}]}]));
    assert_eq!(
        body["systemInstruction"],
        json!({"role": "user", "parts": [{"text": "Be brief."}]})
    );
    assert_eq!(body["tools"][0]["functionDeclarations"][0]["name"], "mcp_s_echo");

    stream(&mut chat, &request, &[text_chunk("Hel"), stop_chunk("lo")]);
    let events = events(&mut chat);
    assert_eq!(text_of(&events), "Hello");
    assert_eq!(events.last(), Some(&ChatEvent::Idle));
    assert!(!chat.is_busy());
    assert_eq!(chat.history().len(), 2);
    assert_eq!(chat.history()[1].text(), "Hello");
    assert_eq!(chat.poll_action(), None);
}

#[test]
fn parallel_calls_round_trip_with_ids_signatures_and_results_in_call_order() {
    let mut chat = Chat::new(config(), Vec::new());
    chat.send_text("Do two things").unwrap();
    let first = next_request(&mut chat);
    let model_chunk = calls_chunk(&[
        ("fc-a", "mcp_s_echo", json!({"q": "one"})),
        ("fc-b", "mcp_s_image", json!({})),
        ("fc-c", "mcp_s_echo", json!({"q": "three"})),
    ]);
    stream(&mut chat, &first, std::slice::from_ref(&model_chunk));
    let calls = next_calls(&mut chat);
    assert_eq!(calls.len(), 3, "all calls of the turn at once");
    assert_eq!(calls[0].api_id.as_deref(), Some("fc-a"));
    assert_eq!(calls[0].args["q"], "one");
    assert!(calls.iter().all(|c| c.round == 1));
    assert!(chat.poll_action().is_none(), "nothing is sent before every result is in");

    // Results arrive out of order.
    chat.handle_tool_result(&calls[2].call_id, ToolOutcome::Error("boom".into()));
    chat.handle_tool_result(
        &calls[1].call_id,
        ToolOutcome::Mcp(mcp(json!({"content": [
            {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="},
        ]}))),
    );
    assert!(chat.poll_action().is_none());
    chat.handle_tool_result(
        &calls[0].call_id,
        ToolOutcome::Mcp(mcp(json!({"content": [{"type": "text", "text": "{\"a\":1}"}],
                                "structuredContent": {"a": 1}}))),
    );
    // A duplicate or unknown result changes nothing.
    chat.handle_tool_result(&calls[0].call_id, ToolOutcome::Output(json!("late")));
    chat.handle_tool_result("nope", ToolOutcome::Output(json!("?")));

    let second = next_request(&mut chat);
    let body = serde_json::to_value(&second.body).unwrap();
    let contents = body["contents"].as_array().unwrap();
    assert_eq!(contents.len(), 3);
    // The model turn exactly as it came.
    let sent_model: Value =
        serde_json::from_str::<Value>(&model_chunk).unwrap()["candidates"][0]["content"].clone();
    assert_eq!(contents[1], sent_model);
    assert_eq!(
        contents[2],
        json!({"role": "user", "parts": [
            {"functionResponse": {"id": "fc-a", "name": "mcp_s_echo", "response": {"output": {"a": 1}}}},
            {"functionResponse": {"id": "fc-b", "name": "mcp_s_image",
                                  "response": {"output": "1 attachment(s) follow."}}},
            {"functionResponse": {"id": "fc-c", "name": "mcp_s_echo", "response": {"error": "boom"}}},
            {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}
        ]})
    );
    let shown = events(&mut chat);
    let done: Vec<&str> = shown
        .iter()
        .filter_map(|e| match e {
            ChatEvent::ToolDone { call_id, .. } => Some(call_id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(done, [calls[2].call_id.as_str(), &calls[1].call_id, &calls[0].call_id]);

    stream(&mut chat, &second, &[stop_chunk("Done.")]);
    assert_eq!(events(&mut chat).last(), Some(&ChatEvent::Idle));
    assert_eq!(chat.history().len(), 4);
}

#[test]
fn a_reopened_chat_numbers_its_calls_after_those_it_already_shows() {
    // The side panel keys cards and apps by call id: a call of the reopened chat must not take
    // the id of one restored from before.
    let mut chat = Chat::new(config(), Vec::new());
    chat.continue_call_ids_after(["call-2", "call-11", "elsewhere", "call-x", "call-3"]);
    chat.send_text("Again").unwrap();
    let request = next_request(&mut chat);
    stream(&mut chat, &request, &[calls_chunk(&[("fc-a", "mcp_s_echo", json!({}))])]);
    assert_eq!(next_calls(&mut chat)[0].call_id, "call-12");
}

#[test]
fn tools_offered_during_a_turn_are_declared_from_its_next_request() {
    // An app shown by this turn's call offers tools of its own while the call finishes.
    let mut chat = Chat::new(config(), Vec::new());
    chat.send_text("Show the picker").unwrap();
    let first = next_request(&mut chat);
    stream(&mut chat, &first, &[calls_chunk(&[("fc-a", "mcp_s_echo", json!({}))])]);
    let calls = next_calls(&mut chat);
    let names = |request: &ModelRequest| -> Vec<String> {
        let body = serde_json::to_value(&request.body).unwrap();
        body["tools"][0]["functionDeclarations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert!(!names(&first).contains(&"app_1a2b3c_get_selection".to_owned()));
    let mut declarations = config().declarations;
    declarations.push(declaration("app_1a2b3c_get_selection"));
    let titles = [("app_1a2b3c_get_selection".to_owned(), "get_selection".to_owned())].into();
    chat.set_tools(declarations, titles);
    chat.handle_tool_result(&calls[0].call_id, ToolOutcome::Output(json!("shown")));
    let second = next_request(&mut chat);
    assert!(
        names(&second).contains(&"app_1a2b3c_get_selection".to_owned()),
        "{:?}",
        names(&second)
    );
    assert!(names(&second).contains(&"mcp_s_echo".to_owned()));
}

#[test]
fn is_error_results_go_back_as_errors() {
    let mut chat = Chat::new(config(), Vec::new());
    chat.send_text("x").unwrap();
    let request = next_request(&mut chat);
    stream(&mut chat, &request, &[calls_chunk(&[("", "mcp_s_echo", json!(null))])]);
    let calls = next_calls(&mut chat);
    assert!(calls[0].args.is_empty(), "null args become an empty object");
    chat.handle_tool_result(
        &calls[0].call_id,
        ToolOutcome::Mcp(mcp(
            json!({"isError": true, "content": [{"type": "text", "text": "no such file"}]}),
        )),
    );
    let body = serde_json::to_value(&next_request(&mut chat).body).unwrap();
    assert_eq!(
        body["contents"][2]["parts"][0]["functionResponse"]["response"],
        json!({"error": "no such file"})
    );
}

#[test]
fn calls_without_ids_are_answered_without_ids() {
    let mut chat = Chat::new(config(), Vec::new());
    chat.send_text("x").unwrap();
    let request = next_request(&mut chat);
    let chunk = json!({"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "mcp_s_echo", "args": {"q": "a"}}}]}, "finishReason": "STOP"}]});
    stream(&mut chat, &request, &[chunk.to_string()]);
    let calls = next_calls(&mut chat);
    assert_eq!(calls[0].api_id, None);
    chat.handle_tool_result(&calls[0].call_id, ToolOutcome::Output(json!("a")));
    let body = serde_json::to_value(&next_request(&mut chat).body).unwrap();
    assert_eq!(
        body["contents"][2]["parts"][0],
        json!({"functionResponse": {"name": "mcp_s_echo", "response": {"output": "a"}}})
    );
}

#[test]
fn stops_after_the_round_limit_with_a_notice_and_a_valid_history() {
    let mut config = config();
    config.max_rounds = 3;
    let mut chat = Chat::new(config, Vec::new());
    chat.send_text("loop").unwrap();
    for round in 1..=3 {
        let request = next_request(&mut chat);
        stream(&mut chat, &request, &[calls_chunk(&[("id", "mcp_s_echo", json!({}))])]);
        let calls = next_calls(&mut chat);
        assert_eq!(calls[0].round, round);
        chat.handle_tool_result(&calls[0].call_id, ToolOutcome::Output(json!(round)));
    }
    let request = next_request(&mut chat);
    stream(&mut chat, &request, &[calls_chunk(&[("id", "mcp_s_echo", json!({}))])]);
    assert_eq!(chat.poll_action(), None, "the fourth round is not run");
    let shown = events(&mut chat);
    assert!(shown.contains(&ChatEvent::Notice(Notice::RoundLimit { max_rounds: 3 })));
    assert_eq!(shown.last(), Some(&ChatEvent::Idle));
    let last = chat.history().last().unwrap();
    assert_eq!(last.role.as_deref(), Some("user"));
    assert!(last.parts[0].function_response.as_ref().unwrap().response["error"]
        .as_str()
        .unwrap()
        .contains("limit"));
    assert!(Notice::RoundLimit { max_rounds: 3 }.to_string().contains("3 rounds"));

    // The next message joins that user turn and gets a fresh budget.
    chat.send_text("go on").unwrap();
    let request = next_request(&mut chat);
    let contents = &request.body.contents;
    assert_eq!(contents.last().unwrap().parts.len(), 2);
    stream(&mut chat, &request, &[calls_chunk(&[("id", "mcp_s_echo", json!({}))])]);
    assert_eq!(next_calls(&mut chat)[0].round, 1);
}

#[test]
fn rate_limit_waits_for_the_retry_delay_then_resends() {
    let mut chat = Chat::new(config(), Vec::new());
    chat.send_text("x").unwrap();
    let first = next_request(&mut chat);
    let body = r#"{"error":{"code":429,"message":"Quota exceeded","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"20s"}]}}"#;
    chat.handle_http_error(first.id, 429, body, 1_000);
    assert_eq!(chat.poll_timeout(), Some(21_000));
    assert!(chat.poll_action().is_none());
    match events(&mut chat).as_slice() {
        [ChatEvent::Retrying { retry: 1, max: 3, delay, error }] => {
            assert_eq!(*delay, Duration::from_secs(20));
            assert!(error.is_rate_limited());
        }
        other => panic!("{other:?}"),
    }
    chat.handle_timeout(20_999);
    assert!(chat.poll_action().is_none(), "not before the delay");
    chat.handle_timeout(21_000);
    let second = next_request(&mut chat);
    assert_eq!(second.body, first.body);
    assert_ne!(second.id, first.id);
    // Input for the old request is ignored.
    chat.handle_stream_data(first.id, &stop_chunk("stale"));
    stream(&mut chat, &second, &[stop_chunk("ok")]);
    assert_eq!(text_of(&events(&mut chat)), "ok");
}

#[test]
fn server_errors_back_off_then_give_up_with_the_api_message() {
    let mut chat = Chat::new(config(), Vec::new());
    chat.send_text("x").unwrap();
    let body =
        r#"{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}"#;
    let mut now = 0;
    let mut delays = Vec::new();
    loop {
        let request = next_request(&mut chat);
        chat.handle_http_error(request.id, 503, body, now);
        match chat.poll_timeout() {
            Some(at) => {
                delays.push(at - now);
                now = at;
                chat.handle_timeout(now);
            }
            None => break,
        }
    }
    assert_eq!(delays, [1_000, 2_000, 4_000]);
    let shown = events(&mut chat);
    let error = shown.iter().find_map(|e| match e {
        ChatEvent::Error(e) => Some(e),
        _ => None,
    });
    assert!(error.unwrap().to_string().contains("The model is overloaded."));
    assert_eq!(shown.last(), Some(&ChatEvent::Idle));
    // The user turn stays in the history; retry() sends it again.
    assert_eq!(chat.history().len(), 1);
    assert_eq!(chat.retry(), Ok(true));
    assert!(matches!(chat.poll_action(), Some(Action::Send(_))));
}

#[test]
fn auth_errors_are_not_retried() {
    let mut chat = Chat::new(config(), Vec::new());
    chat.send_text("x").unwrap();
    let request = next_request(&mut chat);
    let body = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/gemini/errors/api_key_invalid.json"
    ))
    .unwrap();
    chat.handle_http_error(request.id, 400, &body, 0);
    assert!(chat.poll_action().is_none());
    let shown = events(&mut chat);
    assert!(matches!(&shown[0], ChatEvent::Error(e) if e.is_auth()));
}

#[test]
fn schema_rejection_falls_back_to_openapi_parameters_once() {
    let mut chat = Chat::new(config(), Vec::new());
    chat.send_text("x").unwrap();
    let first = next_request(&mut chat);
    assert!(first.body.tools[0].function_declarations[0].parameters_json_schema.is_some());
    let rejection = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/gemini/errors/schema_unknown_name.json"
    ))
    .unwrap();
    chat.handle_http_error(first.id, 400, &rejection, 0);
    assert_eq!(events(&mut chat), [ChatEvent::Notice(Notice::SchemaFallback)]);
    let second = next_request(&mut chat);
    let decl = &second.body.tools[0].function_declarations[0];
    assert_eq!(decl.parameters_json_schema, None);
    assert_eq!(
        decl.parameters,
        Some(json!({"type": "object", "properties": {"q": {"type": "string"}}}))
    );
    // A second rejection is shown, not retried again.
    chat.handle_http_error(second.id, 400, &rejection, 0);
    assert!(chat.poll_action().is_none());
    assert!(matches!(&events(&mut chat)[0], ChatEvent::Error(e) if e.is_schema_rejected()));
    // The fallback sticks for the rest of the chat.
    chat.send_text("again").unwrap();
    assert!(next_request(&mut chat).body.tools[0].function_declarations[0].parameters.is_some());
}

#[test]
fn stop_mid_stream_keeps_the_partial_text() {
    let mut chat = Chat::new(config(), Vec::new());
    chat.send_text("story").unwrap();
    let request = next_request(&mut chat);
    chat.handle_stream_data(request.id, &text_chunk("Once upon"));
    chat.stop();
    assert_eq!(chat.poll_action(), Some(Action::AbortRequest { id: request.id }));
    let shown = events(&mut chat);
    assert!(shown.contains(&ChatEvent::ModelTurn { incomplete: true, finish_reason: None }));
    assert!(shown.contains(&ChatEvent::Notice(Notice::Stopped)));
    assert_eq!(chat.history().last().unwrap().text(), "Once upon");
    // Late data after Stop is ignored and the chat takes a new message.
    chat.handle_stream_data(request.id, &text_chunk(" a time"));
    chat.handle_stream_end(request.id, 0);
    assert!(events(&mut chat).is_empty());
    chat.send_text("next").unwrap();
}

#[test]
fn stop_while_tools_run_cancels_them_and_answers_the_calls() {
    let mut chat = Chat::new(config(), Vec::new());
    chat.send_text("x").unwrap();
    let request = next_request(&mut chat);
    stream(
        &mut chat,
        &request,
        &[calls_chunk(&[("a", "mcp_s_echo", json!({})), ("b", "mcp_s_echo", json!({}))])],
    );
    let calls = next_calls(&mut chat);
    chat.handle_tool_result(&calls[0].call_id, ToolOutcome::Output(json!("fine")));
    chat.stop();
    assert_eq!(chat.poll_action(), Some(Action::CancelTool { call_id: calls[1].call_id.clone() }));
    assert_eq!(chat.poll_action(), None, "no request after Stop");
    let last = chat.history().last().unwrap();
    let responses: Vec<&Value> =
        last.parts.iter().map(|p| &p.function_response.as_ref().unwrap().response).collect();
    assert_eq!(responses[0], &json!({"output": "fine"}));
    assert!(responses[1]["error"].is_string());
    // A late result is ignored.
    chat.handle_tool_result(&calls[1].call_id, ToolOutcome::Output(json!("late")));
    assert_eq!(chat.poll_action(), None);
}

#[test]
fn a_stream_cut_short_is_incomplete_and_its_calls_are_not_run() {
    let mut chat = Chat::new(config(), Vec::new());
    chat.send_text("x").unwrap();
    let request = next_request(&mut chat);
    chat.handle_stream_data(request.id, &text_chunk("Partial"));
    let unfinished = json!({"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "mcp_s_echo", "args": {}}}]}}]});
    chat.handle_stream_data(request.id, &unfinished.to_string());
    chat.handle_network_error(request.id, "connection reset", 0);
    assert_eq!(chat.poll_action(), None);
    let shown = events(&mut chat);
    assert!(shown.contains(&ChatEvent::ModelTurn { incomplete: true, finish_reason: None }));
    assert!(shown.iter().any(|e| matches!(e, ChatEvent::Error(e) if e.is_network())));
    // Part of the reply had arrived: the connection was lost, not refused.
    let said = shown.iter().find_map(|e| match e {
        ChatEvent::Error(e) => Some(e.to_string()),
        _ => None,
    });
    assert!(said.as_deref().is_some_and(|s| s.contains("was lost")), "{said:?}");
    let last = chat.history().last().unwrap();
    assert_eq!(last.text(), "Partial");
    assert!(last.function_calls().next().is_none());

    // Ended without a finish reason and without an error: also incomplete.
    chat.send_text("y").unwrap();
    let request = next_request(&mut chat);
    chat.handle_stream_data(request.id, &text_chunk("half"));
    chat.handle_stream_end(request.id, 0);
    assert!(events(&mut chat).contains(&ChatEvent::Notice(Notice::Incomplete)));
}

#[test]
fn tools_are_off_with_google_search_and_for_gemma() {
    let mut search = config();
    search.google_search = true;
    assert_eq!(search.tools_off_reason(), Some(ToolsOff::GoogleSearch));
    let mut chat = Chat::new(search, Vec::new());
    chat.send_text("x").unwrap();
    let body = serde_json::to_value(&next_request(&mut chat).body).unwrap();
    assert_eq!(body["tools"], json!([{"googleSearch": {}}]));

    let mut gemma = config();
    gemma.model = "models/gemma-3-27b-it".into();
    assert_eq!(gemma.tools_off_reason(), Some(ToolsOff::ModelWithoutFunctionCalling));
    let mut chat = Chat::new(gemma, Vec::new());
    chat.send_text("x").unwrap();
    let request = next_request(&mut chat);
    assert!(request.body.tools.is_empty());
    assert_eq!(request.model, "gemma-3-27b-it");
    assert_eq!(ChatConfig::new("gemma-3").tools_off_reason(), None, "no tools, nothing to say");
}

#[test]
fn google_search_goes_with_the_tools_on_gemini_3_and_later_and_their_calls_round_trip() {
    let mut both = config();
    both.model = "gemini-3.8-flash".into();
    both.google_search = true;
    assert_eq!(both.tools_off_reason(), None);
    let mut chat = Chat::new(both, Vec::new());
    chat.send_text("Weather in Kyoto, then echo it").unwrap();
    let request = next_request(&mut chat);
    let body = serde_json::to_value(&request.body).unwrap();
    assert_eq!(body["tools"][0], json!({"googleSearch": {}}));
    assert_eq!(body["tools"][1]["functionDeclarations"][0]["name"], "mcp_s_echo");
    assert_eq!(body["toolConfig"], json!({"includeServerSideToolInvocations": true}));
    // The API's own search call and result come back as parts of their own, beside the
    // function call: all of them go back unchanged.
    let turn = json!({"candidates": [{"content": {"role": "model", "parts": [
        {"toolCall": {"id": "s1", "toolType": "GOOGLE_SEARCH_WEB", "args": {"queries": ["kyoto weather"]}},
         "thoughtSignature": "c2VhcmNo"},
        {"toolResponse": {"id": "s1", "toolType": "GOOGLE_SEARCH_WEB", "response": {"ok": true}}},
        {"functionCall": {"id": "f1", "name": "mcp_s_echo", "args": {"q": "sunny"}}, "thoughtSignature": "ZWNobw=="}
    ]}, "finishReason": "STOP"}]});
    stream(&mut chat, &request, &[turn.to_string()]);
    let calls = next_calls(&mut chat);
    assert_eq!(calls.len(), 1, "only the function call is ours to run");
    chat.handle_tool_result(&calls[0].call_id, ToolOutcome::Error("x".into()));
    let next = next_request(&mut chat);
    let sent = serde_json::to_value(&next.body.contents[1]).unwrap();
    assert_eq!(sent, turn["candidates"][0]["content"]);

    // Before Gemini 3 the two do not go together: search wins, the tools say why they are off.
    let mut older = config();
    older.google_search = true;
    assert_eq!(older.tools_off_reason(), Some(ToolsOff::GoogleSearch));
}

#[test]
fn a_grounded_reply_brings_its_sources_before_it_ends() {
    let mut search = ChatConfig::new("gemini-3.8-flash");
    search.google_search = true;
    let mut chat = Chat::new(search, Vec::new());
    chat.send_text("Who won Euro 2024?").unwrap();
    let request = next_request(&mut chat);
    let last = json!({"candidates": [{"content": {"role": "model", "parts": [{"text": " in the final."}]},
        "finishReason": "STOP",
        "groundingMetadata": {
            "webSearchQueries": ["euro 2024 winner"],
            "groundingChunks": [{"web": {"uri": "https://www.uefa.com/euro2024/", "title": "uefa.com"}}],
            "groundingSupports": [{"segment": {"endIndex": 20, "text": "Spain won Euro 2024."},
                                   "groundingChunkIndices": [0]}]}}]});
    stream(
        &mut chat,
        &request,
        &[text_chunk("Spain won Euro 2024. They beat England"), last.to_string()],
    );
    let shown = events(&mut chat);
    let at = |pred: &dyn Fn(&ChatEvent) -> bool| shown.iter().position(pred).unwrap();
    let sources = at(&|e| matches!(e, ChatEvent::Sources(_)));
    assert!(sources < at(&|e| matches!(e, ChatEvent::ModelTurn { .. })));
    let ChatEvent::Sources(found) = &shown[sources] else { unreachable!() };
    assert_eq!(found.sources[0].title, "uefa.com");
    assert_eq!(found.sources[0].supports, ["Spain won Euro 2024."]);
    assert_eq!(found.queries[0].text, "euro 2024 winner");
}

#[test]
fn saved_history_is_sent_and_config_changes_wait_for_idle() {
    let history = vec![
        gemipanel_core::gemini::Content::user_text("earlier"),
        serde_json::from_value(
            json!({"role": "model", "parts": [{"text": "reply", "thoughtSignature": "x/y+"}]}),
        )
        .unwrap(),
    ];
    let mut chat = Chat::new(config(), history.clone());
    chat.send_text("now").unwrap();
    assert_eq!(chat.set_config(ChatConfig::new("other")), Err(Busy));
    let request = next_request(&mut chat);
    assert_eq!(request.body.contents[..2], history[..]);
    chat.stop();
    assert_eq!(chat.poll_action(), Some(Action::AbortRequest { id: request.id }));
    chat.set_config(ChatConfig::new("gemini-3-flash-preview")).unwrap();
    chat.send_text("more").unwrap();
    assert_eq!(next_request(&mut chat).model, "gemini-3-flash-preview");
}

#[test]
fn blocked_prompt_is_an_error_without_retry() {
    let mut chat = Chat::new(config(), Vec::new());
    chat.send_text("x").unwrap();
    let request = next_request(&mut chat);
    stream(&mut chat, &request, &[r#"{"promptFeedback":{"blockReason":"SAFETY"}}"#.to_owned()]);
    assert_eq!(chat.poll_action(), None);
    assert!(events(&mut chat).iter().any(|e| matches!(e, ChatEvent::Error(e) if e.is_blocked())));
}

fn usage_chunk(text: &str, prompt: u64, thoughts: u64, output: u64) -> String {
    json!({"candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
                           "finishReason": "STOP"}],
           "usageMetadata": {"promptTokenCount": prompt, "cachedContentTokenCount": 2,
                             "thoughtsTokenCount": thoughts, "candidatesTokenCount": output,
                             "totalTokenCount": prompt + thoughts + output}})
    .to_string()
}

fn usages(events: &[ChatEvent]) -> Vec<(TurnUsage, u64)> {
    events
        .iter()
        .filter_map(|e| match e {
            ChatEvent::Usage { turn, context_tokens } => Some((*turn, *context_tokens)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_turn_reports_its_usage_once_per_request_summed_over_tool_rounds() {
    let mut chat = Chat::new(config(), Vec::new());
    chat.send_text("x").unwrap();
    let first = next_request(&mut chat);
    let mut calls: serde_json::Value =
        serde_json::from_str(&calls_chunk(&[("a", "mcp_s_echo", json!({}))])).unwrap();
    calls["usageMetadata"] = json!({"promptTokenCount": 100, "candidatesTokenCount": 5,
                                    "thoughtsTokenCount": 40, "totalTokenCount": 145});
    // A chunk before the last repeats running totals: only the request's last counts.
    let early = json!({"candidates": [], "usageMetadata": {"promptTokenCount": 100,
                                                           "totalTokenCount": 100}});
    stream(&mut chat, &first, &[early.to_string(), calls.to_string()]);
    let shown = events(&mut chat);
    assert_eq!(usages(&shown).len(), 1);
    assert_eq!(usages(&shown)[0].1, 105, "prompt and reply, thoughts left out");
    let call = next_calls(&mut chat).remove(0);
    chat.handle_tool_result(&call.call_id, ToolOutcome::Error("x".into()));
    let second = next_request(&mut chat);
    stream(&mut chat, &second, &[usage_chunk("done", 160, 0, 20)]);
    let shown = events(&mut chat);
    let (turn, context) = usages(&shown)[0];
    assert_eq!((turn.prompt, turn.thoughts, turn.output, turn.cached), (260, 40, 25, 2));
    assert_eq!((turn.total, turn.requests), (145 + 180, 2));
    assert_eq!(context, 180);
    // The next turn starts counting again.
    chat.send_text("again").unwrap();
    let third = next_request(&mut chat);
    stream(&mut chat, &third, &[usage_chunk("ok", 200, 0, 1)]);
    assert_eq!(usages(&events(&mut chat))[0].0.requests, 1);
}

#[test]
fn a_summary_is_asked_with_the_history_and_no_tools_and_leaves_the_history_alone() {
    let mut chat = Chat::new(config(), Vec::new());
    chat.send_text("Plan a trip to Kyoto").unwrap();
    let request = next_request(&mut chat);
    stream(&mut chat, &request, &[stop_chunk("Day 1: temples.")]);
    events(&mut chat);
    let before = chat.history().to_vec();

    chat.summarize().unwrap();
    assert_eq!(chat.summarize(), Err(Busy));
    let ask = next_request(&mut chat);
    assert!(ask.body.tools.is_empty(), "a summary needs no tools");
    let contents = &ask.body.contents;
    assert_eq!(contents.len(), 3);
    assert_eq!(contents[..2], before[..]);
    assert_eq!(contents[2].text(), prompts::SUMMARY_PROMPT);
    stream(&mut chat, &ask, &[text_chunk("- Kyoto trip, "), stop_chunk("day 1 temples")]);
    let shown = events(&mut chat);
    assert!(shown.contains(&ChatEvent::Summary("- Kyoto trip, day 1 temples".into())), "{shown:?}");
    assert_eq!(shown.last(), Some(&ChatEvent::Idle));
    assert_eq!(chat.history(), &before[..], "the summary is not a turn of this chat");

    // A chat started from it: its first turn is the summary, and the person's message joins it.
    let mut next = Chat::new(config(), vec![prompts::summary_seed("- Kyoto trip")]);
    next.send_text("Day 2?").unwrap();
    let contents = next_request(&mut next).body.contents;
    assert_eq!(contents.len(), 1);
    assert!(contents[0].text().contains("- Kyoto trip"));
    assert!(contents[0].text().ends_with("Day 2?"));
}

#[test]
fn a_failed_or_stopped_summary_changes_nothing() {
    let mut chat = Chat::new(config(), vec![gemipanel_core::gemini::Content::user_text("hi")]);
    chat.summarize().unwrap();
    let ask = next_request(&mut chat);
    assert_eq!(ask.body.contents.len(), 1, "a trailing user turn takes the prompt as a part");
    assert_eq!(ask.body.contents[0].parts.len(), 2);
    chat.handle_http_error(ask.id, 400, r#"{"error":{"code":400,"message":"no"}}"#, 0);
    assert!(events(&mut chat).iter().any(|e| matches!(e, ChatEvent::Error(_))));
    assert_eq!(chat.history().len(), 1);
    chat.summarize().unwrap();
    let ask = next_request(&mut chat);
    chat.handle_stream_data(ask.id, &text_chunk("partial"));
    chat.stop();
    assert_eq!(chat.poll_action(), Some(Action::AbortRequest { id: ask.id }));
    let shown = events(&mut chat);
    assert!(!shown.iter().any(|e| matches!(e, ChatEvent::Summary(_))));
    assert_eq!(chat.history().len(), 1, "no partial summary in the history");
    // An empty summary says so.
    chat.summarize().unwrap();
    let ask = next_request(&mut chat);
    stream(&mut chat, &ask, &[stop_chunk("  ")]);
    assert!(events(&mut chat).contains(&ChatEvent::Notice(Notice::SummaryEmpty)));
    // And the chat goes on as before.
    chat.send_text("next").unwrap();
    assert!(next_request(&mut chat).body.tools.len() == 1);
}

#[test]
fn a_reply_cut_at_the_output_limit_can_be_continued() {
    let mut chat = Chat::new(ChatConfig::new("gemini-3.8-flash"), Vec::new());
    chat.send_text("Write a long story").unwrap();
    let request = next_request(&mut chat);
    let cut = json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "Once"}]},
                                     "finishReason": "MAX_TOKENS"}]});
    stream(&mut chat, &request, &[cut.to_string()]);
    let shown = events(&mut chat);
    let notice = shown.iter().find_map(|e| match e {
        ChatEvent::Notice(Notice::Finish(reason)) => Some(reason.clone()),
        _ => None,
    });
    assert!(notice.as_ref().is_some_and(|r| r.can_continue()), "{shown:?}");
    chat.continue_reply().unwrap();
    let next = next_request(&mut chat);
    let roles: Vec<_> = next.body.contents.iter().map(|c| c.role.clone().unwrap()).collect();
    assert_eq!(roles, ["user", "model", "user"], "never a request ending with a model turn");
    assert_eq!(next.body.contents[2].text(), prompts::CONTINUE_PROMPT);
}

#[test]
fn retry_now_sends_at_once_and_the_retrying_event_names_the_limit() {
    let mut chat = Chat::new(config(), Vec::new());
    chat.send_text("x").unwrap();
    let first = next_request(&mut chat);
    let body =
        r#"{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}"#;
    chat.handle_http_error(first.id, 503, body, 0);
    assert!(matches!(events(&mut chat).as_slice(), [ChatEvent::Retrying { retry: 1, max: 3, .. }]));
    chat.retry_now();
    assert_eq!(chat.poll_timeout(), None);
    let second = next_request(&mut chat);
    assert_eq!(second.body, first.body);
    chat.retry_now();
    assert_eq!(chat.poll_action(), None, "only while waiting");
}

#[test]
fn a_daily_quota_is_shown_not_retried() {
    let mut chat = Chat::new(config(), Vec::new());
    chat.send_text("x").unwrap();
    let first = next_request(&mut chat);
    let body = r#"{"error":{"code":429,"message":"Quota exceeded. Please retry in 3s.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"GenerateRequestsPerDayPerProjectPerModel-FreeTier"}]}]}}"#;
    chat.handle_http_error(first.id, 429, body, 0);
    let shown = events(&mut chat);
    assert!(shown.iter().any(|e| matches!(e, ChatEvent::Error(e) if e.is_daily_quota())));
    assert_eq!(chat.poll_timeout(), None);
}

fn mcp(result: serde_json::Value) -> gemipanel_core::mcp::CallToolResult {
    serde_json::from_value(result).expect("a CallToolResult")
}
