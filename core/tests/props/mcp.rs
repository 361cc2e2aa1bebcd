//! What MCP servers send (JSON-RPC envelopes, results, notifications, requests of their own) and
//! what the worker stores of it (sessions, tool lists).

use gemipanel_core::decode::{self, Lenient};
use gemipanel_core::gemini::schema;
use gemipanel_core::jsonrpc::{ErrorObject, Id, Message, Notification, Request, Response};
use gemipanel_core::mcp::elicitation::{complete_with_defaults, parse_request};
use gemipanel_core::mcp::{
    CallToolResult, ContentBlock, DiscoverMeta, DiscoverResult, ElicitAction, ElicitMode,
    ElicitParams, ElicitResult, Implementation, InitializeResult, ListToolsResult, Progress,
    ReadResourceResult, ResourceContents, ServerDescription, SessionState, Tool, ToolAnnotations,
    ToolMeta, UiToolMeta, Visibility,
};
use gemipanel_core::saved_session::SavedSession;
use gemipanel_core::tool_cache::CachedTools;
use gemipanel_core::tools::{ExposedTools, ToolDescriptor, ToolFilter};
use indexmap::IndexMap;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{Map, Value};

use crate::gemini::round_trip;
use crate::json::{bytes, extra, finite_f64, maybe, near, non_null, object, text, value};
use crate::support::check;

fn implementation() -> impl Strategy<Value = Implementation> {
    (text(), text(), maybe(text()), extra(&["name", "version", "title"]))
        .prop_map(|(name, version, title, extra)| Implementation { name, version, title, extra })
}

fn visibility() -> impl Strategy<Value = Visibility> {
    select(&[Visibility::Model, Visibility::App, Visibility::Unknown][..])
}

fn tool_meta() -> impl Strategy<Value = ToolMeta> {
    let ui = (maybe(text()), maybe(vec(visibility(), 0..3)), extra(&["resourceUri", "visibility"]))
        .prop_map(|(resource_uri, visibility, extra)| UiToolMeta {
            resource_uri,
            visibility,
            extra,
        });
    (maybe(ui), maybe(text()), extra(&["ui", "ui/resourceUri"]))
        .prop_map(|(ui, ui_resource_uri, extra)| ToolMeta { ui, ui_resource_uri, extra })
}

fn annotations() -> impl Strategy<Value = ToolAnnotations> {
    const KNOWN: &[&str] =
        &["title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"];
    let hint = || maybe(any::<bool>());
    (maybe(text()), hint(), hint(), hint(), hint(), extra(KNOWN)).prop_map(
        |(title, read_only_hint, destructive_hint, idempotent_hint, open_world_hint, extra)| {
            ToolAnnotations {
                title,
                read_only_hint,
                destructive_hint,
                idempotent_hint,
                open_world_hint,
                extra,
            }
        },
    )
}

/// A JSON Schema as servers write them, `$ref`s and all, or any object.
fn schema_object() -> impl Strategy<Value = Map<String, Value>> {
    let property = prop_oneof![
        select(&["string", "number", "integer", "boolean", "array", "object", "null"][..])
            .prop_map(|t| serde_json::json!({"type": t})),
        Just(serde_json::json!({"type": ["string", "null"]})),
        Just(serde_json::json!({"$ref": "#/$defs/a"})),
        Just(serde_json::json!({"$ref": "#"})),
        Just(serde_json::json!({"anyOf": [{"$ref": "#/$defs/a"}, {"type": "string"}]})),
        value(),
    ];
    let schema = (vec((text(), property), 0..4), maybe(value())).prop_map(|(props, defs)| {
        let mut schema = Map::new();
        schema.insert("type".into(), "object".into());
        schema.insert("properties".into(), Value::Object(props.into_iter().collect()));
        if let Some(defs) = defs {
            schema.insert("$defs".into(), serde_json::json!({"a": defs}));
        }
        schema
    });
    prop_oneof![3 => schema, 1 => object()]
}

