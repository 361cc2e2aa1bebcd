//! Reading the settings document and the edits from JSON by hand, for the worker.
//!
//! The derived `Deserialize` of [`Settings`] stays for the pages, which get the document inside
//! their messages; the worker reads it from storage (and edits from the pages) here instead,
//! because the derived decoders were among the largest pieces of the worker's wasm. Same rules
//! as the derive: required fields, defaults, `null` only where a field is optional, unknown
//! fields refused in the document (ignored in edits and drafts). The `tests` keep the two in
//! step. Messages never quote a value (header values and the API key are secrets).

use serde_json::{Map, Value};

use super::document::{CachedTools, GeminiSettings, Headers, Server, ServerId, Settings};
use super::edit::{ServerDraft, SettingsEdit};
use super::secret::Secret;
use crate::json_object::{kind_of, unknown_tag};
use crate::messages::SettingsProblem;

type Fields = Map<String, Value>;

impl Settings {
    pub fn from_value(value: Value) -> Result<Settings, String> {
        let mut o = object(value, "the settings")?;
        let version = required_u64(&mut o, "version")?;
        let gemini = gemini(required(&mut o, "gemini")?)?;
        let servers = servers(required(&mut o, "servers")?)?;
        no_more(&o)?;
        Ok(Settings { version, gemini, servers })
    }
}

fn gemini(value: Value) -> Result<GeminiSettings, String> {
    let mut o = object(value, "`gemini`")?;
    let api_key = optional(&mut o, "api_key").map(secret).transpose()?;
    let model = required_string(&mut o, "model")?;
    let base_url = optional(&mut o, "base_url").map(|v| string(v, "base_url")).transpose()?;
    no_more(&o)?;
    Ok(GeminiSettings { api_key, model, base_url })
}

/// A list of [`Server`]s, as in the document and in an import edit.
pub fn servers(value: Value) -> Result<Vec<Server>, String> {
    array(value, "servers")?.into_iter().map(server).collect()
}

fn server(value: Value) -> Result<Server, String> {
    let mut o = object(value, "a server")?;
    let id = ServerId::from_stored(required_string(&mut o, "id")?);
    let name = required_string(&mut o, "name")?;
    let mut server = Server::blank(id, name);
    server.url = required_string(&mut o, "url")?;
    server.timeout_ms = required_u64(&mut o, "timeout_ms")?;
    if let Some(headers) = o.remove("headers") {
        server.headers = header_map(headers)?;
    }
    server.trust = flag(&mut o, "trust", false)?;
    server.include_tools = optional(&mut o, "include_tools").map(strings).transpose()?;
    if let Some(exclude) = o.remove("exclude_tools") {
        server.exclude_tools = strings(exclude)?;
    }
    server.enabled_by_default = flag(&mut o, "enabled_by_default", true)?;
    server.local_network = flag(&mut o, "local_network", false)?;
    server.cached_tools = optional(&mut o, "cached_tools").map(cached_tools).transpose()?;
    if let Some(allowed) = o.remove("allowed_tools") {
        server.allowed_tools = strings(allowed)?.into_iter().collect();
    }
    no_more(&o)?;
    Ok(server)
}

/// The server form's fields (add, update, connection test). Unknown fields are ignored, as by
/// the derive.
pub fn server_draft(value: Value) -> Result<ServerDraft, String> {
    let mut o = object(value, "a server")?;
    let name = required_string(&mut o, "name")?;
    let url = required_string(&mut o, "url")?;
    let headers = optional(&mut o, "headers").map(header_map).transpose()?;
    let timeout_ms = optional(&mut o, "timeout_ms").map(|v| u64_of(v, "timeout_ms")).transpose()?;
    let include_tools = optional(&mut o, "include_tools").map(strings).transpose()?;
    let exclude_tools = o.remove("exclude_tools").map(strings).transpose()?.unwrap_or_default();
    Ok(ServerDraft {
        name,
        url,
        headers,
        timeout_ms,
        trust: flag(&mut o, "trust", false)?,
        include_tools,
        exclude_tools,
        enabled_by_default: flag(&mut o, "enabled_by_default", true)?,
        local_network: flag(&mut o, "local_network", false)?,
    })
}

