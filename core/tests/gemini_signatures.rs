//! Thought signatures exactly as https://ai.google.dev/gemini-api/docs/thought-signatures
//! requires, in every case a chat meets: single and parallel calls, text parts, streamed chunks,
//! a chat reopened from storage, a model changed mid-way, and tools an MCP App offers.

use gemipanel_core::gemini::signatures::{contents_for, SKIP_VALIDATOR};
use gemipanel_core::gemini::{
    Action, Chat, ChatConfig, Content, Family, FunctionDeclaration, ModelRequest, ToolOutcome, Turn,
};
use serde_json::{json, Value};

const SIG_A: &str = "EjQKMgG+Pvb7sigA/+==";
const SIG_B: &str = "CiQBjz1rX9sigB+/==";

fn declaration(name: &str) -> FunctionDeclaration {
    FunctionDeclaration {
        name: name.into(),
        description: "test tool".into(),
        parameters_json_schema: Some(json!({"type": "object"})),
        parameters: None,
    }
}

fn chat(model: &str) -> Chat {
    let mut config = ChatConfig::new(model);
    config.declarations = vec![declaration("mcp_s_one"), declaration("mcp_s_two")];
    Chat::new(config, Vec::new())
}

fn chunk(parts: Value, finish: bool) -> String {
    let mut candidate = json!({"content": {"role": "model", "parts": parts}});
    if finish {
        candidate["finishReason"] = json!("STOP");
    }
    json!({"candidates": [candidate]}).to_string()
}

fn next_request(chat: &mut Chat) -> ModelRequest {
    loop {
        match chat.poll_action() {
            Some(Action::Send(request)) => return *request,
            Some(_) => continue,
            None => panic!("no request was sent"),
        }
    }
}

fn run_calls(chat: &mut Chat) {
    let mut ran = false;
    while let Some(action) = chat.poll_action() {
        if let Action::CallTools(calls) = action {
            for call in calls {
                chat.handle_tool_result(&call.call_id, ToolOutcome::Output(json!("ok")));
            }
            ran = true;
            break;
        }
    }
    assert!(ran, "no tool calls");
}

fn stream(chat: &mut Chat, request: &ModelRequest, chunks: &[String]) {
    for c in chunks {
        chat.handle_stream_data(request.id, c);
    }
    chat.handle_stream_end(request.id, 0);
}

fn contents(request: &ModelRequest) -> Value {
    serde_json::to_value(&request.body.contents).unwrap()
}

/// One turn: a call signed with `signature`, its result, then `answer`. Returns the request
/// that carried the result.
fn call_round(chat: &mut Chat, text: &str, signature: &str, answer: &str) -> ModelRequest {
    chat.send_text(text).unwrap();
    let first = next_request(chat);
    let call = json!([{"functionCall": {"id": "c1", "name": "mcp_s_one", "args": {}},
                       "thoughtSignature": signature}]);
    stream(chat, &first, &[chunk(call, true)]);
    run_calls(chat);
    let second = next_request(chat);
    stream(chat, &second, &[chunk(json!([{"text": answer}]), true)]);
    second
}

#[test]
fn a_single_call_goes_back_with_its_signature_verbatim() {
    let mut chat = chat("gemini-3.8-flash");
    let request = call_round(&mut chat, "Go", SIG_A, "Done.");
    assert_eq!(
        contents(&request)[1],
        json!({"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "mcp_s_one", "args": {}},
                                           "thoughtSignature": SIG_A}]})
    );
}

#[test]
fn parallel_calls_keep_the_one_signature_on_the_first_call_only() {
    let mut chat = chat("gemini-3.8-flash");
    chat.send_text("Both").unwrap();
    let first = next_request(&mut chat);
    let calls = json!([
        {"functionCall": {"id": "a", "name": "mcp_s_one", "args": {}}, "thoughtSignature": SIG_A},
        {"functionCall": {"id": "b", "name": "mcp_s_two", "args": {}}}
    ]);
    stream(&mut chat, &first, &[chunk(calls.clone(), true)]);
    run_calls(&mut chat);
    let second = next_request(&mut chat);
    assert_eq!(contents(&second)[1]["parts"], calls);
    let responses = &contents(&second)[2]["parts"];
    assert_eq!(responses[0]["functionResponse"]["id"], "a");
    assert_eq!(responses[1]["functionResponse"]["id"], "b");
    assert!(responses[0].get("thoughtSignature").is_none());
}