pub fn tool() -> impl Strategy<Value = Tool> {
    const KNOWN: &[&str] =
        &["name", "title", "description", "inputSchema", "outputSchema", "annotations", "_meta"];
    (
        (text(), maybe(text()), maybe(text())),
        (schema_object(), maybe(non_null())),
        (maybe(annotations()), maybe(tool_meta()), extra(KNOWN)),
    )
        .prop_map(
            |(
                (name, title, description),
                (input_schema, output_schema),
                (annotations, meta, extra),
            )| {
                Tool {
                    name,
                    title,
                    description,
                    input_schema: Value::Object(input_schema),
                    output_schema,
                    annotations,
                    meta,
                    extra,
                }
            },
        )
}

fn list_tools() -> impl Strategy<Value = ListToolsResult> {
    (vec(tool().prop_map(Lenient::Valid), 0..3), maybe(text()), maybe(non_null()))
        .prop_map(|(tools, next_cursor, ttl_ms)| ListToolsResult { tools, next_cursor, ttl_ms })
}

fn content_block() -> impl Strategy<Value = ContentBlock> {
    prop_oneof![
        2 => text().prop_map(ContentBlock::text_block),
        1 => (text(), text()).prop_map(|(data, mime)| ContentBlock(serde_json::json!({
            "type": "image", "data": data, "mimeType": mime
        }))),
        1 => value().prop_map(ContentBlock),
    ]
}

pub fn call_result() -> impl Strategy<Value = CallToolResult> {
    (
        vec(content_block(), 0..3),
        maybe(non_null()),
        maybe(any::<bool>()),
        maybe(object()),
        extra(&["content", "structuredContent", "isError", "_meta"]),
    )
        .prop_map(|(content, structured_content, is_error, meta, extra)| CallToolResult {
            content,
            structured_content,
            is_error,
            meta,
            extra,
        })
}

pub fn read_result() -> impl Strategy<Value = ReadResourceResult> {
    let contents = (
        (text(), maybe(text()), maybe(text()), maybe(text())),
        maybe(object()),
        extra(&["uri", "mimeType", "text", "blob", "_meta"]),
    )
        .prop_map(|((uri, mime_type, text, blob), meta, extra)| ResourceContents {
            uri,
            mime_type,
            text,
            blob,
            meta,
            extra,
        });
    (vec(contents, 0..3), maybe(object()), extra(&["contents", "_meta"]))
        .prop_map(|(contents, meta, extra)| ReadResourceResult { contents, meta, extra })
}

fn initialize_result() -> impl Strategy<Value = InitializeResult> {
    (text(), implementation(), object(), maybe(text())).prop_map(
        |(protocol_version, server_info, capabilities, instructions)| InitializeResult {
            protocol_version,
            server_info,
            capabilities,
            instructions,
        },
    )
}

fn discover_result() -> impl Strategy<Value = DiscoverResult> {
    let meta = (maybe(implementation()), extra(&["io.modelcontextprotocol/serverInfo"]))
        .prop_map(|(server_info, extra)| DiscoverMeta { server_info, extra });
    (vec(text(), 0..3), object(), maybe(text()), maybe(meta)).prop_map(
        |(supported_versions, capabilities, instructions, meta)| DiscoverResult {
            supported_versions,
            capabilities,
            instructions,
            meta,
        },
    )
}

fn progress() -> impl Strategy<Value = Progress> {
    (value(), finite_f64(), maybe(finite_f64()), maybe(text())).prop_map(
        |(progress_token, progress, total, message)| Progress {
            progress_token,
            progress,
            total,
            message,
        },
    )
}

fn elicit_params() -> impl Strategy<Value = ElicitParams> {
    let mode = maybe(select(&[ElicitMode::Form, ElicitMode::Url][..]));
    (mode, text(), maybe(schema_object().prop_map(Value::Object)), maybe(text()), maybe(text()))
        .prop_map(|(mode, message, requested_schema, url, elicitation_id)| ElicitParams {
            mode,
            message,
            requested_schema,
            url,
            elicitation_id,
        })
}

pub fn elicit_result() -> impl Strategy<Value = ElicitResult> {
    let action = select(&[ElicitAction::Accept, ElicitAction::Decline, ElicitAction::Cancel][..]);
    (action, maybe(object())).prop_map(|(action, content)| ElicitResult { action, content })
}

