//! The worker's messages as JSON text, written by hand.
//!
//! The derived `Serialize` of [`WorkerMessage`] and everything in it compiled into one large
//! function plus a serializer per nested type; this writer reuses what the worker's wasm has
//! anyway (serde_json's writer for strings, numbers, JSON values and the settings document). The
//! text is the derive's, byte for byte: the test below compares the two for every variant.

use serde::Serialize;

use super::{
    ConnectionOutcome, ElicitationPrompt, Event, Response, ServerStatus, ServerView, WorkerMessage,
    WorkerStatus,
};

impl WorkerMessage {
    /// The message as JSON text, as `serde_json::to_string` writes it.
    pub fn to_json_text(&self) -> String {
        let mut out = Out(Vec::with_capacity(128));
        match self {
            WorkerMessage::Response { id, response } => {
                out.open("kind", "response");
                out.json("id", id);
                out.key("response");
                response.write(&mut out);
            }
            WorkerMessage::Event { event } => {
                out.open("kind", "event");
                out.key("event");
                event.write(&mut out);
            }
        }
        out.close();
        // Only whole strings and serde_json's output went in: valid UTF-8.
        String::from_utf8(out.0).unwrap_or_default()
    }
}

/// JSON text being written. Objects are opened with their first field (the tag of a tagged
/// enum), so every further field is preceded by a comma.
struct Out(Vec<u8>);

impl Out {
    fn open(&mut self, tag_name: &str, tag: &str) {
        self.0.push(b'{');
        self.write(tag_name);
        self.0.push(b':');
        self.write(tag);
    }

    fn key(&mut self, name: &str) {
        self.0.push(b',');
        self.write(name);
        self.0.push(b':');
    }

    /// A field of any serializable type.
    fn json<T: Serialize + ?Sized>(&mut self, name: &str, value: &T) {
        self.key(name);
        self.write(value);
    }

    fn close(&mut self) {
        self.0.push(b'}');
    }

    fn write<T: Serialize + ?Sized>(&mut self, value: &T) {
        // Writing into memory fails only for values JSON cannot hold (maps with non-string
        // keys), which none of these types has.
        let _ = serde_json::to_writer(&mut self.0, value);
    }
}

impl Response {
    fn write(&self, out: &mut Out) {
        match self {
            Response::Status(status) => {
                out.open("type", "status");
                status.write_fields(out);
            }
            Response::Settings { settings } => {
                out.open("type", "settings");
                out.json("settings", settings);
            }
            Response::Servers { servers } => {
                out.open("type", "servers");
                out.key("servers");
                out.0.push(b'[');
                for (n, server) in servers.iter().enumerate() {
                    if n > 0 {
                        out.0.push(b',');
                    }
                    server.write(out);
                }
                out.0.push(b']');
            }
            Response::Tools { server_id, tools } => {
                out.open("type", "tools");
                out.json("server_id", server_id.as_str());
                out.json("tools", tools);
            }
            Response::ToolResult { result } => {
                out.open("type", "tool_result");
                out.json("result", result);
            }
            Response::Resource { result } => {
                out.open("type", "resource");
                out.json("result", result);
            }
            Response::ConnectionTest { outcome } => {
                out.open("type", "connection_test");
                out.key("outcome");
                outcome.write(out);
            }
            Response::Ok => out.open("type", "ok"),
            Response::Error { message } => {
                out.open("type", "error");
                out.json("message", message);
            }
        }
        out.close();
    }
}

impl WorkerStatus {
    fn write_fields(&self, out: &mut Out) {
        out.json("extension_version", &self.extension_version);
        out.json("uptime_ms", &self.uptime_ms);
        out.json("configured_servers", &self.configured_servers);
    }
}

impl ServerView {
    fn write(&self, out: &mut Out) {
        // Not a tag, but written the same way: the first field.
        out.open("id", self.id.as_str());
        out.json("name", &self.name);
        out.json("url", &self.url);
        out.key("status");
        self.status.write(out);
        out.json("tool_count", &self.tool_count);
        out.close();
    }
}

