//! Tool parameters mirrored into `Mcp-Param-{Name}` headers (SEP-2243, protocol 2026-07-28).
//!
//! A server marks a parameter in a tool's `inputSchema` with `"x-mcp-header": "Region"`; the
//! client then sends the argument's value as `Mcp-Param-Region` too, so gateways can route on it
//! without parsing the body. Tools whose annotations break the rules must be left out of the
//! tool list, so one malformed tool cannot take the others down with it.

use super::headers::encode_value;
use crate::text::Text;
use serde_json::map::Iter;
use serde_json::Value;

/// One annotated parameter: where its value sits in the arguments, and the header's name part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamHeader {
    pub path: Vec<String>,
    pub name: String,
}

/// Annotated parameters one tool may declare. Each is a header on every call to it; a tool
/// with more is left out, and the cap keeps the checks below linear in the schema's size.
pub const MAX_PARAM_HEADERS: usize = 32;

/// The `x-mcp-header` annotations of an input schema, at any depth of `properties`; `Err` names
/// the first one that breaks the rules.
pub fn declared(schema: &Value) -> Result<Vec<ParamHeader>, Text> {
    let mut found: Vec<ParamHeader> = Vec::new();
    // Depth first without recursion (a schema may nest as deep as its parser allowed): one
    // iterator per open `properties`, and the keys that led to each but the outermost.
    let mut levels: Vec<Iter<'_>> = properties(schema).into_iter().collect();
    let mut path: Vec<&str> = Vec::new();
    while let Some(level) = levels.last_mut() {
        let Some((key, property)) = level.next() else {
            levels.pop();
            path.pop();
            continue;
        };
        if let Some(annotation) = property.get("x-mcp-header") {
            let header = check(key, annotation, property)?;
            if found.iter().any(|earlier| earlier.name.eq_ignore_ascii_case(header)) {
                return Err(Text::new("errParamHeaderTwice").arg(header));
            }
            if found.len() == MAX_PARAM_HEADERS {
                return Err(Text::new("errParamHeaderTooMany").arg(MAX_PARAM_HEADERS));
            }
            let path = path.iter().copied().chain([key.as_str()]).map(str::to_owned).collect();
            found.push(ParamHeader { path, name: header.to_owned() });
        }
        if let Some(inner) = properties(property) {
            path.push(key);
            levels.push(inner);
        }
    }
    Ok(found)
}

fn properties(schema: &Value) -> Option<Iter<'_>> {
    schema.get("properties").and_then(Value::as_object).map(|map| map.iter())
}

/// The header name of one annotation, if it keeps the rules.
fn check<'a>(key: &str, annotation: &'a Value, property: &Value) -> Result<&'a str, Text> {
    let name = annotation.as_str().ok_or_else(|| Text::new("errParamHeaderNotString").arg(key))?;
    if name.is_empty() || !name.bytes().all(is_tchar) {
        return Err(Text::new("errParamHeaderName").arg(name));
    }
    // `number` is excluded on purpose: its text form is not unique (1.0 vs 1).
    match property.get("type").and_then(Value::as_str) {
        Some("string" | "integer" | "boolean") => Ok(name),
        _ => Err(Text::new("errParamHeaderNotPrimitive").arg(name)),
    }
}

