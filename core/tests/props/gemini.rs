//! The Gemini API's documents: stream chunks, error bodies, the model list, requests; and the
//! function-calling loop fed with whatever a stream holds.

use gemipanel_core::gemini::{
    parse_proto_duration, Action, ApiErrorBody, ApiStatus, Blob, Candidate, Chat, ChatConfig,
    Content, Error, FileData, FunctionCall, FunctionDeclaration, FunctionResponse,
    GenerateContentRequest, GenerateContentResponse, GenerationConfig, ListModelsResponse, Model,
    Part, PromptFeedback, SafetyRating, StreamAccumulator, ThinkingConfig, Tool, ToolOutcome,
    UsageMetadata,
};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use crate::json::{extra, finite_f64, maybe, near, non_null, object, re, text, value};
use crate::support::check;

fn function_call() -> impl Strategy<Value = FunctionCall> {
    (maybe(text()), text(), maybe(non_null()), extra(&["id", "name", "args"]))
        .prop_map(|(id, name, args, extra)| FunctionCall { id, name, args, extra })
}

fn function_response() -> impl Strategy<Value = FunctionResponse> {
    (maybe(text()), text(), value()).prop_map(|(id, name, response)| FunctionResponse {
        id,
        name,
        response,
        parts: Vec::new(),
    })
}

fn part() -> impl Strategy<Value = Part> {
    const KNOWN: &[&str] = &[
        "text",
        "thought",
        "thoughtSignature",
        "inlineData",
        "fileData",
        "functionCall",
        "functionResponse",
    ];
    let blob = (text(), text()).prop_map(|(mime_type, data)| Blob::new(mime_type, data));
    let file =
        (maybe(text()), text()).prop_map(|(mime_type, file_uri)| FileData { mime_type, file_uri });
    (
        (maybe(text()), maybe(any::<bool>()), maybe(text())),
        (maybe(blob), maybe(file), maybe(function_call()), maybe(function_response())),
        extra(KNOWN),
    )
        .prop_map(
            |(
                (text, thought, thought_signature),
                (inline_data, file_data, function_call, function_response),
                extra,
            )| Part {
                text,
                thought,
                thought_signature,
                inline_data,
                file_data,
                function_call,
                function_response,
                extra,
            },
        )
}

/// Text parts most of the time, as streams are.
fn stream_part() -> impl Strategy<Value = Part> {
    prop_oneof![2 => text().prop_map(Part::text), 1 => part()]
}

fn content() -> impl Strategy<Value = Content> {
    (maybe(select(&["model", "user"][..]).prop_map(str::to_owned)), vec(stream_part(), 0..4))
        .prop_map(|(role, parts)| Content { role, parts })
}

fn usage() -> impl Strategy<Value = UsageMetadata> {
    (any::<u64>(), any::<u64>(), any::<u64>(), any::<u64>(), any::<u64>(), any::<u64>()).prop_map(
        |(p, cached, c, t, tool, total)| UsageMetadata {
            prompt_token_count: p,
            cached_content_token_count: cached,
            candidates_token_count: c,
            thoughts_token_count: t,
            tool_use_prompt_token_count: tool,
            total_token_count: total,
        },
    )
}

fn safety_ratings() -> impl Strategy<Value = Vec<SafetyRating>> {
    let category = prop_oneof![
        2 => select(&["HARM_CATEGORY_HARASSMENT", "HARM_CATEGORY_DANGEROUS_CONTENT"][..])
            .prop_map(str::to_owned),
        1 => text(),
    ];
    let probability = prop_oneof![
        2 => select(&["NEGLIGIBLE", "LOW", "MEDIUM", "HIGH"][..]).prop_map(str::to_owned),
        1 => text(),
    ];
    vec(
        (category, probability, maybe(any::<bool>())).prop_map(
            |(category, probability, blocked)| SafetyRating { category, probability, blocked },
        ),
        0..3,
    )
}

fn finish_reason() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => select(&["STOP", "MAX_TOKENS", "SAFETY", "RECITATION", "MALFORMED_FUNCTION_CALL", "SPII"][..])
            .prop_map(str::to_owned),
        1 => text(),
    ]
}

fn candidate() -> impl Strategy<Value = Candidate> {
    (
        maybe(content()),
        maybe(finish_reason()),
        maybe(text()),
        maybe(any::<u32>()),
        safety_ratings(),
        extra(&["content", "finishReason", "finishMessage", "index", "safetyRatings"]),
    )
        .prop_map(|(content, finish_reason, finish_message, index, safety_ratings, extra)| {
            Candidate { content, finish_reason, finish_message, index, safety_ratings, extra }
        })
}

