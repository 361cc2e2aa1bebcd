//! The messages between the side panel and what runs an app, one type per direction:
//!
//! * the sandbox page's control messages (`static/sandbox.js` ↔ `browser/js/app_frame.js`,
//!   read and written in Rust by `browser::app_frame`), on the `MessagePort` the panel hands
//!   the sandbox page, where an app cannot write;
//! * the work the app host module asks of the panel (`apphost` → `sidepanel::app_host`).
//!
//! The JavaScript side spells the same names; xtask's tidy test `sandbox_messages_match_core`
//! fails when a name is used there that is not here, or the other way round.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The panel's first message to a sandbox page, carrying the control port.
pub const CONNECT: &str = "gemipanel/connect";
/// The sandbox page's message to its app's loader frame, carrying the app's document.
pub const DOCUMENT: &str = "gemipanel/document";

/// What the panel tells a sandbox page (written only: the page reads it in JavaScript).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToSandbox<'a> {
    /// Write the app's document (the UTF-8 bytes travel beside it as `document`, an
    /// `ArrayBuffer` transferred, not copied, which serde has no type for) into a frame with
    /// this `allow` list.
    Load { allow: String },
    /// Post `message` to the app (borrowed: an app's result can be large).
    Post { message: &'a Value },
    /// Remove the app's frame.
    Unload,
    /// Answer `pong` (the panel's check that the sandbox process is not stuck in an app's
    /// endless loop: every sandbox page shares that process's one thread).
    Ping,
}

/// What a sandbox page tells the panel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FromSandbox {
    /// A message the app posted (any JSON; `core::apps::session` decides what it is).
    /// `activated`: the sandbox page had the browser's transient user activation as it relayed
    /// it, which only the person's click or key in the app gives it (activation reaches a
    /// frame's ancestors, not its parent's other frames or the panel's clicks).
    App {
        message: Value,
        #[serde(default)]
        activated: bool,
    },
    /// The app's document loaded.
    Loaded,
    /// The app tried to load another page in its frame: the sandbox page removed the frame.
    Left,
    /// The sandbox process has nothing to do: time to make the next spare page.
    Idle,
    /// The answer to `ping`.
    Pong,
}

/// What the app host asks of the panel for an app, on the app's own server (the worker checks
/// who may call what). The answer is the MCP result document the app is given.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum HostWork {
    CallTool { name: String, arguments: Map<String, Value> },
    ListTools,
    ListResources,
    ListResourceTemplates,
    ReadResource { uri: String },
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn control_messages_are_tagged_by_type_as_the_javascript_reads_them() {
        let message = json!({"jsonrpc": "2.0", "id": 1});
        let post = ToSandbox::Post { message: &message };
        assert_eq!(
            serde_json::to_value(&post).unwrap(),
            json!({"type": "post", "message": {"jsonrpc": "2.0", "id": 1}})
        );
        assert_eq!(
            serde_json::to_value(ToSandbox::Load { allow: "camera".into() }).unwrap(),
            json!({"type": "load", "allow": "camera"})
        );
        let app: FromSandbox =
            serde_json::from_value(json!({"type": "app", "message": {"method": "x"}})).unwrap();
        assert_eq!(app, FromSandbox::App { message: json!({"method": "x"}), activated: false });
        let clicked: FromSandbox = serde_json::from_value(
            json!({"type": "app", "message": {"method": "x"}, "activated": true}),
        )
        .unwrap();
        assert_eq!(clicked, FromSandbox::App { message: json!({"method": "x"}), activated: true });
        assert_eq!(serde_json::to_value(ToSandbox::Ping).unwrap(), json!({"type": "ping"}));
        let pong: FromSandbox = serde_json::from_value(json!({"type": "pong"})).unwrap();
        assert_eq!(pong, FromSandbox::Pong);
        let loaded: FromSandbox = serde_json::from_value(json!({"type": "loaded"})).unwrap();
        assert_eq!(loaded, FromSandbox::Loaded);
        assert!(serde_json::from_value::<FromSandbox>(json!({"type": "other"})).is_err());
    }

    #[test]
    fn host_work_is_tagged_by_kind() {
        let work = HostWork::ReadResource { uri: "memo://x".into() };
        assert_eq!(
            serde_json::to_value(&work).unwrap(),
            json!({"kind": "read_resource", "uri": "memo://x"})
        );
        let listed: HostWork = serde_json::from_value(json!({"kind": "list_tools"})).unwrap();
        assert_eq!(listed, HostWork::ListTools);
    }
}