fn saved_session() -> impl Strategy<Value = SavedSession> {
    (text(), text(), maybe(text()), any::<bool>()).prop_map(
        |(url, protocol_version, session_id, sse_transport)| SavedSession {
            url,
            state: SessionState { protocol_version, session_id, sse_transport },
        },
    )
}

fn cached_tools() -> impl Strategy<Value = CachedTools> {
    (text(), any::<u64>(), vec(tool(), 0..3)).prop_map(|(url, fetched_at_ms, tools)| CachedTools {
        url,
        fetched_at_ms,
        tools,
    })
}

fn id() -> impl Strategy<Value = Id> {
    prop_oneof![any::<i64>().prop_map(Id::Number), text().prop_map(Id::String)]
}

/// Every message that a JSON-RPC text can hold. Not made: a response with no id and a result
/// (refused as "a result without an id") and a `null` params, data or result, which read back
/// as absent (`"result": null` is no response at all to `Message::parse`; MCP results are
/// objects).
pub fn message() -> impl Strategy<Value = Message> {
    let method = || {
        prop_oneof![
            select(&["tools/call", "ping", "notifications/progress"][..]).prop_map(str::to_owned),
            text()
        ]
    };
    let error = (any::<i64>(), text(), maybe(non_null()))
        .prop_map(|(code, message, data)| ErrorObject { code, message, data });
    prop_oneof![
        (id(), method(), maybe(non_null()))
            .prop_map(|(id, method, params)| Message::Request(Request { id, method, params })),
        (method(), maybe(non_null()))
            .prop_map(|(method, params)| Message::Notification(Notification { method, params })),
        (id(), non_null()).prop_map(|(id, result)| Message::Response(Response {
            id: Some(id),
            outcome: Ok(result)
        })),
        (maybe(id()), error)
            .prop_map(|(id, error)| Message::Response(Response { id, outcome: Err(error) })),
    ]
}

#[test]
fn json_rpc_messages_round_trip() {
    check("jsonrpc_round_trip", message(), |message| {
        let text = message.to_json();
        prop_assert_eq!(Message::parse(text.as_bytes()), Ok(message), "through {}", text);
        Ok(())
    });
}

#[test]
fn json_rpc_parse_never_panics() {
    let input = prop_oneof![
        2 => bytes(256),
        2 => near(message().prop_map(|m| serde_json::to_value(m).expect("serialises")))
            .prop_map(|v| v.to_string().into_bytes()),
        1 => value().prop_map(|v| v.to_string().into_bytes()),
    ];
    check("jsonrpc_parse", input, |bytes| {
        if let Err(e) = Message::parse(&bytes) {
            let _ = e.to_string();
        }
        Ok(())
    });
}

#[test]
fn mcp_results_round_trip() {
    let results = (
        (tool(), list_tools(), call_result(), read_result()),
        (initialize_result(), discover_result(), progress()),
        (elicit_params(), elicit_result(), saved_session(), cached_tools()),
    );
    check("mcp_round_trip", results, |(a, b, c)| {
        let (tool, list, call, read) = a;
        round_trip(&tool)?;
        round_trip(&list)?;
        round_trip(&call)?;
        round_trip(&read)?;
        let (initialize, discover, progress) = b;
        round_trip(&initialize)?;
        round_trip(&discover)?;
        round_trip(&progress)?;
        let (params, result, session, cached) = c;
        round_trip(&params)?;
        round_trip(&result)?;
        round_trip(&session)?;
        round_trip(&cached)?;
        // The cache's own writer reads back too.
        if let Some(stored) = cached.to_stored() {
            prop_assert_eq!(serde_json::from_str::<CachedTools>(&stored).ok(), Some(cached));
        }
        Ok(())
    });
}

fn to_value<T: serde::Serialize>(v: T) -> Value {
    serde_json::to_value(v).expect("core's types serialise")
}