/// An edit from its JSON form (the one `Serialize` writes). A field's error says which field.
pub fn edit(value: Value) -> Result<SettingsEdit, String> {
    let Value::Object(mut o) = value else {
        return Err(format!("expected an object, got {}", kind_of(&value)));
    };
    let tag = required_string(&mut o, "type")?;
    let o = &mut o;
    let id = |o: &mut Fields| field(o, "id", id_of);
    let draft = |o: &mut Fields| field(o, "server", draft_of);
    Ok(match tag.as_str() {
        "set_api_key" => SettingsEdit::SetApiKey { api_key: maybe(o, "api_key", secret_of)? },
        "set_model" => SettingsEdit::SetModel { model: field(o, "model", string)? },
        "add_server" => SettingsEdit::AddServer { id: id(o)?, server: draft(o)? },
        "update_server" => SettingsEdit::UpdateServer { id: id(o)?, server: draft(o)? },
        "remove_server" => SettingsEdit::RemoveServer { id: id(o)? },
        "set_trust" => SettingsEdit::SetTrust { id: id(o)?, trust: field(o, "trust", bool_of)? },
        "set_enabled_by_default" => {
            SettingsEdit::SetEnabledByDefault { id: id(o)?, enabled: field(o, "enabled", bool_of)? }
        }
        "set_local_network" => SettingsEdit::SetLocalNetwork {
            id: id(o)?,
            local_network: field(o, "local_network", bool_of)?,
        },
        "set_tool_filters" => SettingsEdit::SetToolFilters {
            id: id(o)?,
            include_tools: maybe(o, "include_tools", strings_of)?,
            exclude_tools: field(o, "exclude_tools", strings_of)?,
        },
        "allow_tool" => SettingsEdit::AllowTool { id: id(o)?, tool: field(o, "tool", string)? },
        "disallow_tool" => {
            SettingsEdit::DisallowTool { id: id(o)?, tool: field(o, "tool", string)? }
        }
        "set_cached_tools" => SettingsEdit::SetCachedTools {
            id: id(o)?,
            tools: field(o, "tools", array)?,
            fetched_at_ms: field(o, "fetched_at_ms", u64_of)?,
        },
        "import" => SettingsEdit::Import {
            servers: field(o, "servers", servers_of)?,
            api_key: maybe(o, "api_key", secret_of)?,
            model: maybe(o, "model", string)?,
        },
        other => return Err(unknown_tag("edit type", other, SettingsEdit::TYPES)),
    })
}

/// A field of an edit that must be present, read with `read`.
fn field<T>(o: &mut Fields, name: &str, read: Reader<T>) -> Result<T, String> {
    let value = required(o, name)?;
    read(value, name).map_err(|e| inside(name, e))
}

/// A field of an edit that may be absent or `null`.
fn maybe<T>(o: &mut Fields, name: &str, read: Reader<T>) -> Result<Option<T>, String> {
    match optional(o, name) {
        Some(value) => read(value, name).map(Some).map_err(|e| inside(name, e)),
        None => Ok(None),
    }
}

/// Reads a field's value; the name is for messages. A plain `fn`, and the message built
/// outside the generic readers, so each field type adds only a few bytes to the worker.
type Reader<T> = fn(Value, &str) -> Result<T, String>;

fn inside(name: &str, error: String) -> String {
    format!("in `{name}`: {error}")
}

fn id_of(value: Value, name: &str) -> Result<ServerId, String> {
    string(value, name).map(ServerId::from_stored)
}

fn draft_of(value: Value, _: &str) -> Result<ServerDraft, String> {
    server_draft(value)
}

