//! MCP `inputSchema` (JSON Schema) → what Gemini accepts.
//!
//! `parametersJsonSchema` takes JSON Schema but not references, so local `$ref`s are inlined and
//! recursive ones cut to `{"type": "object"}`. When the API still refuses a schema, the fallback
//! [`to_openapi_subset`] rewrites it to the OpenAPI 3.0 subset that `parameters` accepts: the API
//! rejects any field it does not know ("Unknown name \"additionalProperties\"…"), so unknown
//! keywords are dropped rather than passed through.
//!
//! Schemas come from servers, so both steps stay linear in the schema's size: inlining stops
//! at a multiple of the input, and the fallback rewrites each subschema once.

use std::borrow::Cow;

use super::schema_keywords as keywords;
use serde_json::{json, Map, Value};

/// Refs expanded per schema; beyond that (a schema built to explode) refs are cut.
const MAX_EXPANSIONS: usize = 2_000;
/// Nesting depth beyond which subschemas are cut.
const MAX_DEPTH: usize = 48;
/// What inlining may produce, in [`weight`] units: this many times the input, plus
/// [`OUTPUT_FLOOR`]. Beyond it, what is left is cut, so the output stays linear in the input
/// even when every ref is reached a thousand times.
const OUTPUT_FACTOR: usize = 16;
const OUTPUT_FLOOR: usize = 256 * 1024;

/// The schema for `parametersJsonSchema`: refs inlined, `$defs`/`definitions` dropped, and an
/// object schema at the root (Gemini wants named arguments).
pub fn parameters_json_schema(input_schema: &Value) -> Value {
    let mut schema = inline_refs(input_schema);
    if let Value::Object(map) = &mut schema {
        if !map.contains_key("type") {
            map.insert("type".into(), json!("object"));
        }
        return schema;
    }
    json!({ "type": "object", "properties": {} })
}

/// Inlines every local `$ref` (`#/$defs/…`, `#/definitions/…`, any `#/…` pointer, `#`). A ref
/// to a schema already being expanded (a cycle) becomes `{"type": "object"}`; a ref that cannot
/// be resolved is dropped, keeping its sibling keywords.
pub fn inline_refs(schema: &Value) -> Value {
    Inliner::new(schema).run()
}

struct Inliner<'a> {
    root: &'a Value,
    /// Refs being expanded, innermost last.
    stack: Vec<String>,
    expansions: usize,
    /// [`weight`] of what has been produced, and what may be.
    produced: usize,
    limit: usize,
}

impl<'a> Inliner<'a> {
    fn new(root: &'a Value) -> Self {
        let limit = weight(root).saturating_mul(OUTPUT_FACTOR).saturating_add(OUTPUT_FLOOR);
        Self { root, stack: vec!["#".to_owned()], expansions: 0, produced: 0, limit }
    }

    fn run(&mut self) -> Value {
        self.schema(self.root, 0, true)
    }

    /// Counts `amount` as produced; false (and nothing counted) when it would pass the limit.
    fn take(&mut self, amount: usize) -> bool {
        match self.produced.checked_add(amount) {
            Some(total) if total <= self.limit => {
                self.produced = total;
                true
            }
            _ => false,
        }
    }

    fn schema(&mut self, node: &Value, depth: usize, at_root: bool) -> Value {
        let Value::Object(map) = node else {
            return if self.take(weight(node)) { node.clone() } else { json!({}) };
        };
        if depth > MAX_DEPTH {
            return cut(map);
        }
        if !self.take(NODE_WEIGHT) {
            // The output is as big as it may get: the rest is an open object.
            return json!({ "type": "object" });
        }
        let mut out = Map::new();
        for (key, value) in map {
            if key == "$ref" || (at_root && (key == "$defs" || key == "definitions")) {
                continue;
            }
            if !self.take(key.len() + NODE_WEIGHT) {
                break;
            }
            let value = match (key.as_str(), value) {
                (k, Value::Object(entries))
                    if keywords::MAPS.contains(&k) || keywords::DEFINITIONS.contains(&k) =>
                {
                    Value::Object(
                        entries
                            .iter()
                            .map(|(name, sub)| (name.clone(), self.schema(sub, depth + 1, false)))
                            .collect(),
                    )
                }
                (k, Value::Array(list)) if keywords::holds_subschemas(k) => Value::Array(
                    list.iter().map(|sub| self.schema(sub, depth + 1, false)).collect(),
                ),
                (k, sub) if keywords::holds_subschemas(k) => self.schema(sub, depth + 1, false),
                (_, data) if self.take(weight(data)) => data.clone(),
                // Data that would pass the limit (a huge `enum` copied by every ref) is left out.
                _ => continue,
            };
            out.insert(key.clone(), value);
        }
        let Some(reference) = map.get("$ref").and_then(Value::as_str) else {
            return Value::Object(out);
        };
        if self.stack.iter().any(|r| r == reference) || self.expansions >= MAX_EXPANSIONS {
            let mut cut = cut(&out);
            if let Value::Object(c) = &mut cut {
                for (key, value) in out {
                    c.entry(key).or_insert(value);
                }
            }
            return cut;
        }
        let Some(target) = resolve(self.root, reference) else { return Value::Object(out) };
        self.expansions += 1;
        self.stack.push(reference.to_owned());
        let resolved = self.schema(target, depth + 1, false);
        self.stack.pop();
        match resolved {
            // Sibling keywords (a local `description`) override the target's.
            Value::Object(mut merged) => {
                merged.extend(out);
                Value::Object(merged)
            }
            other if out.is_empty() => other,
            _ => Value::Object(out),
        }
    }
}

