//! Schemas deeper than the API accepts, made shallow: each subtree that would reach past the
//! limit becomes a string parameter whose description carries the subtree's JSON Schema, and
//! before the call the string the model wrote is parsed back into the value the MCP tool
//! expects. The model loses nothing but the API's check of that part; the server still
//! validates it.

use std::fmt;

use serde_json::{json, Map, Value};

use super::limits::API_MAX_ARRAY_BOUNDS_SUM;

use crate::gemini::schema_keywords::{
    LISTS as SCHEMA_LISTS, MAPS as SCHEMA_MAPS, ONE as SCHEMA_ONE,
};

/// The name of the single parameter when the root itself had to become text.
pub const ROOT_PARAMETER: &str = "arguments_json";

/// The depth of a schema: 1 for a node without subschemas, else 1 + the deepest subschema.
/// (`$defs` do not count: they are inlined before this runs.)
pub fn depth(schema: &Value) -> usize {
    1 + children(schema).map(depth).max().unwrap_or(0)
}

fn children(schema: &Value) -> impl Iterator<Item = &Value> {
    let map = schema.as_object();
    let maps = SCHEMA_MAPS
        .iter()
        .filter_map(move |k| map?.get(*k)?.as_object())
        .flat_map(|m| m.values())
        .filter(|v| v.is_object());
    let ones = SCHEMA_ONE.iter().filter_map(move |k| map?.get(*k)).filter(|v| v.is_object());
    let lists = SCHEMA_LISTS
        .iter()
        .filter_map(move |k| map?.get(*k)?.as_array())
        .flatten()
        .filter(|v| v.is_object());
    maps.chain(ones).chain(lists)
}

/// One step from the arguments object to a flattened value.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Step {
    Property(String),
    /// Every element of an array.
    Items,
}

/// Where the flattened values sit in the arguments: each path leads to a string to parse.
/// Empty for a schema that needed nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    paths: Vec<Vec<Step>>,
    /// The root itself became [`ROOT_PARAMETER`].
    whole: bool,
}

impl Plan {
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty() && !self.whole
    }

    /// The flattened places, as `a.b[]` paths (for tests and logs).
    pub fn describe(&self) -> Vec<String> {
        if self.whole {
            return vec![ROOT_PARAMETER.to_owned()];
        }
        self.paths.iter().map(|p| path_text(p)).collect()
    }

    /// The arguments the MCP tool expects, from those the model wrote for the flat schema.
    pub fn restore(&self, mut args: Map<String, Value>) -> Result<Map<String, Value>, BadArgument> {
        if self.whole {
            let text = match args.remove(ROOT_PARAMETER) {
                Some(Value::String(text)) => text,
                Some(Value::Object(already)) => return Ok(already),
                Some(_) | None => return Err(BadArgument::missing(ROOT_PARAMETER)),
            };
            return match parse(&text, ROOT_PARAMETER)? {
                Value::Object(map) => Ok(map),
                _ => Err(BadArgument {
                    path: ROOT_PARAMETER.into(),
                    problem: "it must be a JSON object".into(),
                }),
            };
        }
        for path in &self.paths {
            let mut walked = Vec::new();
            if let Some((Step::Property(name), rest)) = path.split_first() {
                walked.push(Step::Property(name.clone()));
                if let Some(value) = args.get_mut(name) {
                    restore_at(value, rest, &mut walked)?;
                }
            }
        }
        Ok(args)
    }
}

fn restore_at(value: &mut Value, rest: &[Step], walked: &mut Vec<Step>) -> Result<(), BadArgument> {
    let Some((step, rest)) = rest.split_first() else {
        if let Value::String(text) = value {
            *value = parse(text, &path_text(walked))?;
        }
        // A value the model already wrote as JSON (not as text) is taken as it is.
        return Ok(());
    };
    walked.push(step.clone());
    match (step, value) {
        (Step::Property(name), Value::Object(map)) => {
            if let Some(inner) = map.get_mut(name) {
                restore_at(inner, rest, walked)?;
            }
        }
        (Step::Items, Value::Array(items)) => {
            for item in items {
                restore_at(item, rest, walked)?;
            }
        }
        _ => {}
    }
    walked.pop();
    Ok(())
}

fn parse(text: &str, path: &str) -> Result<Value, BadArgument> {
    serde_json::from_str(text)
        .map_err(|e| BadArgument { path: path.to_owned(), problem: format!("it is not JSON: {e}") })
}

fn path_text(path: &[Step]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Property(name) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(name);
            }
            Step::Items => out.push_str("[]"),
        }
    }
    out
}

/// An argument the model wrote as text that is not the JSON its description asked for. The
/// model reads this as the function's error and can try again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadArgument {
    pub path: String,
    pub problem: String,
}

impl BadArgument {
    fn missing(path: &str) -> Self {
        Self { path: path.into(), problem: "it is missing".into() }
    }
}

impl fmt::Display for BadArgument {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "The argument `{}` must be a string of JSON text matching the schema in its \
             description, but {}. Call the function again with valid JSON text there.",
            self.path, self.problem
        )
    }
}

