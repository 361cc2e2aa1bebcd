//! The page ↔ worker protocol: what a page sends the worker, read by `decode_client_message`.

use gemipanel_core::apps::resource::{AppRead, UiResourceMeta};
use gemipanel_core::mcp::InvalidTool;
use gemipanel_core::messages::{
    decode_client_message, AppConsent, Caller, ClientMessage, ElicitationPrompt, Event, Recovery,
    Request, Response, WorkerMessage,
};
use gemipanel_core::reset::Removed;
use gemipanel_core::text::Text;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::Value;

use crate::json::{finite_f64, maybe, near, object, text, value};
use crate::support::check;

fn server_id() -> impl Strategy<Value = gemipanel_core::settings::ServerId> {
    (0u8..4).prop_map(|n| gemipanel_core::settings::ServerId::generate([n; 16]))
}

fn request() -> impl Strategy<Value = Request> {
    prop_oneof![
        Just(Request::Status),
        Just(Request::DeleteEverything),
        Just(Request::GetSettings),
        crate::settings::edit().prop_map(|edit| Request::EditSettings { edit }),
        any::<bool>().prop_map(|include_secrets| Request::ExportSettings { include_secrets }),
        select(&[Recovery::Restore, Recovery::ExportKept, Recovery::StartFresh][..])
            .prop_map(|action| Request::RecoverSettings { action }),
        Just(Request::ListServers),
        (server_id(), any::<bool>())
            .prop_map(|(server_id, refresh)| Request::ListTools { server_id, refresh }),
        (
            (text(), server_id(), text(), value()),
            select(&[Caller::Model, Caller::App][..]),
            any::<(bool, bool)>()
        )
            .prop_map(
                |((call_id, server_id, tool, arguments), caller, (seen, allowed))| {
                    let consent = AppConsent { page_content_seen: seen, allowed };
                    Request::CallTool { call_id, server_id, tool, arguments, caller, consent }
                }
            ),
        server_id().prop_map(|server_id| Request::ListResources { server_id }),
        text().prop_map(|call_id| Request::CancelToolCall { call_id }),
        (server_id(), text()).prop_map(|(server_id, uri)| Request::ReadResource { server_id, uri }),
        (server_id(), text(), proptest::option::of(text()))
            .prop_map(|(server_id, uri, held)| Request::ReadApp { server_id, uri, held }),
        (crate::settings::draft(), proptest::option::of(text()))
            .prop_map(|(draft, run)| Request::TestConnection { draft, run }),
        (text(), crate::mcp::elicit_result()).prop_map(|(elicitation_id, result)| {
            Request::AnswerElicitation { elicitation_id, result }
        }),
    ]
}

fn client_message() -> impl Strategy<Value = ClientMessage> {
    (any::<u64>(), request()).prop_map(|(id, request)| ClientMessage { id, request })
}

#[test]
fn page_messages_round_trip() {
    check("page_message_round_trip", client_message(), |message| {
        let wire = serde_json::to_value(&message).expect("messages serialise");
        prop_assert_eq!(decode_client_message(wire.clone()), Ok(message), "through {}", wire);
        Ok(())
    });
}

#[test]
fn page_messages_never_panic_and_keep_their_id() {
    let input = prop_oneof![
        4 => near(client_message().prop_map(|m| serde_json::to_value(m).expect("serialises"))),
        1 => value(),
    ];
    check("page_message_decode", input, |wire| {
        let id = wire.get("id").and_then(Value::as_u64);
        match decode_client_message(wire) {
            Ok(message) => prop_assert_eq!(Some(message.id), id),
            Err(e) => {
                prop_assert_eq!(e.id, id, "the answer goes to the id the page sent");
                let reply = serde_json::to_value(e.into_reply()).expect("replies serialise");
                let back: WorkerMessage = serde_json::from_value(reply.clone())
                    .map_err(|e| TestCaseError::fail(format!("{reply} does not read: {e}")))?;
                let is_response = matches!(back, WorkerMessage::Response { .. });
                prop_assert!(is_response, "{:?}", back);
            }
        }
        Ok(())
    });
}

/// Something the worker says, as a key and plain arguments.
fn said() -> impl Strategy<Value = Text> {
    (select(&["errPlain", "errWorkerBadRequest", "noticeSafety"][..]), vec(text(), 0..3))
        .prop_map(|(key, args)| args.into_iter().fold(Text::new(key), Text::arg))
}

/// What the worker sends the pages: the answers and events that carry outside data.
fn worker_message() -> impl Strategy<Value = WorkerMessage> {
    let invalid = (maybe(text()), said()).prop_map(|(name, reason)| InvalidTool { name, reason });
    let response = prop_oneof![
        crate::settings::valid_settings().prop_map(|settings| Response::Settings { settings }),
        (server_id(), vec(crate::mcp::tool(), 0..2), vec(invalid, 0..2), any::<bool>()).prop_map(
            |(server_id, tools, invalid, fetched)| Response::Tools {
                server_id,
                tools,
                invalid,
                fetched,
            }
        ),
        crate::mcp::call_result().prop_map(|result| Response::ToolResult { result }),
        crate::mcp::read_result().prop_map(|result| Response::Resource { result }),
        (text(), proptest::option::of(text()), proptest::option::of(any::<bool>())).prop_map(
            |(digest, html, prefers_border)| {
                let meta = UiResourceMeta { prefers_border, ..Default::default() };
                Response::App { read: AppRead { meta, digest, html } }
            }
        ),
        Just(Response::Ok),
        any::<[u32; 4]>().prop_map(|[servers, sign_ins, dpop_keys, chats]| {
            let removed = Removed { servers, sign_ins, dpop_keys, chats };
            Response::DeletedEverything { removed }
        }),
        any::<bool>().prop_map(|because_of_page_content| Response::ConfirmAppCall {
            because_of_page_content
        }),
        said().prop_map(|error| Response::Error { error }),
    ];
    let event = prop_oneof![
        (text(), finite_f64(), maybe(finite_f64()), maybe(text())).prop_map(
            |(call_id, progress, total, message)| Event::ToolProgress {
                call_id,
                progress,
                total,
                message
            }
        ),
        (text(), text(), text(), object(), object()).prop_map(
            |(call_id, elicitation_id, message, schema, defaults)| Event::Elicitation {
                call_id,
                elicitation_id,
                prompt: ElicitationPrompt::Form {
                    message,
                    requested_schema: Value::Object(schema),
                    defaults
                },
            }
        ),
        (text(), text(), text()).prop_map(|(call_id, elicitation_id, url)| Event::Elicitation {
            call_id,
            elicitation_id,
            prompt: ElicitationPrompt::Url { message: String::new(), url },
        }),
        server_id().prop_map(|server_id| Event::ToolsChanged { server_id }),
    ];
    prop_oneof![
        (any::<u64>(), response)
            .prop_map(|(id, response)| WorkerMessage::Response { id, response }),
        event.prop_map(|event| WorkerMessage::Event { event }),
    ]
}

#[test]
fn worker_messages_round_trip() {
    check("worker_message_round_trip", worker_message(), |message| {
        crate::gemini::round_trip(&message)
    });
}

#[test]
fn worker_messages_never_panic_a_page() {
    let input = prop_oneof![
        4 => near(worker_message().prop_map(|m| serde_json::to_value(m).expect("serialises"))),
        1 => value(),
    ];
    check("worker_message_decode", input, |wire| {
        let _ = serde_json::from_value::<WorkerMessage>(wire);
        Ok(())
    });
}