#[test]
fn text_signatures_stay_on_their_part_and_are_sent_back() {
    let mut chat = chat("gemini-3.8-flash");
    chat.send_text("Hi").unwrap();
    let first = next_request(&mut chat);
    stream(
        &mut chat,
        &first,
        &[
            chunk(json!([{"text": "Hello, "}]), false),
            chunk(json!([{"text": "world"}]), false),
            chunk(json!([{"text": "!", "thoughtSignature": SIG_A}]), true),
        ],
    );
    chat.send_text("Again").unwrap();
    let second = next_request(&mut chat);
    // Unsigned text merges; the signed part is never merged into it.
    assert_eq!(
        contents(&second)[1]["parts"],
        json!([{"text": "Hello, world"}, {"text": "!", "thoughtSignature": SIG_A}])
    );
}

#[test]
fn a_signature_streamed_in_a_final_empty_chunk_is_kept() {
    let mut chat = chat("gemini-3.8-flash");
    chat.send_text("Hi").unwrap();
    let first = next_request(&mut chat);
    stream(
        &mut chat,
        &first,
        &[
            chunk(json!([{"text": "Short answer."}]), false),
            chunk(json!([{"text": "", "thoughtSignature": SIG_A}]), true),
        ],
    );
    chat.send_text("More").unwrap();
    let second = next_request(&mut chat);
    assert_eq!(
        contents(&second)[1]["parts"],
        json!([{"text": "Short answer."}, {"text": "", "thoughtSignature": SIG_A}])
    );
}

#[test]
fn a_signature_streamed_alone_after_a_call_goes_back_on_the_call() {
    let mut chat = chat("gemini-3.8-flash");
    chat.send_text("Go").unwrap();
    let first = next_request(&mut chat);
    stream(
        &mut chat,
        &first,
        &[
            chunk(json!([{"functionCall": {"name": "mcp_s_one", "args": {}}}]), false),
            chunk(json!([{"thoughtSignature": SIG_A}]), true),
        ],
    );
    run_calls(&mut chat);
    let second = next_request(&mut chat);
    assert_eq!(
        contents(&second)[1]["parts"],
        json!([{"functionCall": {"name": "mcp_s_one", "args": {}}, "thoughtSignature": SIG_A}])
    );
    // Alone after a part that has one, it keeps its own (empty) text part.
    let mut chat = self::chat("gemini-3.8-flash");
    chat.send_text("Hi").unwrap();
    let first = next_request(&mut chat);
    stream(
        &mut chat,
        &first,
        &[
            chunk(json!([{"text": "A", "thoughtSignature": SIG_A}]), false),
            chunk(json!([{"thoughtSignature": SIG_B}]), true),
        ],
    );
    chat.send_text("More").unwrap();
    let second = next_request(&mut chat);
    assert_eq!(
        contents(&second)[1]["parts"],
        json!([{"text": "A", "thoughtSignature": SIG_A}, {"text": "", "thoughtSignature": SIG_B}])
    );
}