impl ServerStatus {
    fn write(&self, out: &mut Out) {
        match self {
            ServerStatus::Idle => out.open("state", "idle"),
            ServerStatus::Connecting => out.open("state", "connecting"),
            ServerStatus::Ready { protocol_version } => {
                out.open("state", "ready");
                out.json("protocol_version", protocol_version);
            }
            ServerStatus::NeedsSignIn => out.open("state", "needs_sign_in"),
            ServerStatus::Error { message } => {
                out.open("state", "error");
                out.json("message", message);
            }
        }
        out.close();
    }
}

impl ConnectionOutcome {
    fn write(&self, out: &mut Out) {
        match self {
            ConnectionOutcome::Connected { protocol_version, server_name, tools } => {
                out.open("result", "connected");
                out.json("protocol_version", protocol_version);
                out.json("server_name", server_name);
                out.json("tools", tools);
            }
            ConnectionOutcome::NeedsSignIn => out.open("result", "needs_sign_in"),
            ConnectionOutcome::Failed { message } => {
                out.open("result", "failed");
                out.json("message", message);
            }
        }
        out.close();
    }
}

impl Event {
    fn write(&self, out: &mut Out) {
        match self {
            Event::WorkerStarted { extension_version } => {
                out.open("type", "worker_started");
                out.json("extension_version", extension_version);
            }
            Event::SettingsChanged { settings } => {
                out.open("type", "settings_changed");
                out.json("settings", settings);
            }
            Event::ServerStatus { server_id, status } => {
                out.open("type", "server_status");
                out.json("server_id", server_id.as_str());
                out.key("status");
                status.write(out);
            }
            Event::ToolsChanged { server_id } => {
                out.open("type", "tools_changed");
                out.json("server_id", server_id.as_str());
            }
            Event::ToolProgress { call_id, progress, total, message } => {
                out.open("type", "tool_progress");
                out.json("call_id", call_id);
                out.json("progress", progress);
                out.json("total", total);
                out.json("message", message);
            }
            Event::Elicitation { call_id, elicitation_id, prompt } => {
                out.open("type", "elicitation");
                out.json("call_id", call_id);
                out.json("elicitation_id", elicitation_id);
                out.key("prompt");
                prompt.write(out);
            }
            Event::SettingsProblem { problem } => {
                out.open("type", "settings_problem");
                out.json("problem", problem);
            }
        }
        out.close();
    }
}

