//! MCP `inputSchema` → `parametersJsonSchema` and the OpenAPI fallback, one fixture case each
//! (`data/gemini/schema_cases.json`), plus hostile schemas.

use gemipanel_core::gemini::schema::{inline_refs, parameters_json_schema, to_openapi_subset};
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

/// Every JSON Schema type but `null`, as a server may list them all.
fn all_types() -> Value {
    json!(["string", "number", "integer", "boolean", "object", "array", "null"])
}

/// `levels` nested schemas of every type, alternately through `items` and `properties`.
fn nested_type_arrays(levels: usize) -> Value {
    let mut schema = json!({"type": "string"});
    for level in 0..levels {
        let mut map = serde_json::Map::new();
        map.insert("type".into(), all_types());
        if level % 2 == 0 {
            map.insert("items".into(), schema);
        } else {
            map.insert("properties".into(), json!({ "p": schema }));
        }
        schema = Value::Object(map);
    }
    schema
}

#[test]
fn type_arrays_do_not_multiply_the_output() {
    // Each level used to copy everything below it into a variant per type: 600 bytes of input
    // came out as hundreds of megabytes. Checked level by level so that a regression fails fast.
    for levels in 1..=48 {
        let input = json!({"type": "object", "properties": {"x": nested_type_arrays(levels)}});
        let input_len = input.to_string().len();
        let openapi = to_openapi_subset(&input).to_string().len();
        let json_schema = parameters_json_schema(&input).to_string().len();
        assert!(openapi <= 4 * input_len, "{levels} levels: {input_len} bytes in, {openapi} out");
        assert!(json_schema <= 2 * input_len, "{levels} levels: {json_schema} out");
        if levels == 7 {
            assert!(input_len <= 700, "the size reported in issue 11: {input_len}");
        }
    }
}

#[test]
fn a_type_array_gives_one_variant_per_type_with_its_own_keywords() {
    let input = json!({
        "type": ["object", "array", "string", "string", "frobnicate", "null"],
        "description": "either",
        "properties": {"a": {"type": "string"}},
        "required": ["a"],
        "items": {"type": "integer"},
        "maxLength": 3,
    });
    let expected = json!({
        "description": "either",
        "nullable": true,
        "anyOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"],
             "maxLength": 3},
            {"type": "array", "items": {"type": "integer"}, "maxLength": 3},
            {"type": "string", "maxLength": 3},
        ],
    });
    assert_eq!(
        to_openapi_subset(&json!({"properties": {"v": input}}))["properties"]["v"],
        expected
    );
}

#[test]
fn repeated_refs_to_big_data_stay_linear() {
    // One definition carrying 40 kB of enum, referred to by 1,000 properties: inlining every
    // ref would write it 1,000 times (40 MB).
    let values: Vec<String> = (0..4_000).map(|i| format!("value{i:04}")).collect();
    let mut properties = serde_json::Map::new();
    for i in 0..1_000 {
        properties.insert(format!("p{i}"), json!({"$ref": "#/$defs/Big"}));
    }
    let input = json!({
        "type": "object",
        "properties": properties,
        "$defs": {"Big": {"type": "string", "enum": values}},
    });
    let input_len = input.to_string().len();
    let inlined = inline_refs(&input);
    let inlined_len = inlined.to_string().len();
    assert!(inlined_len <= 20 * input_len + 300_000, "{input_len} in, {inlined_len} out");
    // What fits keeps the data; what does not is an open object, never a dangling ref.
    assert_eq!(inlined["properties"]["p0"]["enum"][3_999], "value3999");
    assert!(!inlined.to_string().contains("$ref"));
    let openapi_len = to_openapi_subset(&input).to_string().len();
    assert!(openapi_len <= 20 * input_len + 300_000, "{openapi_len} out");
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
