//! Tool parameters mirrored into `Mcp-Param-{Name}` headers (SEP-2243, protocol 2026-07-28).
//!
//! A server marks a parameter in a tool's `inputSchema` with `"x-mcp-header": "Region"`; the
//! client then sends the argument's value as `Mcp-Param-Region` too, so gateways can route on it
//! without parsing the body. Tools whose annotations break the rules must be left out of the
//! tool list, so one malformed tool cannot take the others down with it.

use super::headers::encode_value;
use serde_json::Value;

/// One annotated parameter: where its value sits in the arguments, and the header's name part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamHeader {
    pub path: Vec<String>,
    pub name: String,
}

/// The `x-mcp-header` annotations of an input schema, at any depth of `properties`; `Err` names
/// the first one that breaks the rules.
pub fn declared(schema: &Value) -> Result<Vec<ParamHeader>, String> {
    let mut found = Vec::new();
    collect(schema, &mut Vec::new(), &mut found)?;
    // Pairwise: a schema declares a handful at most, and no set type joins the wasm for it.
    for (i, header) in found.iter().enumerate() {
        if found[..i].iter().any(|earlier| earlier.name.eq_ignore_ascii_case(&header.name)) {
            return Err(format!("x-mcp-header \"{}\" is declared twice", header.name));
        }
    }
    Ok(found)
}

fn collect(
    schema: &Value,
    path: &mut Vec<String>,
    found: &mut Vec<ParamHeader>,
) -> Result<(), String> {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Ok(());
    };
    for (key, property) in properties {
        path.push(key.clone());
        if let Some(annotation) = property.get("x-mcp-header") {
            let name = annotation
                .as_str()
                .ok_or_else(|| format!("x-mcp-header of \"{key}\" is not a string"))?;
            if name.is_empty() || !name.bytes().all(is_tchar) {
                return Err(format!("x-mcp-header \"{name}\" is not an HTTP header name"));
            }
            // `number` is excluded on purpose: its text form is not unique (1.0 vs 1).
            match property.get("type").and_then(Value::as_str) {
                Some("string" | "integer" | "boolean") => {}
                _ => {
                    return Err(format!("x-mcp-header \"{name}\" is on a non-primitive parameter"))
                }
            }
            found.push(ParamHeader { path: path.clone(), name: name.to_owned() });
        }
        collect(property, path, found)?;
        path.pop();
    }
    Ok(())
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
}