fn servers_of(value: Value, _: &str) -> Result<Vec<Server>, String> {
    servers(value)
}

fn secret_of(value: Value, _: &str) -> Result<Secret, String> {
    secret(value)
}

fn strings_of(value: Value, _: &str) -> Result<Vec<String>, String> {
    strings(value)
}

fn array(value: Value, name: &str) -> Result<Vec<Value>, String> {
    match value {
        Value::Array(items) => Ok(items),
        other => Err(format!("invalid type: `{name}` must be an array, got {}", kind_of(&other))),
    }
}

/// The load problem the worker recorded in storage, as the derive reads it (extra fields
/// ignored); `None` when there is none or it does not read.
pub fn settings_problem(value: &Value) -> Option<SettingsProblem> {
    let text = |name| value.get(name)?.as_str().map(String::from);
    Some(SettingsProblem {
        message: text("message")?,
        kept_under: text("kept_under")?,
        at_ms: value.get("at_ms")?.as_u64()?,
    })
}

fn header_map(value: Value) -> Result<Headers, String> {
    object(value, "`headers`")?.into_iter().map(|(k, v)| Ok((k, secret(v)?))).collect()
}

/// A boolean field with a default for when it is absent.
fn flag(o: &mut Fields, name: &str, default: bool) -> Result<bool, String> {
    o.remove(name).map_or(Ok(default), |v| bool_of(v, name))
}

fn cached_tools(value: Value) -> Result<CachedTools, String> {
    let mut o = object(value, "`cached_tools`")?;
    let fetched_at_ms = required_u64(&mut o, "fetched_at_ms")?;
    let tools = array(required(&mut o, "tools")?, "tools")?;
    no_more(&o)?;
    Ok(CachedTools { fetched_at_ms, tools })
}

fn object(value: Value, what: &str) -> Result<Fields, String> {
    match value {
        Value::Object(fields) => Ok(fields),
        other => Err(format!("invalid type: {what} must be an object, got {}", kind_of(&other))),
    }
}

fn required(o: &mut Fields, name: &str) -> Result<Value, String> {
    o.remove(name).ok_or_else(|| format!("missing field `{name}`"))
}

// `required` and the type's reader in one call: each field is then one call and one branch,
// which made the document and draft readers 1.2 KB smaller in the worker.
fn required_string(o: &mut Fields, name: &str) -> Result<String, String> {
    string(required(o, name)?, name)
}

fn required_u64(o: &mut Fields, name: &str) -> Result<u64, String> {
    u64_of(required(o, name)?, name)
}

/// An optional field; `null` counts as absent.
fn optional(o: &mut Fields, name: &str) -> Option<Value> {
    o.remove(name).filter(|v| !v.is_null())
}

fn no_more(o: &Fields) -> Result<(), String> {
    match o.keys().next() {
        Some(name) => Err(format!("unknown field `{name}`")),
        None => Ok(()),
    }
}

fn string(value: Value, name: &str) -> Result<String, String> {
    match value {
        Value::String(s) => Ok(s),
        other => Err(format!("invalid type: `{name}` must be a string, got {}", kind_of(&other))),
    }
}

fn u64_of(value: Value, name: &str) -> Result<u64, String> {
    value.as_u64().ok_or_else(|| {
        format!("invalid type: `{name}` must be a whole number ≥ 0, got {}", kind_of(&value))
    })
}

fn bool_of(value: Value, name: &str) -> Result<bool, String> {
    value.as_bool().ok_or_else(|| {
        format!("invalid type: `{name}` must be true or false, got {}", kind_of(&value))
    })
}

fn strings(value: Value) -> Result<Vec<String>, String> {
    match value {
        Value::Array(items) => items.into_iter().map(|v| string(v, "a tool name")).collect(),
        other => {
            Err(format!("invalid type: a tool list must be an array, got {}", kind_of(&other)))
        }
    }
}

