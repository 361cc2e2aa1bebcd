//! The objects `chrome.*` calls take and give back, as serde types: built and read by
//! serde-wasm-bindgen (see [`crate::messaging::to_object`]), not field by field with `Reflect`.
//! Names follow Chrome's API reference, camelCase.

use serde::{Deserialize, Serialize};

/// `chrome.runtime.connect(connectInfo)`.
#[derive(Serialize)]
pub struct ConnectInfo<'a> {
    pub name: &'a str,
}

/// `chrome.identity.launchWebAuthFlow(details)`.
#[derive(Serialize)]
pub struct WebAuthFlowDetails<'a> {
    pub url: &'a str,
    pub interactive: bool,
}

/// `chrome.contextMenus.create(createProperties)`.
#[derive(Serialize)]
pub struct ContextMenuItem<'a> {
    pub id: &'a str,
    pub title: &'a str,
    pub contexts: [&'a str; 1],
}

/// `chrome.permissions.contains` and `.request`: API permissions and host patterns. An empty
/// list is left out, as Chrome's own examples do.
#[derive(Serialize, Default)]
pub struct Permissions<'a> {
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub permissions: &'a [&'a str],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub origins: &'a [String],
}

/// `chrome.sidePanel.open(options)`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SidePanelOpen {
    pub window_id: i32,
}

/// What this project reads of a `chrome.windows.Window`.
#[derive(Deserialize)]
pub struct Window {
    pub id: Option<i32>,
}

/// What this project reads of a `chrome.commands.Command`.
#[derive(Deserialize)]
pub struct Command {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub shortcut: Option<String>,
}

/// `chrome.declarativeNetRequest.updateSessionRules(options)`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateRuleOptions<'a> {
    pub remove_rule_ids: [u32; 1],
    pub add_rules: [Rule<'a>; 1],
}

#[derive(Serialize)]
pub struct Rule<'a> {
    pub id: u32,
    pub priority: u32,
    pub action: RuleAction<'a>,
    pub condition: RuleCondition<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleAction<'a> {
    #[serde(rename = "type")]
    pub kind: &'a str,
    pub request_headers: [HeaderInfo<'a>; 1],
}

#[derive(Serialize)]
pub struct HeaderInfo<'a> {
    pub header: &'a str,
    pub operation: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleCondition<'a> {
    pub regex_filter: &'a str,
    pub resource_types: [&'a str; 1],
    pub tab_ids: [i32; 1],
    pub initiator_domains: [&'a str; 1],
}

#[cfg(all(test, target_arch = "wasm32"))]
mod tests {
    use super::*;
    use crate::messaging::{from_object, to_object};
    use serde_json::json;
    use wasm_bindgen_test::*;

    wasm_bindgen_test_configure!(run_in_browser);

    /// What JavaScript sees of `value`, as JSON.
    fn seen(value: &impl Serialize) -> serde_json::Value {
        let text = js_sys::JSON::stringify(&to_object(value).unwrap()).unwrap();
        serde_json::from_str(&text.as_string().unwrap()).unwrap()
    }

    #[wasm_bindgen_test]
    fn a_network_rule_has_the_fields_chrome_documents() {
        let options = UpdateRuleOptions {
            remove_rule_ids: [7],
            add_rules: [Rule {
                id: 7,
                priority: 1,
                action: RuleAction {
                    kind: "modifyHeaders",
                    request_headers: [HeaderInfo { header: "origin", operation: "remove" }],
                },
                condition: RuleCondition {
                    regex_filter: "^https://a\\.example/",
                    resource_types: ["xmlhttprequest"],
                    tab_ids: [-1],
                    initiator_domains: ["abc"],
                },
            }],
        };
        assert_eq!(
            seen(&options),
            json!({
                "removeRuleIds": [7],
                "addRules": [{
                    "id": 7, "priority": 1,
                    "action": {
                        "type": "modifyHeaders",
                        "requestHeaders": [{ "header": "origin", "operation": "remove" }],
                    },
                    "condition": {
                        "regexFilter": "^https://a\\.example/",
                        "resourceTypes": ["xmlhttprequest"],
                        "tabIds": [-1],
                        "initiatorDomains": ["abc"],
                    },
                }],
            })
        );
    }

    #[wasm_bindgen_test]
    fn a_permission_query_names_only_what_it_asks() {
        let origins = ["https://a.example/*".to_owned()];
        assert_eq!(
            seen(&Permissions { origins: &origins, ..Default::default() }),
            json!({ "origins": ["https://a.example/*"] })
        );
        assert_eq!(
            seen(&Permissions { permissions: &["nativeMessaging"], ..Default::default() }),
            json!({ "permissions": ["nativeMessaging"] })
        );
        assert_eq!(seen(&SidePanelOpen { window_id: 3 }), json!({ "windowId": 3 }));
    }

    #[wasm_bindgen_test]
    fn what_chrome_gives_back_reads_and_extra_fields_are_ignored() {
        let commands = js_sys::eval(
            r#"[{name: "_execute_action", shortcut: ""}, {name: "open", shortcut: "Alt+G", description: "x"}, {}]"#,
        )
        .unwrap();
        let commands: Vec<Command> = from_object(commands).unwrap();
        assert_eq!(commands[1].shortcut.as_deref(), Some("Alt+G"));
        assert_eq!(commands[2].name, None);
        let window = js_sys::eval(r#"({id: 12, focused: true, tabs: []})"#).unwrap();
        assert_eq!(from_object::<Window>(window).unwrap().id, Some(12));
    }
}