/// The replacement of a cut reference: an open object, keeping a local description.
fn cut(map: &Map<String, Value>) -> Value {
    let mut out = json!({ "type": "object" });
    if let (Some(obj), Some(d)) = (out.as_object_mut(), map.get("description")) {
        obj.insert("description".into(), d.clone());
    }
    out
}

/// What one object or array costs in [`weight`], besides its contents.
const NODE_WEIGHT: usize = 2;

/// About the length of `value` written as JSON, without recursion (schemas from a server can
/// nest as deep as their parser allowed).
fn weight(value: &Value) -> usize {
    let mut total = 0usize;
    let mut todo = vec![value];
    while let Some(value) = todo.pop() {
        total = total.saturating_add(match value {
            Value::Null | Value::Bool(_) => 4,
            Value::Number(_) => 8,
            Value::String(s) => s.len() + 2,
            Value::Array(list) => {
                todo.extend(list);
                NODE_WEIGHT + list.len()
            }
            Value::Object(map) => {
                todo.extend(map.values());
                NODE_WEIGHT + map.keys().map(|k| k.len() + 4).sum::<usize>()
            }
        });
    }
    total
}

fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    root.pointer(pointer)
}

/// Rewrites a JSON Schema to the OpenAPI subset of Gemini's `parameters`: keeps `type`,
/// `description`, `enum` (strings), `items`, `properties`, `required`, `nullable`, `anyOf`,
/// allowed `format`s and numeric/length bounds; `type: [T, "null"]` → `type: T, nullable: true`;
/// `const` → a one-value `enum`; `oneOf` → `anyOf`; `allOf` merged; the rest dropped.
pub fn to_openapi_subset(schema: &Value) -> Value {
    let inlined = inline_refs(schema);
    let mut out = Sanitizer { visited: 0 }.sanitize(&inlined, 0);
    if let Some(map) = out.as_object_mut() {
        if map.get("type").and_then(Value::as_str) != Some("object") && !map.contains_key("anyOf") {
            // Function parameters are always an object of named arguments.
            return json!({ "type": "object", "properties": {} });
        }
    }
    out
}

/// JSON Schema's types besides `null`: a type array becomes at most one variant of each.
const TYPES: &[&str] = &["string", "number", "integer", "boolean", "object", "array"];

/// Rewrites one subschema. Each subschema of the input is rewritten once: a type array splits
/// into variants that share the schema's keywords, and only the variant of its type gets a
/// subschema (`properties` the object one, `items` the array one). Copying them into every
/// variant made the output grow sevenfold per level.
struct Sanitizer {
    /// Subschemas rewritten, for tests of the work done.
    visited: usize,
}

