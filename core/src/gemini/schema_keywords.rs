//! The JSON Schema keywords (2020-12, and draft-07's `definitions` and `additionalItems`) whose
//! values are subschemas, for everything that walks a tool's schema: the sanitizer (`schema`)
//! and the flattener (`budget::flatten`). Any other keyword's value is data (`const`, `enum`,
//! `default`, `examples`, vendor extensions).
//! https://json-schema.org/draft/2020-12/json-schema-core#section-10

/// Keywords whose value maps names to subschemas.
pub const MAPS: &[&str] = &["properties", "patternProperties", "dependentSchemas"];
/// Keywords whose value maps names to schemas that are only referred to.
pub const DEFINITIONS: &[&str] = &["$defs", "definitions"];
/// Keywords whose value is one subschema.
pub const ONE: &[&str] = &[
    "items",
    "additionalItems",
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
];
/// Keywords whose value is a list of subschemas (`items` too, as draft-07 wrote tuples).
pub const LISTS: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems", "items"];

/// Whether `keyword`'s value is a subschema or a list of them.
pub fn holds_subschemas(keyword: &str) -> bool {
    ONE.contains(&keyword) || LISTS.contains(&keyword)
}