fn secret(value: Value) -> Result<Secret, String> {
    match value {
        Value::String(s) => Ok(Secret::new(s)),
        _ => Err("a secret (API key or header value) must be a string".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn both(value: Value) -> (Result<Settings, String>, Result<Settings, String>) {
        let derived = serde_json::from_value::<Settings>(value.clone()).map_err(|e| e.to_string());
        (derived, Settings::from_value(value))
    }

    #[test]
    fn agrees_with_the_derive() {
        let full = json!({
            "version": 2,
            "gemini": {"api_key": "k", "model": "m", "base_url": null},
            "servers": [
                {"id": "srv_a", "name": "a", "url": "https://a", "timeout_ms": 5,
                 "headers": {"X": "y"}, "trust": true, "include_tools": ["t"],
                 "exclude_tools": ["u"], "enabled_by_default": false, "local_network": true,
                 "cached_tools": {"fetched_at_ms": 1, "tools": [{"name": "t"}]},
                 "allowed_tools": ["t", "t", "v"]},
                {"id": "srv_b", "name": "b", "url": "https://b", "timeout_ms": 7},
            ],
        });
        let (derived, by_hand) = both(full.clone());
        assert_eq!(by_hand, derived);
        assert!(by_hand.is_ok());

        let broken = [
            ("/servers/0/timeout_ms", json!("5")),
            ("/servers/0/timeout_ms", json!(1.5)),
            ("/servers/0/timeout_ms", json!(-1)),
            ("/servers/0/trust", Value::Null),
            ("/servers/0/headers/X", json!(3)),
            ("/servers/0/headers", Value::Null),
            ("/servers/0/exclude_tools", Value::Null),
            ("/servers/0/allowed_tools", json!([1])),
            ("/servers/0/cached_tools/tools", json!({})),
            ("/servers/0/id", json!(1)),
            ("/servers/1", json!([])),
            ("/gemini/api_key", json!(12)),
            ("/gemini/model", Value::Null),
            ("/gemini", json!("x")),
            ("/version", json!("2")),
            ("/servers", json!({})),
        ];
        for (pointer, bad) in broken {
            let mut doc = full.clone();
            *doc.pointer_mut(pointer).unwrap() = bad.clone();
            let (derived, by_hand) = both(doc);
            assert!(derived.is_err() && by_hand.is_err(), "{pointer} = {bad}: {by_hand:?}");
        }
        for (object, field) in [("", "colour"), ("/gemini", "x"), ("/servers/1", "y")] {
            let mut doc = full.clone();
            doc.pointer_mut(object).unwrap()[field] = json!(1);
            let message = Settings::from_value(doc.clone()).unwrap_err();
            assert!(message.contains(&format!("unknown field `{field}`")), "{message}");
            assert!(both(doc).0.is_err());
        }
        for (object, field) in [("", "servers"), ("/gemini", "model"), ("/servers/1", "url")] {
            let mut doc = full.clone();
            doc.pointer_mut(object).unwrap().as_object_mut().unwrap().remove(field);
            let message = Settings::from_value(doc.clone()).unwrap_err();
            assert_eq!(message, format!("missing field `{field}`"));
            assert!(both(doc).0.is_err());
        }
    }

    #[test]
    fn drafts_agree_with_the_derive() {
        let full = json!({"name": "a", "url": "https://a", "headers": {"X": "y"}, "timeout_ms": 9,
            "trust": true, "include_tools": ["t"], "exclude_tools": ["u"],
            "enabled_by_default": false, "local_network": true, "extra": 1});
        let derived = |v: &Value| serde_json::from_value::<ServerDraft>(v.clone()).ok();
        assert_eq!(server_draft(full.clone()).ok(), derived(&full));
        let minimal = json!({"name": "a", "url": "u", "headers": null, "timeout_ms": null});
        assert_eq!(server_draft(minimal.clone()).ok(), derived(&minimal));
        assert!(derived(&minimal).is_some());
        for (field, bad) in [
            ("name", Value::Null),
            ("url", json!(1)),
            ("headers", json!([])),
            ("timeout_ms", json!(-3)),
            ("trust", Value::Null),
            ("exclude_tools", Value::Null),
            ("include_tools", json!("t")),
            ("local_network", json!("yes")),
        ] {
            let mut draft = full.clone();
            draft[field] = bad;
            assert!(derived(&draft).is_none() && server_draft(draft).is_err(), "{field}");
        }
    }

    #[test]
    fn edits_agree_with_the_derive() {
        let draft = json!({"name": "a", "url": "https://a", "headers": {"X": "y"}, "extra": 1});
        let server = json!({"id": "srv_a", "name": "a", "url": "https://a", "timeout_ms": 5});
        let good = [
            json!({"type": "set_api_key", "api_key": "k"}),
            json!({"type": "set_api_key", "api_key": null}),
            json!({"type": "set_api_key"}),
            json!({"type": "set_model", "model": "m", "extra": [1]}),
            json!({"type": "add_server", "id": "srv_a", "server": draft}),
            json!({"type": "update_server", "id": "anything", "server": {"name": "", "url": ""}}),
            json!({"type": "remove_server", "id": "srv_a"}),
            json!({"type": "set_trust", "id": "srv_a", "trust": true}),
            json!({"type": "set_enabled_by_default", "id": "srv_a", "enabled": false}),
            json!({"type": "set_local_network", "id": "srv_a", "local_network": true}),
            json!({"type": "set_tool_filters", "id": "srv_a", "include_tools": ["t"],
                   "exclude_tools": ["u"]}),
            json!({"type": "set_tool_filters", "id": "srv_a", "include_tools": null,
                   "exclude_tools": []}),
            json!({"type": "allow_tool", "id": "srv_a", "tool": "t"}),
            json!({"type": "disallow_tool", "id": "srv_a", "tool": "t"}),
            json!({"type": "set_cached_tools", "id": "srv_a", "tools": [{"name": "t"}, 1],
                   "fetched_at_ms": 7}),
            json!({"type": "import", "servers": [server], "api_key": "k", "model": "m"}),
            json!({"type": "import", "servers": [], "api_key": null}),
        ];
        let mut tags = std::collections::BTreeSet::new();
        for value in &good {
            tags.insert(value["type"].as_str().unwrap());
            let derived = serde_json::from_value::<SettingsEdit>(value.clone());
            assert!(derived.is_ok(), "{value}: {derived:?}");
            assert_eq!(edit(value.clone()).ok(), derived.ok(), "{value}");
        }
        assert_eq!(tags.len(), SettingsEdit::TYPES.len(), "every edit kind: {tags:?}");

        let bad = [
            json!("set_model"),
            json!({"model": "m"}),
            json!({"type": 3}),
            json!({"type": "fly"}),
            json!({"type": "set_api_key", "api_key": 12}),
            json!({"type": "set_model"}),
            json!({"type": "set_model", "model": null}),
            json!({"type": "add_server", "server": draft}),
            json!({"type": "add_server", "id": "srv_a"}),
            json!({"type": "add_server", "id": "srv_a", "server": {"name": "a"}}),
            json!({"type": "update_server", "id": 1, "server": draft}),
            json!({"type": "update_server", "id": "srv_a", "server": []}),
            json!({"type": "remove_server"}),
            json!({"type": "remove_server", "id": null}),
            json!({"type": "set_trust", "id": "srv_a"}),
            json!({"type": "set_trust", "id": "srv_a", "trust": "yes"}),
            json!({"type": "set_enabled_by_default", "id": "srv_a", "enabled": 1}),
            json!({"type": "set_local_network", "id": "srv_a", "local_network": null}),
            json!({"type": "set_tool_filters", "id": "srv_a", "include_tools": ["t"]}),
            json!({"type": "set_tool_filters", "id": "srv_a", "exclude_tools": null}),
            json!({"type": "set_tool_filters", "id": "srv_a", "include_tools": "t",
                   "exclude_tools": []}),
            json!({"type": "set_tool_filters", "id": "srv_a", "exclude_tools": [1]}),
            json!({"type": "allow_tool", "id": "srv_a", "tool": ["t"]}),
            json!({"type": "disallow_tool", "id": "srv_a"}),
            json!({"type": "set_cached_tools", "id": "srv_a", "tools": {}, "fetched_at_ms": 7}),
            json!({"type": "set_cached_tools", "id": "srv_a", "tools": [], "fetched_at_ms": -7}),
            json!({"type": "set_cached_tools", "id": "srv_a", "tools": [], "fetched_at_ms": 1.5}),
            json!({"type": "set_cached_tools", "id": "srv_a", "tools": []}),
            json!({"type": "import", "api_key": "k"}),
            json!({"type": "import", "servers": [{"name": "a"}]}),
            json!({"type": "import", "servers": [server], "model": 1}),
            json!({"type": "import", "servers": [], "api_key": ["k"]}),
        ];
        for value in bad {
            assert!(serde_json::from_value::<SettingsEdit>(value.clone()).is_err(), "{value}");
            assert!(edit(value.clone()).is_err(), "{value}");
        }
    }

    #[test]
    fn an_edit_field_that_does_not_read_is_named() {
        let cases = [
            (json!({"type": "set_trust", "id": "srv_a"}), "missing field `trust`"),
            (
                json!({"type": "set_trust", "id": "srv_a", "trust": "yes"}),
                "in `trust`: invalid type: `trust` must be true or false, got a string",
            ),
            (
                json!({"type": "set_cached_tools", "id": "srv_a", "tools": [], "fetched_at_ms": -1}),
                "in `fetched_at_ms`: invalid type: `fetched_at_ms` must be a whole number ≥ 0, got a number",
            ),
            (
                json!({"type": "add_server", "id": "srv_a", "server": {"name": "a", "url": 1}}),
                "in `server`: invalid type: `url` must be a string, got a number",
            ),
            (
                json!({"type": "set_api_key", "api_key": ["FAKE"]}),
                "in `api_key`: a secret (API key or header value) must be a string",
            ),
            (json!({"type": 1}), "invalid type: `type` must be a string, got a number"),
            (json!([]), "expected an object, got an array"),
        ];
        for (value, says) in cases {
            assert_eq!(edit(value.clone()).unwrap_err(), says, "{value}");
        }
    }

    #[test]
    fn problems_read_as_with_the_derive() {
        let full = json!({"message": "m", "kept_under": "k", "at_ms": 5, "extra": 1});
        let derived = |v: &Value| serde_json::from_value::<SettingsProblem>(v.clone()).ok();
        assert!(derived(&full).is_some());
        assert_eq!(settings_problem(&full), derived(&full));
        for (field, bad) in [
            ("message", Value::Null),
            ("kept_under", json!(1)),
            ("at_ms", json!(-1)),
            ("at_ms", json!(1.5)),
            ("at_ms", json!("5")),
        ] {
            let mut problem = full.clone();
            problem[field] = bad;
            assert_eq!(settings_problem(&problem), None, "{field}");
            assert_eq!(derived(&problem), None, "{field}");
        }
        assert_eq!(settings_problem(&Value::Null), None);
        assert_eq!(settings_problem(&json!({"message": "m", "kept_under": "k"})), None);
    }

    #[test]
    fn messages_never_quote_a_secret() {
        let doc =
            json!({"version": 2, "gemini": {"model": "m", "api_key": ["FAKE"]}, "servers": []});
        let message = Settings::from_value(doc).unwrap_err();
        assert!(message.contains("must be a string") && !message.contains("FAKE"), "{message}");
    }
}