/// RFC 9110 `tchar`.
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// The headers for one call: values that are absent, null or of another type send none.
pub fn for_arguments(declared: &[ParamHeader], arguments: &Value) -> Vec<(String, String)> {
    declared
        .iter()
        .filter_map(|header| {
            let value = header.path.iter().try_fold(arguments, |v, key| v.get(key))?;
            let text = match value {
                Value::String(s) => encode_value(s),
                Value::Bool(b) => b.to_string(),
                Value::Number(n) if n.is_i64() || n.is_u64() => n.to_string(),
                _ => return None,
            };
            Some((format!("Mcp-Param-{}", header.name), text))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn annotations_are_found_at_any_depth_and_mirrored() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "priority": {"type": "integer", "x-mcp-header": "Priority"},
            "verbose": {"type": "boolean", "x-mcp-header": "Verbose"},
            "query": {"type": "string"},
            "options": {"type": "object", "properties": {
                "greeting": {"type": "string", "x-mcp-header": "Greeting"}}}
        }});
        let declared = declared(&schema).expect("valid");
        assert_eq!(declared.len(), 4);
        let headers = for_arguments(
            &declared,
            &json!({"region": "us-west1", "priority": 42, "verbose": null, "query": "x",
                    "options": {"greeting": "Hello, 世界"}}),
        );
        let mut headers = headers;
        headers.sort();
        assert_eq!(
            headers,
            vec![
                ("Mcp-Param-Greeting".to_owned(), "=?base64?SGVsbG8sIOS4lueVjA==?=".to_owned()),
                ("Mcp-Param-Priority".to_owned(), "42".to_owned()),
                ("Mcp-Param-Region".to_owned(), "us-west1".to_owned()),
            ]
        );
        let flag = for_arguments(&declared, &json!({"verbose": false}));
        assert_eq!(flag, vec![("Mcp-Param-Verbose".to_owned(), "false".to_owned())]);
    }

    #[test]
    fn broken_annotations_are_rejected() {
        let one = |property: Value| json!({"type": "object", "properties": {"p": property}});
        for bad in [
            json!({"type": "string", "x-mcp-header": ""}),
            json!({"type": "string", "x-mcp-header": "My Region"}),
            json!({"type": "string", "x-mcp-header": "Region:Primary"}),
            json!({"type": "string", "x-mcp-header": "Région"}),
            json!({"type": "string", "x-mcp-header": "Region\t1"}),
            json!({"type": "number", "x-mcp-header": "Score"}),
            json!({"type": "object", "x-mcp-header": "Obj"}),
            json!({"type": "array", "x-mcp-header": "Items"}),
            json!({"type": "null", "x-mcp-header": "Nil"}),
            json!({"type": "string", "x-mcp-header": 7}),
        ] {
            assert!(declared(&one(bad.clone())).is_err(), "{bad}");
        }
        let twice = json!({"type": "object", "properties": {
            "a": {"type": "string", "x-mcp-header": "MyField"},
            "b": {"type": "string", "x-mcp-header": "myfield"}}});
        assert!(declared(&twice).is_err());
        assert_eq!(declared(&json!({"type": "object"})), Ok(vec![]));
    }

    /// A schema with `count` annotated parameters of distinct names.
    fn annotated(count: usize) -> Value {
        let properties: serde_json::Map<String, Value> = (0..count)
            .map(|i| (format!("p{i}"), json!({"type": "string", "x-mcp-header": format!("H{i}")})))
            .collect();
        json!({"type": "object", "properties": properties})
    }

    #[test]
    fn a_tool_marking_thousands_of_parameters_is_refused_at_the_cap() {
        // Every header was compared with every other: 20,000 made 200 million comparisons.
        assert_eq!(declared(&annotated(MAX_PARAM_HEADERS)).map(|h| h.len()), Ok(MAX_PARAM_HEADERS));
        let error = declared(&annotated(20_000)).expect_err("over the cap");
        assert!(error.to_string().contains(&MAX_PARAM_HEADERS.to_string()), "{error}");
    }

    #[test]
    fn deep_properties_are_walked_without_recursion() {
        let mut schema = json!({"type": "string", "x-mcp-header": "Leaf"});
        for _ in 0..100_000 {
            // Not `json!`: it would copy the whole tree at every level.
            let mut properties = serde_json::Map::new();
            properties.insert("p".into(), schema);
            let mut level = serde_json::Map::new();
            level.insert("properties".into(), Value::Object(properties));
            schema = Value::Object(level);
        }
        let found = declared(&schema).expect("valid");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].path.len(), 100_000);
        // serde_json drops values recursively; this one is too deep for a test thread's stack.
        std::mem::forget(schema);
    }
}