#[test]
fn a_chat_reopened_from_storage_sends_what_it_would_have_sent() {
    let mut original = chat("gemini-3.8-flash");
    call_round(&mut original, "Go", SIG_A, "Done.");
    let saved = serde_json::to_string(&original.turns()).unwrap();
    let turns: Vec<Turn> = serde_json::from_str(&saved).unwrap();
    assert_eq!(turns[1].author.as_deref(), Some("gemini-3.8-flash"));
    let mut reopened = Chat::from_turns(original.config().clone(), turns);
    original.send_text("Next").unwrap();
    reopened.send_text("Next").unwrap();
    let (a, b) = (next_request(&mut original), next_request(&mut reopened));
    assert_eq!(a.body, b.body);
    assert_eq!(contents(&b)[1]["parts"][0]["thoughtSignature"], SIG_A);

    // A chat saved before authors were kept (plain contents) reads and keeps its signatures.
    let old: Vec<Content> = serde_json::from_str(&saved).unwrap();
    let old_json = serde_json::to_string(&old).unwrap();
    assert!(!old_json.contains("author"));
    let turns: Vec<Turn> = serde_json::from_str(&old_json).unwrap();
    assert!(turns.iter().all(|t| t.author.is_none()));
    let mut reopened = Chat::from_turns(ChatConfig::new("gemini-4-argon"), turns);
    reopened.send_text("Next").unwrap();
    assert_eq!(contents(&next_request(&mut reopened))[1]["parts"][0]["thoughtSignature"], SIG_A);
}

#[test]
fn a_model_changed_mid_chat_gets_no_foreign_signature() {
    let mut chat = chat("gemini-3.8-flash");
    call_round(&mut chat, "Go", SIG_A, "Done.");
    let mut config = chat.config().clone();
    config.model = "gemini-4-argon".into();
    chat.set_config(config).unwrap();
    chat.send_text("Now with Argon").unwrap();
    let request = next_request(&mut chat);
    let sent = contents(&request);
    // The earlier turn is not validated: 3.8 Flash's signature is dropped, nothing replaces it.
    assert_eq!(
        sent[1]["parts"],
        json!([{"functionCall": {"id": "c1", "name": "mcp_s_one", "args": {}}}])
    );
    assert!(!sent.to_string().contains("thoughtSignature"));
    // Argon's own signature, once it answers, is kept.
    stream(&mut chat, &request, &[chunk(json!([{"text": "Hi", "thoughtSignature": SIG_B}]), true)]);
    chat.send_text("More").unwrap();
    let sent = contents(&next_request(&mut chat));
    assert_eq!(sent[5]["parts"][0]["thoughtSignature"], SIG_B);
    assert!(sent[1]["parts"][0].get("thoughtSignature").is_none());
}

#[test]
fn a_model_changed_within_a_turn_gets_the_dummy_on_each_step() {
    // The turn's second request fails; the person picks another model and retries it.
    let mut chat = chat("gemini-3.8-flash");
    chat.send_text("Go").unwrap();
    let first = next_request(&mut chat);
    let call = json!([{"functionCall": {"id": "c1", "name": "mcp_s_one", "args": {}},
                       "thoughtSignature": SIG_A},
                      {"functionCall": {"id": "c2", "name": "mcp_s_two", "args": {}}}]);
    stream(&mut chat, &first, &[chunk(call, true)]);
    run_calls(&mut chat);
    let second = next_request(&mut chat);
    chat.handle_http_error(
        second.id,
        400,
        r#"{"error":{"code":400,"message":"x","status":"INVALID_ARGUMENT"}}"#,
        0,
    );
    while chat.poll_event().is_some() {}
    let mut config = chat.config().clone();
    config.model = "gemini-4-argon".into();
    chat.set_config(config).unwrap();
    assert!(chat.retry().unwrap());
    let sent = contents(&next_request(&mut chat));
    assert_eq!(sent[1]["parts"][0]["thoughtSignature"], SKIP_VALIDATOR);
    assert!(sent[1]["parts"][1].get("thoughtSignature").is_none(), "only the first call");

    // A routed id is served by the same model: its signatures stay.
    let mut chat = self::chat("gemini-3.7-flash");
    chat.send_text("Go").unwrap();
    let first = next_request(&mut chat);
    let call = json!([{"functionCall": {"id": "c1", "name": "mcp_s_one", "args": {}},
                       "thoughtSignature": SIG_A}]);
    stream(&mut chat, &first, &[chunk(call, true)]);
    run_calls(&mut chat);
    let second = next_request(&mut chat);
    chat.handle_http_error(second.id, 400, "{}", 0);
    let mut config = chat.config().clone();
    config.model = "gemini-3.8-flash".into();
    chat.set_config(config).unwrap();
    chat.retry().unwrap();
    assert_eq!(contents(&next_request(&mut chat))[1]["parts"][0]["thoughtSignature"], SIG_A);
}