/// Documents of every kind a server sends, as sent or damaged.
fn server_document() -> BoxedStrategy<Value> {
    near(prop_oneof![
        tool().prop_map(to_value),
        list_tools().prop_map(to_value),
        call_result().prop_map(to_value),
        read_result().prop_map(to_value),
        initialize_result().prop_map(to_value),
        discover_result().prop_map(to_value),
        progress().prop_map(to_value),
        elicit_params().prop_map(to_value),
        elicit_result().prop_map(to_value),
        saved_session().prop_map(to_value),
        cached_tools().prop_map(to_value),
    ])
}

/// Reads `doc` as `T` the way core does (with the path of the error) and says what it read.
fn read<T: serde::de::DeserializeOwned>(doc: &Value) -> Option<T> {
    match decode::from_value::<T>("a document", doc.clone()) {
        Ok(v) => Some(v),
        Err(e) => {
            let _ = (e.to_string(), e.located());
            None
        }
    }
}

#[test]
fn mcp_documents_never_panic_a_reader() {
    check("mcp_documents", prop_oneof![4 => server_document(), 1 => value()], |doc| {
        if let Some(tool) = read::<Tool>(&doc) {
            let _ = (tool.read_only(), tool.destructive(), tool.ui_resource_uri());
            let _ = (tool.is_visible_to(Visibility::Model), tool.is_visible_to(Visibility::App));
            let descriptor = ToolDescriptor::from_mcp("srv_1", "server", &tool);
            let set = ExposedTools::build(&[descriptor], &IndexMap::<String, ToolFilter>::new());
            for declaration in set.declarations() {
                let _ = declaration.to_openapi_parameters();
            }
        }
        if let Some(page) = read::<ListToolsResult>(&doc) {
            // One bad entry costs only itself: every entry is either a tool or reported.
            let entries = page.tools.len();
            let (tools, invalid) = page.split();
            prop_assert_eq!(tools.len() + invalid.len(), entries);
        }
        if let Some(result) = read::<CallToolResult>(&doc) {
            let _ = (result.text(), result.is_error());
            for block in &result.content {
                let _ = (block.kind(), block.text(), block.mime_type());
            }
        }
        let _ = read::<ReadResourceResult>(&doc);
        if let Some(result) = read::<InitializeResult>(&doc) {
            let description = ServerDescription::from(result);
            let _ = (description.name(), description.has_capability("tools"));
        }
        let _ = read::<DiscoverResult>(&doc);
        let _ = read::<Progress>(&doc);
        let _ = read::<SavedSession>(&doc)
            .map(|s| (s.state.is_modern(), s.state.sends_version_header()));
        let _ = read::<CachedTools>(&doc).map(|c| c.for_url("https://a.example/mcp"));
        if let Ok(request) = parse_request(&doc) {
            for answer in [ElicitResult::accept(Map::new()), ElicitResult::decline()] {
                let _ = complete_with_defaults(&request, answer);
            }
        }
        if let Some(answer) = read::<ElicitResult>(&doc) {
            let _ = to_value(answer);
        }
        Ok(())
    });
}

#[test]
fn a_tool_list_entry_is_listed_exactly_when_it_reads_as_a_tool() {
    let entry = prop_oneof![tool().prop_map(to_value), near(tool().prop_map(to_value)), value()];
    check("tools_list_lenient", vec(entry, 0..5), |entries| {
        let page: ListToolsResult =
            serde_json::from_value(serde_json::json!({ "tools": entries.clone() }))
                .map_err(|e| TestCaseError::fail(format!("a list of entries reads: {e}")))?;
        let (tools, invalid) = page.split();
        let expected: Vec<Tool> =
            entries.iter().filter_map(|e| serde_json::from_value(e.clone()).ok()).collect();
        prop_assert_eq!(invalid.len(), entries.len() - expected.len());
        prop_assert_eq!(tools, expected);
        Ok(())
    });
}

#[test]
fn tool_schemas_never_panic_the_conversion_for_gemini() {
    check("tool_schemas", near(schema_object().prop_map(Value::Object)), |schema_value| {
        let json_schema = schema::parameters_json_schema(&schema_value);
        let _ = schema::to_openapi_subset(&json_schema);
        let _ = schema::to_openapi_subset(&schema_value);
        Ok(())
    });
}
