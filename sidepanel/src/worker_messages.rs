//! What the worker sends the side panel: core's [`WorkerMessage`], narrowed to the answers and
//! events the panel reads.
//!
//! Why not decode `WorkerMessage` itself: every variant's decoder ends up in the wasm module, and
//! the ones only the popup receives (import previews with their settings edits, connection tests,
//! resources, server lists) cost about 45 KB. Unknown tags land in `Other`, so the protocol can grow without
//! breaking the panel.
//!
//! [`WorkerMessage`]: gemipanel_core::messages::WorkerMessage

use gemipanel_browser::port::Delivery;
use gemipanel_core::messages::{ElicitationPrompt, WorkerStatus};
use gemipanel_core::settings::Settings;
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Incoming {
    Response { id: u64, response: Reply },
    Event { event: WorkerEvent },
}

/// The worker's answer to a request, as [`gemipanel_core::messages::Response`].
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Reply {
    Status(WorkerStatus),
    Settings {
        settings: Settings,
    },
    /// MCP `Tool`s as JSON: the panel passes them to `core::tools` as JSON anyway (and a typed
    /// decoder would cost wasm size).
    Tools {
        tools: Vec<Value>,
    },
    /// An MCP `CallToolResult` as JSON, which is what the chat loop takes.
    ToolResult {
        result: Value,
    },
    Error {
        message: String,
    },
    /// `ok`, and the answers to requests the panel never sends.
    #[serde(other)]
    Other,
}

/// Something the worker pushes, as [`gemipanel_core::messages::Event`].
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum WorkerEvent {
    WorkerStarted,
    SettingsChanged {
        settings: Settings,
    },
    /// The panel fetches its status again; what changed does not matter to it.
    ServerStatus,
    ToolsChanged,
    ToolProgress {
        call_id: String,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    },
    Elicitation {
        call_id: String,
        elicitation_id: String,
        prompt: ElicitationPrompt,
    },
    /// Settings problems are the popup's to show; events added later are ignored.
    #[serde(other)]
    Other,
}

/// The panel's port to the worker, decoding into these types.
pub type WorkerPort = gemipanel_browser::port::WorkerPort<Incoming>;

impl gemipanel_browser::port::Incoming for Incoming {
    type Reply = Reply;
    type Event = WorkerEvent;

    fn into_delivery(self) -> Delivery<Reply, WorkerEvent> {
        match self {
            Incoming::Response { id, response } => Delivery::Reply { id, reply: response },
            Incoming::Event { event } => Delivery::Event(event),
        }
    }
}

/// Reads one message from its JSON text, as the port does.
#[cfg(test)]
fn decode(text: &str) -> Result<Incoming, String> {
    serde_json::from_str(text).map_err(|e| format!("ignoring a worker message: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use gemipanel_core::messages::{
        ConnectionOutcome, Event, Response, ServerStatus, WorkerMessage,
    };
    use gemipanel_core::settings::ServerId;
    use serde_json::json;

    /// Encodes as the worker does, decodes as the panel does.
    fn relay(message: WorkerMessage) -> Incoming {
        decode(&serde_json::to_string(&message).unwrap()).unwrap()
    }

    fn reply(response: Response) -> Reply {
        match relay(WorkerMessage::Response { id: 5, response }) {
            Incoming::Response { id: 5, response } => response,
            _ => panic!("not the response to request 5"),
        }
    }

    fn event(event: Event) -> WorkerEvent {
        match relay(WorkerMessage::Event { event }) {
            Incoming::Event { event } => event,
            _ => panic!("not an event"),
        }
    }

    #[test]
    fn the_answers_the_panel_reads_keep_their_content() {
        let status =
            WorkerStatus { extension_version: "1.2.3".into(), uptime_ms: 9, configured_servers: 2 };
        assert!(matches!(reply(Response::Status(status.clone())), Reply::Status(s) if s == status));
        let settings = Settings::default();
        assert!(matches!(
            reply(Response::Settings { settings: settings.clone() }),
            Reply::Settings { settings: s } if s == settings
        ));
        assert!(matches!(
            reply(Response::Error { message: "no key".into() }),
            Reply::Error { message } if message == "no key"
        ));
    }

    #[test]
    fn tools_and_tool_results_are_decoded() {
        let tools = json!({"kind": "response", "id": 1, "response": {
            "type": "tools", "server_id": "s1",
            "tools": [{"name": "echo", "inputSchema": {"type": "object"}}]
        }});
        match decode(&tools.to_string()).unwrap() {
            Incoming::Response { response: Reply::Tools { tools }, .. } => {
                assert_eq!(tools.len(), 1);
                assert_eq!(tools[0]["name"], "echo");
            }
            _ => panic!("tools not decoded"),
        }
        let result = json!({"kind": "response", "id": 2, "response": {
            "type": "tool_result", "result": {"content": [{"type": "text", "text": "hi"}]}
        }});
        match decode(&result.to_string()).unwrap() {
            Incoming::Response { response: Reply::ToolResult { result }, .. } => {
                assert_eq!(result["content"][0]["text"], "hi");
            }
            _ => panic!("tool result not decoded"),
        }
    }

    #[test]
    fn answers_the_panel_does_not_read_are_other_not_errors() {
        assert!(matches!(reply(Response::Ok), Reply::Other));
        assert!(matches!(
            reply(Response::ConnectionTest { outcome: ConnectionOutcome::NeedsSignIn }),
            Reply::Other
        ));
        assert!(matches!(reply(Response::Servers { servers: Vec::new() }), Reply::Other));
        let preview = json!({"kind": "response", "id": 3, "response": {
            "type": "import_preview", "preview": {"anything": ["goes"]}
        }});
        assert!(matches!(
            decode(&preview.to_string()).unwrap(),
            Incoming::Response { id: 3, response: Reply::Other }
        ));
        let future = json!({"kind": "response", "id": 4, "response": {"type": "added_later"}});
        assert!(matches!(
            decode(&future.to_string()).unwrap(),
            Incoming::Response { id: 4, response: Reply::Other }
        ));
    }

    #[test]
    fn events_with_fields_the_panel_ignores_still_decode() {
        assert!(matches!(
            event(Event::WorkerStarted { extension_version: "1".into() }),
            WorkerEvent::WorkerStarted
        ));
        let server_id = ServerId::derive(b"", "a");
        assert!(matches!(
            event(Event::ServerStatus { server_id: server_id.clone(), status: ServerStatus::Idle }),
            WorkerEvent::ServerStatus
        ));
        assert!(matches!(event(Event::ToolsChanged { server_id }), WorkerEvent::ToolsChanged));
        let progress = event(Event::ToolProgress {
            call_id: "c1".into(),
            progress: 2.0,
            total: Some(4.0),
            message: None,
        });
        assert!(matches!(
            progress,
            WorkerEvent::ToolProgress { call_id, progress, total: Some(t), message: None }
                if call_id == "c1" && progress == 2.0 && t == 4.0
        ));
        let problem = json!({"kind": "event", "event": {"type": "settings_problem",
            "problem": {"message": "m", "kept_under": "k", "at_ms": 1}}});
        assert!(matches!(
            decode(&problem.to_string()).unwrap(),
            Incoming::Event { event: WorkerEvent::Other }
        ));
    }

    #[test]
    fn malformed_messages_are_errors_that_say_so() {
        for text in ["", "[]", r#"{"kind": "response"}"#, r#"{"kind": "gossip"}"#] {
            let err = decode(text).err().expect(text);
            assert!(err.starts_with("ignoring a worker message"), "{err}");
        }
    }
}