#[test]
fn unsigned_calls_of_the_current_turn_get_the_dummy_only_where_validated() {
    // History another model produced without signatures (a 2.5 chat) continued mid-turn.
    let history: Vec<Content> = serde_json::from_value(json!([
        {"role": "user", "parts": [{"text": "Earlier"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "mcp_s_one", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "mcp_s_one", "response": {"output": 1}}}]},
        {"role": "model", "parts": [{"text": "Earlier answer"}]},
        {"role": "user", "parts": [{"text": "Now"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "mcp_s_one", "args": {}}},
                                    {"functionCall": {"name": "mcp_s_two", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "mcp_s_one", "response": {}}},
                                   {"functionResponse": {"name": "mcp_s_two", "response": {}}}]},
        {"role": "model", "parts": [{"functionCall": {"name": "mcp_s_two", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "mcp_s_two", "response": {}}}]}
    ]))
    .unwrap();
    let authors = vec![None; history.len()];
    let sent = serde_json::to_value(contents_for(
        &history,
        &authors,
        "gemini-3.8-flash",
        &Family::of("gemini-3.8-flash"),
    ))
    .unwrap();
    let signature = |i: usize, j: usize| sent[i]["parts"][j].get("thoughtSignature").cloned();
    assert_eq!(signature(1, 0), None, "an earlier turn is not validated");
    assert_eq!(signature(5, 0), Some(json!(SKIP_VALIDATOR)));
    assert_eq!(signature(5, 1), None);
    assert_eq!(signature(7, 0), Some(json!(SKIP_VALIDATOR)), "every step of the turn");
    let unvalidated = serde_json::to_value(contents_for(
        &history,
        &authors,
        "gemini-2.5-flash",
        &Family::of("gemini-2.5-flash"),
    ))
    .unwrap();
    assert!(!unvalidated.to_string().contains(SKIP_VALIDATOR));
}

#[test]
fn tools_an_app_offers_within_a_turn_keep_the_turn_signed() {
    // The first call shows an app; the app offers tools of its own, which the turn's next request
    // declares (`Chat::set_tools`); the model calls one, and the round trip stays signed.
    let mut chat = chat("gemini-3.8-flash");
    chat.send_text("Show the chart").unwrap();
    let first = next_request(&mut chat);
    let call = json!([{"functionCall": {"id": "c1", "name": "mcp_s_one", "args": {}},
                       "thoughtSignature": SIG_A}]);
    stream(&mut chat, &first, &[chunk(call, true)]);
    let mut declarations = chat.config().declarations.clone();
    declarations.push(declaration("app_1a2b_zoom"));
    chat.set_tools(declarations, Default::default());
    run_calls(&mut chat);
    let second = next_request(&mut chat);
    let names: Vec<Value> = serde_json::to_value(&second.body.tools).unwrap()[0]
        ["functionDeclarations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].clone())
        .collect();
    assert!(names.contains(&json!("app_1a2b_zoom")));
    let app_call = json!([{"functionCall": {"id": "c2", "name": "app_1a2b_zoom", "args": {"x": 2}},
                           "thoughtSignature": SIG_B}]);
    stream(&mut chat, &second, &[chunk(app_call, true)]);
    // The app answers the call with an MCP result.
    let Some(Action::CallTools(calls)) = chat.poll_action() else { panic!("no app call") };
    let result =
        serde_json::from_value(json!({"content": [{"type": "text", "text": "zoomed"}]})).unwrap();
    chat.handle_tool_result(&calls[0].call_id, ToolOutcome::Mcp(result));
    let third = next_request(&mut chat);
    let sent = contents(&third);
    assert_eq!(sent[1]["parts"][0]["thoughtSignature"], SIG_A);
    assert_eq!(sent[3]["parts"][0]["thoughtSignature"], SIG_B);
    assert_eq!(sent[4]["parts"][0]["functionResponse"]["response"], json!({"output": "zoomed"}));
}