/// One chunk of `streamGenerateContent`.
pub fn response() -> impl Strategy<Value = GenerateContentResponse> {
    let feedback = (maybe(text()), safety_ratings(), extra(&["blockReason", "safetyRatings"]))
        .prop_map(|(block_reason, safety_ratings, extra)| PromptFeedback {
            block_reason,
            safety_ratings,
            extra,
        });
    (vec(candidate(), 0..2), maybe(feedback), maybe(usage()), maybe(text()), maybe(text()))
        .prop_map(|(candidates, prompt_feedback, usage_metadata, model_version, response_id)| {
            GenerateContentResponse {
                candidates,
                prompt_feedback,
                usage_metadata,
                model_version,
                response_id,
            }
        })
}

/// A chunk as JSON: the shape the API sends, to be damaged by `near`.
pub fn response_value() -> BoxedStrategy<Value> {
    prop_oneof![
        4 => response().prop_map(|r| to_value(&r)),
        1 => api_error().prop_map(|e| to_value(&e)),
    ]
    .boxed()
}

fn api_status() -> impl Strategy<Value = ApiStatus> {
    let detail = prop_oneof![
        (select(&["1s", "20s", "1.5s", "-1s", "1e400s", "NaNs", "s", "0.000000001s"][..]))
            .prop_map(|d| serde_json::json!({
                "@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": d
            })),
        text().prop_map(|reason| serde_json::json!({
            "@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": reason
        })),
        text().prop_map(|field| serde_json::json!({
            "@type": "type.googleapis.com/google.rpc.BadRequest",
            "fieldViolations": [{"field": field}]
        })),
        value(),
    ];
    (any::<u16>(), text(), text(), vec(detail, 0..3))
        .prop_map(|(code, message, status, details)| ApiStatus { code, message, status, details })
}

fn api_error() -> impl Strategy<Value = ApiErrorBody> {
    api_status().prop_map(|error| ApiErrorBody { error })
}

fn model() -> impl Strategy<Value = Model> {
    (
        text(),
        text(),
        text(),
        vec(prop_oneof![Just("generateContent".to_owned()), text()], 0..3),
        maybe(any::<u64>()),
        maybe(any::<u64>()),
    )
        .prop_map(
            |(
                name,
                display_name,
                description,
                supported_generation_methods,
                input_token_limit,
                output_token_limit,
            )| Model {
                name,
                version: String::new(),
                display_name,
                description,
                supported_generation_methods,
                input_token_limit,
                output_token_limit,
                thinking: None,
            },
        )
}

fn models_page() -> impl Strategy<Value = ListModelsResponse> {
    (vec(model(), 0..3), maybe(text()))
        .prop_map(|(models, next_page_token)| ListModelsResponse { models, next_page_token })
}

fn request() -> impl Strategy<Value = GenerateContentRequest> {
    let declaration = (text(), text(), maybe(non_null()), maybe(non_null())).prop_map(
        |(name, description, parameters_json_schema, parameters)| FunctionDeclaration {
            name,
            description,
            parameters_json_schema,
            parameters,
        },
    );
    let tool = (vec(declaration, 0..3), maybe(object())).prop_map(
        |(function_declarations, google_search)| Tool { function_declarations, google_search },
    );
    let thinking = (maybe(any::<bool>()), maybe(any::<i32>()), maybe(text())).prop_map(
        |(include_thoughts, thinking_budget, thinking_level)| ThinkingConfig {
            include_thoughts,
            thinking_budget,
            thinking_level,
        },
    );
    let generation = (
        maybe(finite_f64()),
        maybe(any::<u32>()),
        maybe(thinking),
        extra(&["temperature", "maxOutputTokens", "thinkingConfig"]),
    )
        .prop_map(|(temperature, max_output_tokens, thinking_config, extra)| {
            GenerationConfig { temperature, max_output_tokens, thinking_config, extra }
        });
    (
        vec(content(), 0..3),
        vec(tool, 0..2),
        maybe(non_null()),
        maybe(content()),
        maybe(generation),
        maybe(non_null()),
    )
        .prop_map(
            |(contents, tools, tool_config, system_instruction, generation_config, safety)| {
                GenerateContentRequest {
                    contents,
                    tools,
                    tool_config,
                    system_instruction,
                    generation_config,
                    safety_settings: safety,
                }
            },
        )
}

fn to_value<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("core's types serialise")
}

/// `value` written as JSON text and read back as `T` equals `value`.
pub fn round_trip<T>(value: &T) -> Result<(), TestCaseError>
where
    T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let text = serde_json::to_string(value).expect("core's types serialise");
    let back: T = serde_json::from_str(&text)
        .map_err(|e| TestCaseError::fail(format!("{text} does not read back: {e}")))?;
    prop_assert_eq!(&back, value, "through {}", text);
    Ok(())
}

