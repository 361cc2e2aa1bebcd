//! The fields of a form read from a JSON Schema: an elicitation's requested schema (a flat
//! object of primitive properties, as MCP allows) or a tool's input schema in the tool browser,
//! whose nested objects and arrays are edited as JSON.

use serde_json::{Map, Value};

#[derive(Debug, Clone, PartialEq)]
pub enum FieldKind {
    Text,
    Integer,
    Number,
    Boolean,
    /// One of these (value, label).
    Choice(Vec<(String, String)>),
    /// Any of these (value, label).
    MultiChoice(Vec<(String, String)>),
    /// An object or array (or a value of no single type), typed as JSON.
    Json,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    pub label: String,
    pub description: Option<String>,
    pub kind: FieldKind,
    pub required: bool,
}

/// The schema's properties in order; an unusable schema gives no fields.
pub fn fields(schema: &Value) -> Vec<Field> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    // In the order the server wrote them: serde_json keeps it (feature `preserve_order`).
    props
        .iter()
        .map(|(name, spec)| Field {
            name: name.clone(),
            label: text(spec, "title").unwrap_or_else(|| name.clone()),
            description: text(spec, "description"),
            kind: kind(spec),
            required: required.contains(&name.as_str()),
        })
        .collect()
}

fn text(spec: &Value, key: &str) -> Option<String> {
    spec.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn kind(spec: &Value) -> FieldKind {
    match spec.get("type").and_then(Value::as_str) {
        Some("boolean") => FieldKind::Boolean,
        Some("integer") => FieldKind::Integer,
        Some("number") => FieldKind::Number,
        Some("array") => match spec.get("items").map(options) {
            Some(opts) if !opts.is_empty() => FieldKind::MultiChoice(opts),
            _ => FieldKind::Json,
        },
        Some("object") => FieldKind::Json,
        // No type: a `$ref`, `anyOf` of shapes, … unless it lists the values it takes.
        None if spec.get("enum").is_none() && !has_consts(spec) => FieldKind::Json,
        _ => match options(spec) {
            opts if opts.is_empty() => FieldKind::Text,
            opts => FieldKind::Choice(opts),
        },
    }
}

fn has_consts(spec: &Value) -> bool {
    let list = spec.get("oneOf").or_else(|| spec.get("anyOf")).and_then(Value::as_array);
    list.is_some_and(|l| l.iter().any(|o| o.get("const").is_some()))
}

/// `enum` (+ legacy `enumNames`), or `oneOf`/`anyOf` of `{const, title}`.
fn options(spec: &Value) -> Vec<(String, String)> {
    if let Some(values) = spec.get("enum").and_then(Value::as_array) {
        let names = spec.get("enumNames").and_then(Value::as_array);
        return values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| {
                let value = v.as_str()?.to_owned();
                let label = names.and_then(|n| n.get(i)?.as_str()).unwrap_or(&value).to_owned();
                Some((value, label))
            })
            .collect();
    }
    let list = spec.get("oneOf").or_else(|| spec.get("anyOf")).and_then(Value::as_array);
    list.into_iter()
        .flatten()
        .filter_map(|o| {
            let value = o.get("const")?.as_str()?.to_owned();
            let label = text(o, "title").unwrap_or_else(|| value.clone());
            Some((value, label))
        })
        .collect()
}

/// The JSON value of what was typed; `None` leaves the field out (empty or unreadable).
pub fn parse_input(kind: &FieldKind, input: &str) -> Option<Value> {
    let input = input.trim();
    match kind {
        _ if input.is_empty() => None,
        FieldKind::Integer => input.parse::<i64>().ok().map(Value::from),
        FieldKind::Number => {
            serde_json::from_str::<serde_json::Number>(input).ok().map(Value::Number)
        }
        FieldKind::Json => serde_json::from_str(input).ok(),
        _ => Some(Value::String(input.to_owned())),
    }
}

/// The names of required fields without a value.
pub fn missing(fields: &[Field], values: &Map<String, Value>) -> Vec<String> {
    fields
        .iter()
        .filter(|f| f.required && values.get(&f.name).is_none_or(Value::is_null))
        .map(|f| f.label.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_schema_becomes_typed_fields() {
        let schema = json!({"type": "object", "required": ["name"], "properties": {
            "name": {"type": "string", "title": "Name"},
            "ok": {"type": "boolean"},
            "n": {"type": "integer"},
            "pet": {"type": "string", "enum": ["p1", "p2"], "enumNames": ["Cats", "Dogs"]},
            "hero": {"type": "string", "oneOf": [{"const": "h1", "title": "Superman"}]},
            "fish": {"type": "array", "items": {"anyOf": [{"const": "f1", "title": "Tuna"}]}},
        }});
        let fields = fields(&schema);
        let kinds: Vec<_> = fields.iter().map(|f| (f.name.as_str(), f.kind.clone())).collect();
        assert!(kinds.contains(&("name", FieldKind::Text)));
        assert!(kinds.contains(&("ok", FieldKind::Boolean)));
        assert!(kinds.contains(&("n", FieldKind::Integer)));
        assert!(kinds.contains(&(
            "pet",
            FieldKind::Choice(vec![("p1".into(), "Cats".into()), ("p2".into(), "Dogs".into())])
        )));
        assert!(
            kinds.contains(&("hero", FieldKind::Choice(vec![("h1".into(), "Superman".into())])))
        );
        assert!(
            kinds.contains(&("fish", FieldKind::MultiChoice(vec![("f1".into(), "Tuna".into())])))
        );
        assert_eq!(missing(&fields, &Map::new()), ["Name"]);
        assert!(super::fields(&json!({"type": "object"})).is_empty());
        // A tool's nested parameters are typed as JSON.
        let nested = super::fields(&json!({"properties": {
            "filter": {"type": "object"}, "ids": {"type": "array", "items": {"type": "integer"}},
            "any": {"anyOf": [{"type": "string"}, {"type": "number"}]}}}));
        assert!(nested.iter().all(|f| f.kind == FieldKind::Json), "{nested:?}");
    }

    #[test]
    fn fields_keep_the_order_the_server_wrote() {
        let schema: Value =
            serde_json::from_str(r#"{"properties": {"b": {}, "a": {}, "c": {}}}"#).unwrap();
        let names: Vec<_> = fields(&schema).into_iter().map(|f| f.name).collect();
        assert_eq!(names, ["b", "a", "c"]);
    }

    #[test]
    fn input_is_typed_by_the_field() {
        assert_eq!(parse_input(&FieldKind::Integer, " 42 "), Some(json!(42)));
        assert_eq!(parse_input(&FieldKind::Integer, "4.2"), None);
        assert_eq!(parse_input(&FieldKind::Number, "3.5"), Some(json!(3.5)));
        assert_eq!(parse_input(&FieldKind::Text, ""), None);
        assert_eq!(parse_input(&FieldKind::Text, "Ada"), Some(json!("Ada")));
        assert_eq!(parse_input(&FieldKind::Json, "{\"a\": [1]}"), Some(json!({"a": [1]})));
        assert_eq!(parse_input(&FieldKind::Json, "{oops"), None);
    }
}
