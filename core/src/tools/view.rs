//! Tools an MCP App offers of its own (listed by the host through `core::apps::view_tools`),
//! as Gemini function declarations: `app_{instance}_{tool}`.
//!
//! The instance is a short hash of the call that showed the app, so two apps of the same tool
//! in one chat keep their tools apart and a name stays the same for as long as the app lives.
//! The `app_` prefix keeps them clear of MCP tools (`mcp_…`) and of `search_tools`.

use super::naming::{sanitize_segment, with_suffix, MAX_NAME_LEN};
use crate::hash::short_hash;

/// Hex digits of the instance hash in a function name.
const INSTANCE_LEN: usize = 6;

/// Where a function call to an app's tool goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewToolRoute {
    /// The app: the id of the tool call that showed it.
    pub instance: String,
    pub tool_name: String,
    /// Which app, in words for the model and the person ("show_counter of Apps").
    pub label: String,
}

/// The function name of the app `instance`'s tool `tool`.
pub fn function_name(instance: &str, tool: &str) -> String {
    let hash = short_hash(instance);
    let hash = hash.get(..INSTANCE_LEN).unwrap_or(&hash);
    let tool = sanitize_segment(tool);
    let tool = if tool.is_empty() { "tool".to_owned() } else { tool };
    let name = format!("app_{hash}_{tool}");
    if name.len() <= MAX_NAME_LEN {
        name
    } else {
        with_suffix(&name, &short_hash(&name))
    }
}

/// The description the model reads: which app the tool comes from, then the app's own words.
pub fn description(label: &str, description: &str) -> String {
    let origin = format!("A tool of the app {label}, shown in this chat (not an MCP server tool).");
    if description.trim().is_empty() {
        origin
    } else {
        format!("{origin} {description}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_per_instance_and_never_those_of_server_tools() {
        let a = function_name("call-1", "get_selection");
        let b = function_name("call-2", "get_selection");
        assert!(a.starts_with("app_") && a.ends_with("_get_selection"), "{a}");
        assert_ne!(a, b);
        assert_eq!(a, function_name("call-1", "get_selection"), "stable");
        assert_eq!(function_name("c", "Get Selection!"), function_name("c", "get_selection"));
        assert!(function_name("c", "日本").ends_with("_tool"));
        let long = function_name("c", &"x".repeat(200));
        assert!(long.len() <= MAX_NAME_LEN && long.starts_with("app_"), "{long}");
        assert_ne!(long, function_name("c", &"x".repeat(201)));
    }

    #[test]
    fn descriptions_name_the_app() {
        assert_eq!(
            description("show_counter of Apps", "Returns the selection."),
            "A tool of the app show_counter of Apps, shown in this chat (not an MCP server tool). \
             Returns the selection."
        );
        assert!(description("x", " ").ends_with("(not an MCP server tool)."));
    }
}