impl Sanitizer {
    fn sanitize(&mut self, node: &Value, depth: usize) -> Value {
        self.visited += 1;
        let Value::Object(source) = node else {
            // `true` / `false` schemas, or junk: an unconstrained value.
            return json!({});
        };
        if depth > MAX_DEPTH {
            return json!({ "type": "object" });
        }
        let map = merge_all_of(source);
        let mut out = Map::new();
        let mut nullable = map.get("nullable").and_then(Value::as_bool).unwrap_or(false);

        let named: Vec<&str> = match map.get("type") {
            Some(Value::String(t)) => vec![t],
            Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        nullable |= named.contains(&"null");
        let mut types: Vec<&str> = Vec::new();
        for t in named {
            // Names Gemini does not know are dropped like unknown keywords; repeats once.
            if TYPES.contains(&t) && !types.contains(&t) {
                types.push(t);
            }
        }
        match types.as_slice() {
            [] => self.keywords(&map, None, depth, &mut out, &mut nullable),
            [one] => {
                out.insert("type".into(), json!(one));
                self.keywords(&map, None, depth, &mut out, &mut nullable);
            }
            many => {
                let variants = many
                    .iter()
                    .map(|t| {
                        let mut variant = Map::new();
                        variant.insert("type".into(), json!(t));
                        let mut nullable = map.get("nullable") == Some(&Value::Bool(true));
                        self.keywords(&map, Some(t), depth + 1, &mut variant, &mut nullable);
                        if nullable {
                            variant.insert("nullable".into(), json!(true));
                        }
                        Value::Object(variant)
                    })
                    .collect();
                out.insert("anyOf".into(), Value::Array(variants));
            }
        }

        if let Some(Value::String(d)) = map.get("description") {
            out.insert("description".into(), json!(d));
        }

        let variants = map.get("anyOf").or_else(|| map.get("oneOf")).and_then(Value::as_array);
        if let Some(variants) = variants {
            let mut kept = Vec::new();
            for variant in variants {
                if variant.get("type").and_then(Value::as_str) == Some("null") {
                    nullable = true;
                } else {
                    kept.push(self.sanitize(variant, depth + 1));
                }
            }
            match kept.len() {
                0 => {}
                1 => {
                    // `anyOf: [T, null]` is just a nullable T.
                    if let Some(Value::Object(only)) = kept.pop() {
                        for (k, v) in only {
                            out.entry(k).or_insert(v);
                        }
                    }
                }
                _ => {
                    out.insert("anyOf".into(), Value::Array(kept));
                }
            }
        }

        if nullable {
            out.insert("nullable".into(), json!(true));
        }
        Value::Object(out)
    }

    /// The keywords of `map` besides `type`, `description` and `anyOf`, into `out`. For one
    /// variant of a type array (`variant` is its type), subschemas go only where they apply.
    fn keywords(
        &mut self,
        map: &Map<String, Value>,
        variant: Option<&str>,
        depth: usize,
        out: &mut Map<String, Value>,
        nullable: &mut bool,
    ) {
        let enum_values = map
            .get("enum")
            .and_then(Value::as_array)
            .cloned()
            .or_else(|| map.get("const").map(|c| vec![c.clone()]));
        if let Some(values) = enum_values {
            *nullable |= values.iter().any(Value::is_null);
            let values: Vec<&Value> = values.iter().filter(|v| !v.is_null()).collect();
            // Gemini's enum holds strings only; other enums are dropped, not coerced.
            if !values.is_empty() && values.iter().all(|v| v.is_string()) {
                out.insert("enum".into(), Value::Array(values.into_iter().cloned().collect()));
                out.entry("type").or_insert(json!("string"));
            }
        }

        let properties = map.get("properties").filter(|_| variant.is_none_or(|t| t == "object"));
        if let Some(Value::Object(properties)) = properties {
            let properties: Map<String, Value> =
                properties.iter().map(|(k, v)| (k.clone(), self.sanitize(v, depth + 1))).collect();
            if let Some(Value::Array(required)) = map.get("required") {
                // The API rejects `required` names that are not properties.
                let required: Vec<Value> = required
                    .iter()
                    .filter(|r| r.as_str().is_some_and(|r| properties.contains_key(r)))
                    .cloned()
                    .collect();
                if !required.is_empty() {
                    out.insert("required".into(), Value::Array(required));
                }
            }
            out.insert("properties".into(), Value::Object(properties));
            out.entry("type").or_insert(json!("object"));
        }

        match map.get("items").filter(|_| variant.is_none_or(|t| t == "array")) {
            Some(Value::Array(tuple)) => {
                let first = tuple.first().map_or(json!({}), |s| self.sanitize(s, depth + 1));
                out.insert("items".into(), first);
            }
            Some(items) => {
                out.insert("items".into(), self.sanitize(items, depth + 1));
            }
            None => {}
        }
        if out.get("type").and_then(Value::as_str) == Some("array") && !out.contains_key("items") {
            // "…parameters.properties[x].items: missing field."
            out.insert("items".into(), json!({ "type": "string" }));
        }
        if out.get("items").is_some() {
            out.entry("type").or_insert(json!("array"));
        }

        copy_format(map, out);
        copy_bounds(map, out);
    }
}

/// Folds `allOf` members into the schema: properties and required lists are unioned, other
/// keywords filled in where the schema has none.
fn merge_all_of(map: &Map<String, Value>) -> Cow<'_, Map<String, Value>> {
    let Some(Value::Array(members)) = map.get("allOf") else { return Cow::Borrowed(map) };
    let mut merged = map.clone();
    merged.remove("allOf");
    for member in members.iter().filter_map(Value::as_object) {
        for (key, value) in merge_all_of(member).into_owned() {
            match (key.as_str(), merged.get_mut(&key), value) {
                ("properties", Some(Value::Object(props)), Value::Object(more)) => {
                    for (k, v) in more {
                        props.entry(k).or_insert(v);
                    }
                }
                ("required", Some(Value::Array(list)), Value::Array(more)) => {
                    for r in more {
                        if !list.contains(&r) {
                            list.push(r);
                        }
                    }
                }
                (_, None, value) => {
                    merged.insert(key, value);
                }
                _ => {}
            }
        }
    }
    Cow::Owned(merged)
}