impl ElicitationPrompt {
    fn write(&self, out: &mut Out) {
        match self {
            ElicitationPrompt::Form { message, requested_schema, defaults } => {
                out.open("mode", "form");
                out.json("message", message);
                out.json("requested_schema", requested_schema);
                out.json("defaults", defaults);
            }
            ElicitationPrompt::Url { message, url } => {
                out.open("mode", "url");
                out.json("message", message);
                out.json("url", url);
            }
        }
        out.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::{CallToolResult, ReadResourceResult, Tool};
    use crate::messages::SettingsProblem;
    use crate::settings::{ServerId, Settings};
    use serde_json::json;

    fn tool() -> Tool {
        Tool::from_value(json!({"name": "echo", "description": "Echoes \"x\"\n", "_meta": {"k": [1, 2.5, null]}})).unwrap()
    }

    fn every_message() -> Vec<WorkerMessage> {
        let id = ServerId::generate([7; 16]);
        let statuses = [
            ServerStatus::Idle,
            ServerStatus::Connecting,
            ServerStatus::Ready { protocol_version: "2025-11-25".into() },
            ServerStatus::NeedsSignIn,
            ServerStatus::Error { message: "refused: \u{1F600} \\ \u{7}".into() },
        ];
        let servers = statuses
            .iter()
            .enumerate()
            .map(|(n, status)| ServerView {
                id: id.clone(),
                name: format!("Server {n}"),
                url: "https://a.example/mcp?x=\"1\"".into(),
                status: status.clone(),
                tool_count: (n % 2 == 0).then_some(n as u32),
            })
            .collect();
        let result: CallToolResult = serde_json::from_value(
            json!({"content": [{"type": "text", "text": "hi"}], "isError": false}),
        )
        .unwrap();
        let resource: ReadResourceResult =
            serde_json::from_value(json!({"contents": [{"uri": "test://a", "text": "t"}]}))
                .unwrap();
        let responses = vec![
            Response::Status(WorkerStatus {
                extension_version: "0.1.0".into(),
                uptime_ms: u64::MAX,
                configured_servers: u32::MAX,
            }),
            Response::Settings { settings: Settings::default() },
            Response::Servers { servers },
            Response::Servers { servers: vec![] },
            Response::Tools { server_id: id.clone(), tools: vec![tool(), tool()] },
            Response::ToolResult { result },
            Response::Resource { result: resource },
            Response::ConnectionTest {
                outcome: ConnectionOutcome::Connected {
                    protocol_version: "2026-07-28".into(),
                    server_name: Some("everything".into()),
                    tools: vec![tool()],
                },
            },
            Response::ConnectionTest {
                outcome: ConnectionOutcome::Connected {
                    protocol_version: String::new(),
                    server_name: None,
                    tools: vec![],
                },
            },
            Response::ConnectionTest { outcome: ConnectionOutcome::NeedsSignIn },
            Response::ConnectionTest {
                outcome: ConnectionOutcome::Failed { message: "no".into() },
            },
            Response::Ok,
            Response::Error { message: "line\nbreak\ttab".into() },
        ];
        let mut events = vec![
            Event::WorkerStarted { extension_version: "1.2.3".into() },
            Event::SettingsChanged { settings: Settings::default() },
            Event::ToolsChanged { server_id: id.clone() },
            Event::ToolProgress {
                call_id: "c1".into(),
                progress: 0.1,
                total: Some(1e21),
                message: Some("step".into()),
            },
            Event::ToolProgress {
                call_id: "c2".into(),
                progress: f64::NAN,
                total: None,
                message: None,
            },
            Event::ToolProgress {
                call_id: "c3".into(),
                progress: 3.0,
                total: Some(-0.0),
                message: None,
            },
            Event::Elicitation {
                call_id: "c1".into(),
                elicitation_id: "c1#1".into(),
                prompt: ElicitationPrompt::Form {
                    message: "Name?".into(),
                    requested_schema: json!({"type": "object", "properties": {"name": {"type": "string"}}}),
                    defaults: json!({"name": "x", "n": 1}).as_object().unwrap().clone(),
                },
            },
            Event::Elicitation {
                call_id: "c1".into(),
                elicitation_id: "c1#2".into(),
                prompt: ElicitationPrompt::Url {
                    message: "Open".into(),
                    url: "https://xn--e1afmkfd.example/".into(),
                },
            },
            Event::SettingsProblem {
                problem: SettingsProblem {
                    message: "damaged".into(),
                    kept_under: "settings_rejected_1".into(),
                    at_ms: 1_700_000_000_000,
                },
            },
        ];
        events.extend(
            statuses
                .into_iter()
                .map(|status| Event::ServerStatus { server_id: id.clone(), status }),
        );
        let mut messages: Vec<WorkerMessage> = responses
            .into_iter()
            .enumerate()
            .map(|(n, response)| WorkerMessage::Response { id: n as u64 * 1_000_003, response })
            .collect();
        messages.extend(events.into_iter().map(|event| WorkerMessage::Event { event }));
        messages
    }

    #[test]
    fn writes_what_the_derive_writes_byte_for_byte() {
        for message in every_message() {
            assert_eq!(message.to_json_text(), serde_json::to_string(&message).unwrap());
        }
    }
}