/// `schema` (a root object schema, refs inlined) within `max_depth`, and where the values that
/// became text are. `max_depth` below 2 is taken as 2 (an object with string parameters).
pub fn flatten(schema: &Value, max_depth: usize) -> (Value, Plan) {
    let max_depth = max_depth.max(2);
    let schema = relax_array_bounds(schema);
    if depth(&schema) <= max_depth {
        return (schema, Plan::default());
    }
    let mut plan = Plan::default();
    match descend(&schema, 1, max_depth, &mut Vec::new(), &mut plan) {
        Some(flat) => (flat, plan),
        None => {
            // The root cannot be descended (a union of objects): the whole arguments object
            // travels as text.
            let description = as_text_description(&schema);
            let flat = json!({
                "type": "object",
                "properties": {ROOT_PARAMETER: {"type": "string", "description": description}},
                "required": [ROOT_PARAMETER],
            });
            (flat, Plan { paths: Vec::new(), whole: true })
        }
    }
}

/// `node` at `level` rewritten to fit, or `None` when only turning it into text would do.
fn descend(
    node: &Value,
    level: usize,
    max: usize,
    path: &mut Vec<Step>,
    plan: &mut Plan,
) -> Option<Value> {
    if level - 1 + depth(node) <= max {
        return Some(node.clone());
    }
    let map = node.as_object()?;
    // Only plain objects and arrays are walked into; a union, a map of arbitrary keys or a
    // conditional deeper than allowed is turned into text whole.
    let descendable = level < max
        && children_keys(map).all(|k| k == "properties" || k == "items")
        && !map.get("items").is_some_and(Value::is_array);
    if !descendable {
        return None;
    }
    let mut out = map.clone();
    if let Some(Value::Object(properties)) = map.get("properties") {
        let mut fitted = Map::new();
        for (name, sub) in properties {
            path.push(Step::Property(name.clone()));
            let value = descend(sub, level + 1, max, path, plan).unwrap_or_else(|| {
                plan.paths.push(path.clone());
                as_text(sub)
            });
            path.pop();
            fitted.insert(name.clone(), value);
        }
        out.insert("properties".into(), Value::Object(fitted));
    }
    if let Some(items) = map.get("items") {
        path.push(Step::Items);
        let value = descend(items, level + 1, max, path, plan).unwrap_or_else(|| {
            plan.paths.push(path.clone());
            as_text(items)
        });
        path.pop();
        out.insert("items".into(), value);
    }
    Some(Value::Object(out))
}

fn children_keys(map: &Map<String, Value>) -> impl Iterator<Item = &str> {
    map.iter()
        .filter(|(k, v)| {
            let k = k.as_str();
            (SCHEMA_MAPS.contains(&k) && v.is_object())
                || (SCHEMA_ONE.contains(&k) && v.is_object())
                || (SCHEMA_LISTS.contains(&k) && v.is_array())
        })
        .map(|(k, _)| k.as_str())
}

/// A string schema standing for `schema`.
fn as_text(schema: &Value) -> Value {
    json!({"type": "string", "description": as_text_description(schema)})
}

fn as_text_description(schema: &Value) -> String {
    let own = schema.get("description").and_then(Value::as_str).unwrap_or("").trim();
    let mut inner = schema.clone();
    if let Some(map) = inner.as_object_mut() {
        map.remove("description");
    }
    let lead = if own.is_empty() { String::new() } else { format!("{own} ") };
    format!("{lead}(JSON text of a value matching this JSON Schema: {inner})")
}

/// Array bounds that add up past what the API can compile are dropped (the server still checks
/// them); see [`API_MAX_ARRAY_BOUNDS_SUM`].
fn relax_array_bounds(schema: &Value) -> Value {
    if array_bounds_sum(schema) <= API_MAX_ARRAY_BOUNDS_SUM {
        return schema.clone();
    }
    let mut out = schema.clone();
    strip_array_bounds(&mut out);
    out
}

fn array_bounds_sum(schema: &Value) -> u64 {
    let own = ["maxItems", "minItems"]
        .iter()
        .filter_map(|k| schema.get(*k).and_then(Value::as_u64))
        .fold(0u64, u64::saturating_add);
    children(schema).map(array_bounds_sum).fold(own, u64::saturating_add)
}

fn strip_array_bounds(schema: &mut Value) {
    let Some(map) = schema.as_object_mut() else { return };
    map.remove("maxItems");
    map.remove("minItems");
    for (key, value) in map.iter_mut() {
        let key = key.as_str();
        if SCHEMA_MAPS.contains(&key) {
            if let Some(entries) = value.as_object_mut() {
                entries.values_mut().for_each(strip_array_bounds);
            }
        } else if SCHEMA_LISTS.contains(&key) && value.is_array() {
            if let Some(list) = value.as_array_mut() {
                list.iter_mut().for_each(strip_array_bounds);
            }
        } else if SCHEMA_ONE.contains(&key) {
            strip_array_bounds(value);
        }
    }
}
