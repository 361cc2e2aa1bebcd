//! MCP `inputSchema` → `parametersJsonSchema` and the OpenAPI fallback, one fixture case each
//! (`data/gemini/schema_cases.json`), plus hostile schemas.

use gemipanel_core::tools::schema::{inline_refs, parameters_json_schema, to_openapi_subset};
use serde_json::{json, Value};

fn cases() -> Vec<Value> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/gemini/schema_cases.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn fixture_cases() {
    for case in cases() {
        let name = case["name"].as_str().unwrap();
        let input = &case["input"];
        if let Some(expected) = case.get("json_schema") {
            assert_eq!(&parameters_json_schema(input), expected, "parametersJsonSchema: {name}");
        }
        if let Some(expected) = case.get("openapi") {
            assert_eq!(&to_openapi_subset(input), expected, "parameters: {name}");
        }
    }
}

/// Keywords the API's `parameters` (OpenAPI Schema) accepts.
const ALLOWED: &[&str] = &[
    "type",
    "format",
    "description",
    "nullable",
    "enum",
    "items",
    "properties",
    "required",
    "anyOf",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "minProperties",
    "maxProperties",
    "pattern",
];

fn assert_only_allowed(schema: &Value, path: &str) {
    let Some(map) = schema.as_object() else { panic!("{path}: not an object: {schema}") };
    for (key, value) in map {
        assert!(ALLOWED.contains(&key.as_str()), "{path}: `{key}` is not in the subset");
        match key.as_str() {
            "properties" => {
                for (name, sub) in value.as_object().unwrap() {
                    assert_only_allowed(sub, &format!("{path}.{name}"));
                }
            }
            "items" => assert_only_allowed(value, &format!("{path}[]")),
            "anyOf" => {
                for (i, sub) in value.as_array().unwrap().iter().enumerate() {
                    assert_only_allowed(sub, &format!("{path}|{i}"));
                }
            }
            "enum" => assert!(value.as_array().unwrap().iter().all(Value::is_string), "{path}"),
            "type" => assert!(
                ["string", "number", "integer", "boolean", "array", "object"]
                    .contains(&value.as_str().unwrap()),
                "{path}: type {value}"
            ),
            _ => {}
        }
    }
}

#[test]
fn openapi_output_uses_only_the_subset() {
    for case in cases() {
        let out = to_openapi_subset(&case["input"]);
        assert_only_allowed(&out, case["name"].as_str().unwrap());
        assert!(!out.to_string().contains("$ref"));
    }
}

#[test]
fn no_refs_survive_inlining() {
    for case in cases() {
        let out = parameters_json_schema(&case["input"]);
        let name = case["name"].as_str().unwrap();
        if name != "data keywords are not rewritten" {
            assert!(!out.to_string().contains("\"$ref\""), "{name}: {out}");
        }
        assert!(out.get("$defs").is_none() && out.get("definitions").is_none(), "{name}");
    }
}

#[test]
fn exponential_ref_graphs_are_bounded() {
    // Each level refers to the next twice: naive inlining would make 2^40 copies.
    let mut defs = serde_json::Map::new();
    for i in 0..40 {
        let next = format!("#/$defs/L{}", i + 1);
        defs.insert(
            format!("L{i}"),
            json!({"type": "object", "properties": {"a": {"$ref": next}, "b": {"$ref": next}}}),
        );
    }
    defs.insert("L40".into(), json!({"type": "string"}));
    let schema =
        json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/L0"}}, "$defs": defs});
    let out = inline_refs(&schema);
    assert!(out.to_string().len() < 2_000_000, "bounded output");
    let _ = to_openapi_subset(&schema);
}

#[test]
fn deep_nesting_is_cut() {
    // serde_json builds and drops values recursively, so the test itself needs a big stack; the
    // code under test must not recurse past its depth cap.
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(|| {
            let mut schema = json!({"type": "string"});
            for _ in 0..5_000 {
                // Not `json!`: it would copy the whole tree at every level.
                let mut level = serde_json::Map::new();
                level.insert("type".into(), json!("array"));
                level.insert("items".into(), schema);
                schema = Value::Object(level);
            }
            let inlined = inline_refs(&schema);
            let openapi =
                to_openapi_subset(&json!({"type": "object", "properties": {"deep": schema}}));
            let depth = |v: &Value| {
                let mut depth = 0;
                let mut node = v;
                while let Some(next) =
                    node.get("items").or_else(|| node.pointer("/properties/deep"))
                {
                    depth += 1;
                    node = next;
                }
                depth
            };
            assert!(depth(&inlined) < 100, "{}", depth(&inlined));
            assert!(depth(&openapi) < 100, "{}", depth(&openapi));
            std::mem::forget(schema);
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn junk_never_panics() {
    for junk in [
        json!(42),
        json!("string"),
        json!([1, 2]),
        json!({"type": 5, "properties": [], "required": "a", "items": 3, "anyOf": {}, "enum": "x"}),
        json!({"$ref": 7}),
        json!({"$ref": "#/a/~1/b/~0"}),
        json!({"type": ["null"]}),
        json!({"allOf": [1, {"allOf": [{"properties": {"x": true}}]}]}),
    ] {
        let _ = parameters_json_schema(&junk);
        assert_only_allowed(&to_openapi_subset(&junk), &junk.to_string());
    }
}