/// `format` is accepted only in a few combinations: `date-time`/`enum` on strings,
/// `int32`/`int64` on integers, `float`/`double` on numbers.
fn copy_format(map: &Map<String, Value>, out: &mut Map<String, Value>) {
    let (Some(format), Some(ty)) =
        (map.get("format").and_then(Value::as_str), out.get("type").and_then(Value::as_str))
    else {
        return;
    };
    let allowed = match ty {
        "string" => ["date-time", "enum"].contains(&format),
        "integer" => ["int32", "int64"].contains(&format),
        "number" => ["float", "double"].contains(&format),
        _ => false,
    };
    if allowed {
        out.insert("format".into(), json!(format));
    }
}

fn copy_bounds(map: &Map<String, Value>, out: &mut Map<String, Value>) {
    for key in [
        "minimum",
        "maximum",
        "minItems",
        "maxItems",
        "minLength",
        "maxLength",
        "minProperties",
        "maxProperties",
    ] {
        if let Some(n) = map.get(key).filter(|v| v.is_number()) {
            out.insert(key.into(), n.clone());
        }
    }
    // Draft 6+ numeric exclusive bounds; close enough as inclusive ones for the model.
    for (exclusive, inclusive) in [("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")]
    {
        if let Some(n) = map.get(exclusive).filter(|v| v.is_number()) {
            out.entry(inclusive).or_insert(n.clone());
        }
    }
    if let Some(Value::String(p)) = map.get("pattern") {
        out.insert("pattern".into(), json!(p));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `levels` schemas of every type nested through `items`.
    fn nested_type_arrays(levels: usize) -> Value {
        let mut schema = json!({"type": "string"});
        for _ in 0..levels {
            let mut map = Map::new();
            map.insert("type".into(), json!(TYPES));
            map.insert("items".into(), schema);
            schema = Value::Object(map);
        }
        schema
    }

    #[test]
    fn each_subschema_is_rewritten_once() {
        // A variant counts as a level of depth, so 24 levels reach the cap.
        for levels in [1, 10, MAX_DEPTH / 2 - 1] {
            let mut sanitizer = Sanitizer { visited: 0 };
            sanitizer.sanitize(&nested_type_arrays(levels), 0);
            assert_eq!(sanitizer.visited, levels + 1, "{levels} levels");
        }
    }

    #[test]
    fn inlining_stops_at_its_limit() {
        let big: Vec<String> = (0..2_000).map(|i| format!("v{i}")).collect();
        let refs: Map<String, Value> =
            (0..2_000).map(|i| (format!("p{i}"), json!({"$ref": "#/$defs/Big"}))).collect();
        let schema = json!({"properties": refs, "$defs": {"Big": {"enum": big}}});
        let mut inliner = Inliner::new(&schema);
        let out = inliner.run();
        assert!(inliner.produced <= inliner.limit);
        assert!(inliner.limit <= weight(&schema) * OUTPUT_FACTOR + OUTPUT_FLOOR);
        // The weight is close to the written length, so the limit bounds the bytes too.
        let written = out.to_string().len();
        assert!(written <= inliner.produced + inliner.produced / 2, "{written}");
        assert!(inliner.expansions < 2_000, "cut by size, not by count");
    }
}