#[test]
fn gemini_documents_round_trip() {
    check(
        "gemini_round_trip",
        (response(), api_error(), models_page(), request()),
        |(response, error, models, request)| {
            round_trip(&response)?;
            round_trip(&error)?;
            round_trip(&models)?;
            round_trip(&request)
        },
    );
}

/// Every question one may ask of an error: none may panic.
fn ask(error: &Error) -> String {
    let _ = (error.status(), error.api_status(), error.retry_after());
    let _ = (error.is_auth(), error.is_missing_key(), error.is_rate_limited());
    let _ = (error.is_server(), error.is_network(), error.is_malformed(), error.is_blocked());
    let _ = error.is_schema_rejected();
    format!("{error} {:?} {}", error.text(), error.text())
}

#[test]
fn gemini_stream_chunks_and_error_bodies_never_panic() {
    let chunk = prop_oneof![
        3 => near(response_value()).prop_map(|v| v.to_string()),
        1 => value().prop_map(|v| v.to_string()),
        1 => text(),
    ];
    let http_status = prop_oneof![Just(400u16), Just(429), Just(500), any::<u16>()];
    check("gemini_chunks", (vec(chunk, 0..4), http_status), |(chunks, status)| {
        let mut acc = StreamAccumulator::new();
        for chunk in &chunks {
            for event in acc.push(chunk) {
                let _ = format!("{event:?}");
            }
            // The same text as an HTTP error body, bare and wrapped as some proxies send it.
            ask(&Error::from_http(status, chunk));
            ask(&Error::from_http(status, &format!("[{chunk}]")));
            let _ = gemipanel_core::gemini::list_error(status, chunk.as_bytes());
            if let Ok(page) = serde_json::from_str::<ListModelsResponse>(chunk) {
                let _ = gemipanel_core::gemini::chat_models(&page.models).count();
            }
        }
        let outcome = acc.finish();
        if let Some(error) = &outcome.error {
            ask(error);
        }
        let _ = outcome.function_calls();
        Ok(())
    });
}

#[test]
fn proto_durations_never_panic() {
    let duration = prop_oneof![
        re("-?[0-9]{0,12}(\\.[0-9]{0,12})?(e-?[0-9]{1,3})?s?"),
        text(),
        finite_f64().prop_map(|f| format!("{f}s")),
    ];
    check("proto_duration", duration, |text| {
        if let Some(d) = parse_proto_duration(&text) {
            prop_assert!(d.as_secs() < 1_000_000_000, "{text} gave {d:?}");
        }
        Ok(())
    });
}

/// Arbitrary streams through the whole function-calling loop: every answer the loop asks for is
/// given (a stream of damaged chunks, a tool result), until it asks for nothing more.
#[test]
fn the_chat_loop_takes_any_stream() {
    let stream = vec(
        prop_oneof![3 => near(response_value()).prop_map(|v| v.to_string()), 1 => text()],
        0..4,
    );
    let ending = prop_oneof![
        3 => Just(None),
        1 => (any::<u16>(), text()).prop_map(Some),
    ];
    let outcome = prop_oneof![
        value().prop_map(ToolOutcome::Output),
        crate::mcp::call_result().prop_map(ToolOutcome::Mcp),
        text().prop_map(ToolOutcome::Error),
    ];
    let rounds = vec((stream, ending, outcome), 1..4);
    check("gemini_chat_loop", (text(), rounds), |(prompt, rounds)| {
        let mut config = ChatConfig::new("gemini-2.5-flash");
        config.declarations = vec![FunctionDeclaration {
            name: "f".into(),
            description: String::new(),
            parameters_json_schema: Some(serde_json::json!({"type": "object"})),
            parameters: None,
        }];
        let mut chat = Chat::new(config, Vec::new());
        let _ = chat.send_text(prompt);
        let mut now = 0;
        for (chunks, ending, outcome) in rounds {
            let mut asked = false;
            while let Some(action) = chat.poll_action() {
                asked = true;
                match action {
                    Action::Send(request) => {
                        for chunk in &chunks {
                            chat.handle_stream_data(request.id, chunk);
                        }
                        now += 1000;
                        match &ending {
                            None => chat.handle_stream_end(request.id, now),
                            Some((status, body)) => {
                                chat.handle_http_error(request.id, *status, body, now)
                            }
                        }
                    }
                    Action::CallTools(calls) => {
                        for call in calls {
                            chat.handle_tool_result(&call.call_id, outcome.clone());
                        }
                    }
                    _ => {}
                }
            }
            while chat.poll_event().is_some() {}
            if let Some(at) = chat.poll_timeout() {
                now = now.max(at);
                chat.handle_timeout(now);
            }
            if !asked && chat.poll_timeout().is_none() {
                break;
            }
        }
        chat.stop();
        let _ = format!("{:?}", chat.history());
        Ok(())
    });
}
