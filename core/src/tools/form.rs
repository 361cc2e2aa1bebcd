//! A form read from a JSON Schema: an elicitation's requested schema (a flat object of primitive
//! properties, as MCP allows: read with depth [`FLAT`]) or a tool's input schema in the tool
//! browser, whose objects with `properties` become groups of fields and whose arrays of simple
//! values or of such objects become lists of items, down to [`MAX_DEPTH`] levels.
//!
//! Anything else (a free-form object, a tuple, a `oneOf` of shapes, a `$ref`, which is never
//! resolved, or whatever lies deeper than the depth allowed) is typed as JSON text, so a hostile
//! or recursive schema costs a form no bigger than the schema itself.
//!
//! The form's values are a JSON object the inputs write into at a [`Step`] path as the person
//! types; [`collect`] turns it into the arguments (empty optional fields left out) or says which
//! fields, by path such as `address.city` or `contacts[2].name` (items counted from 1, as the
//! form shows them), still need something.

use serde_json::{Map, Value};

/// How deep groups and lists nest in a tool's form; deeper values are typed as JSON.
pub const MAX_DEPTH: usize = 4;
/// An elicitation's form: primitives only, anything else typed as JSON.
pub const FLAT: usize = 0;
/// The most empty items a list starts with, whatever its `minItems` says.
const MAX_START_ITEMS: usize = 20;

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
    /// An object with `properties`: its fields, in a group of their own.
    Group(Vec<Field>),
    /// An array of simple values or of groups, edited item by item.
    List(Box<ListOf>),
}

/// What a list holds and how many.
#[derive(Debug, Clone, PartialEq)]
pub struct ListOf {
    /// Never a list or JSON: a simple kind or a group.
    pub item: FieldKind,
    pub min: usize,
    pub max: Option<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    pub label: String,
    pub description: Option<String>,
    pub kind: FieldKind,
    pub required: bool,
    pub default: Option<Value>,
}

/// The schema's properties in order, groups and lists nested up to `depth` levels; an unusable
/// schema gives no fields.
pub fn fields(schema: &Value, depth: usize) -> Vec<Field> {
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
            kind: kind(spec, depth),
            required: required.contains(&name.as_str()),
            default: spec.get("default").cloned(),
        })
        .collect()
}

fn text(spec: &Value, key: &str) -> Option<String> {
    spec.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn kind(spec: &Value, depth: usize) -> FieldKind {
    if spec.get("$ref").is_some() {
        return FieldKind::Json;
    }
    match spec.get("type").and_then(Value::as_str) {
        Some("boolean") => FieldKind::Boolean,
        Some("integer") => FieldKind::Integer,
        Some("number") => FieldKind::Number,
        Some("array") => match spec.get("items").map(options) {
            Some(opts) if !opts.is_empty() => FieldKind::MultiChoice(opts),
            _ => list(spec, depth).map_or(FieldKind::Json, |l| FieldKind::List(Box::new(l))),
        },
        Some("object") => match spec.get("properties").and_then(Value::as_object) {
            Some(props) if depth > 0 && !props.is_empty() => {
                FieldKind::Group(fields(spec, depth - 1))
            }
            _ => FieldKind::Json,
        },
        // No type: a `$ref`, `anyOf` of shapes, … unless it lists the values it takes.
        None if spec.get("enum").is_none() && !has_consts(spec) => FieldKind::Json,
        _ => match options(spec) {
            opts if opts.is_empty() => FieldKind::Text,
            opts => FieldKind::Choice(opts),
        },
    }
}

/// An array of one simple kind or of groups; not a tuple (`prefixItems`, or `items` a list).
fn list(spec: &Value, depth: usize) -> Option<ListOf> {
    let items = spec.get("items").filter(|i| i.is_object() && spec.get("prefixItems").is_none());
    let item = kind(items?, depth.checked_sub(1)?);
    if matches!(item, FieldKind::Json | FieldKind::List(_) | FieldKind::MultiChoice(_)) {
        return None;
    }
    let count = |key| spec.get(key).and_then(Value::as_u64).map(|n| n as usize);
    Some(ListOf { item, min: count("minItems").unwrap_or(0), max: count("maxItems") })
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

/// The names of required fields without a value (an elicitation's flat form).
pub fn missing(fields: &[Field], values: &Map<String, Value>) -> Vec<String> {
    fields
        .iter()
        .filter(|f| f.required && values.get(&f.name).is_none_or(Value::is_null))
        .map(|f| f.label.clone())
        .collect()
}

/// What a form starts with: the schema's defaults, and the `minItems` empty items of a list.
pub fn initial(fields: &[Field]) -> Map<String, Value> {
    let start = |field: &Field| match (&field.default, &field.kind) {
        (Some(value), _) => Some(value.clone()),
        (None, FieldKind::Group(inner)) => {
            Some(Value::Object(initial(inner))).filter(|v| v != &Value::Object(Map::new()))
        }
        (None, FieldKind::List(list)) if list.min > 0 => {
            Some(Value::Array(vec![new_item(&list.item); list.min.min(MAX_START_ITEMS)]))
        }
        _ => None,
    };
    fields.iter().filter_map(|f| Some((f.name.clone(), start(f)?))).collect()
}

/// One step of the way to a value in the form's object.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Key(String),
    Item(usize),
}

/// The value at `path`, if there is one.
pub fn get<'a>(values: &'a Map<String, Value>, path: &[Step]) -> Option<&'a Value> {
    let (Step::Key(first), rest) = path.split_first()? else { return None };
    rest.iter().try_fold(values.get(first)?, |value, step| match step {
        Step::Key(key) => value.get(key),
        Step::Item(i) => value.get(i),
    })
}

/// Writes what was typed at `path` (`None`: left empty), making the groups on the way; an item
/// left empty keeps its place in the list.
pub fn set(values: &mut Map<String, Value>, path: &[Step], value: Option<Value>) {
    let Some((last, parents)) = path.split_last() else { return };
    let mut root = Value::Object(std::mem::take(values));
    let mut here = Some(&mut root);
    for step in parents {
        here = here.and_then(|v| child(v, step));
    }
    if let (Some(value @ Value::Null), Step::Key(_)) = (&mut here, last) {
        **value = Value::Object(Map::new());
    }
    match (here, last, value) {
        (Some(Value::Object(map)), Step::Key(key), Some(value)) => {
            drop(map.insert(key.clone(), value))
        }
        (Some(Value::Object(map)), Step::Key(key), None) => drop(map.remove(key)),
        (Some(Value::Array(list)), Step::Item(i), value) => {
            if let Some(slot) = list.get_mut(*i) {
                *slot = value.unwrap_or(Value::Null);
            }
        }
        _ => {}
    }
    if let Value::Object(map) = root {
        *values = map;
    }
}

/// The value under `step`, an empty group made in place of nothing for a key.
fn child<'a>(value: &'a mut Value, step: &Step) -> Option<&'a mut Value> {
    match step {
        Step::Key(key) => {
            if value.is_null() {
                *value = Value::Object(Map::new());
            }
            Some(value.as_object_mut()?.entry(key.clone()).or_insert(Value::Null))
        }
        Step::Item(i) => value.as_array_mut()?.get_mut(*i),
    }
}

/// A new, empty item at the end of the list at `path`.
pub fn add_item(values: &mut Map<String, Value>, path: &[Step], item: &FieldKind) {
    let mut list = match get(values, path) {
        Some(Value::Array(list)) => list.clone(),
        _ => Vec::new(),
    };
    list.push(new_item(item));
    set(values, path, Some(Value::Array(list)));
}

/// Removes the item `index` of the list at `path`.
pub fn remove_item(values: &mut Map<String, Value>, path: &[Step], index: usize) {
    if let Some(Value::Array(list)) = get(values, path) {
        let mut list = list.clone();
        if index < list.len() {
            list.remove(index);
            set(values, path, Some(Value::Array(list)));
        }
    }
}

/// An unticked box is an answer (`false`); anything else starts empty.
fn new_item(item: &FieldKind) -> Value {
    match item {
        FieldKind::Boolean => Value::Bool(false),
        _ => Value::Null,
    }
}

/// What keeps a form's values from being the arguments, by the path of the field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    Required(String),
    TooFew(String, usize),
    TooMany(String, usize),
}

/// The arguments the values make (empty optional fields, groups and items left out) and what
/// keeps them from being sent: required fields missing at any level (a group left empty and
/// optional is not looked into), lists with too few or too many items.
pub fn collect(
    fields: &[Field],
    values: &Map<String, Value>,
) -> (Map<String, Value>, Vec<Problem>) {
    let mut problems = Vec::new();
    let arguments = collect_group(fields, values, "", &mut problems);
    (arguments, problems)
}

fn collect_group(
    fields: &[Field],
    values: &Map<String, Value>,
    prefix: &str,
    problems: &mut Vec<Problem>,
) -> Map<String, Value> {
    let (mut out, empty) = (Map::new(), Value::Object(Map::new()));
    for field in fields {
        let path = format!("{prefix}{}", field.name);
        // A required group is looked into even when nothing was typed in it.
        let value = values.get(&field.name).filter(|v| !v.is_null()).or_else(|| {
            (field.required && matches!(field.kind, FieldKind::Group(_))).then_some(&empty)
        });
        match value.and_then(|v| collect_value(&field.kind, v, &path, field.required, problems)) {
            Some(value) => drop(out.insert(field.name.clone(), value)),
            None if field.required => problems.push(Problem::Required(path)),
            None => {}
        }
    }
    out
}

/// The value, or `None` when it counts as left empty.
fn collect_value(
    kind: &FieldKind,
    value: &Value,
    path: &str,
    required: bool,
    problems: &mut Vec<Problem>,
) -> Option<Value> {
    match (kind, value) {
        (FieldKind::Group(fields), Value::Object(values)) => {
            let mut inner = Vec::new();
            let group = collect_group(fields, values, &format!("{path}."), &mut inner);
            if group.is_empty() && !required {
                return None;
            }
            problems.append(&mut inner);
            Some(Value::Object(group))
        }
        (FieldKind::List(list), Value::Array(items)) => {
            let items: Vec<Value> = (items.iter().enumerate())
                .filter(|(_, item)| !item.is_null())
                .filter_map(|(i, item)| {
                    collect_value(&list.item, item, &format!("{path}[{}]", i + 1), false, problems)
                })
                .collect();
            // Empty: left out, or missing when it must have items.
            if items.is_empty() && (!required || list.min > 0) {
                return None;
            }
            if items.len() < list.min {
                problems.push(Problem::TooFew(path.to_owned(), list.min));
            }
            if let Some(max) = list.max.filter(|max| items.len() > *max) {
                problems.push(Problem::TooMany(path.to_owned(), max));
            }
            Some(Value::Array(items))
        }
        (FieldKind::MultiChoice(_), Value::Array(items)) if items.is_empty() && !required => None,
        _ => Some(value.clone()),
    }
}

/// Whether the form can show these arguments (raw JSON going back to the form): `Err` names
/// the path of the first value it cannot (a key it has no field for, a value of another type).
pub fn fits(fields: &[Field], values: &Map<String, Value>) -> Result<(), String> {
    fits_group(fields, values, "")
}

fn fits_group(fields: &[Field], values: &Map<String, Value>, prefix: &str) -> Result<(), String> {
    for (name, value) in values {
        let path = format!("{prefix}{name}");
        let field = fields.iter().find(|f| f.name == *name).ok_or_else(|| path.clone())?;
        fits_value(&field.kind, value, &path)?;
    }
    Ok(())
}

fn fits_value(kind: &FieldKind, value: &Value, path: &str) -> Result<(), String> {
    let among = |options: &[(String, String)], v: &Value| options.iter().any(|(o, _)| v == o);
    let fits = match (kind, value) {
        (FieldKind::Json, _) => true,
        (FieldKind::Text, Value::String(_)) | (FieldKind::Boolean, Value::Bool(_)) => true,
        (FieldKind::Number, Value::Number(_)) => true,
        (FieldKind::Integer, Value::Number(n)) => n.is_i64() || n.is_u64(),
        (FieldKind::Choice(options), v) => among(options, v),
        (FieldKind::MultiChoice(options), Value::Array(items)) => {
            items.iter().all(|v| among(options, v))
        }
        (FieldKind::Group(fields), Value::Object(values)) => {
            return fits_group(fields, values, &format!("{path}."))
        }
        (FieldKind::List(list), Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                fits_value(&list.item, item, &format!("{path}[{}]", i + 1))?;
            }
            true
        }
        _ => false,
    };
    if fits {
        Ok(())
    } else {
        Err(path.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The arguments, or what keeps them from being sent.
    fn checked(fields: &[Field], values: &Map<String, Value>) -> Result<Value, Vec<Problem>> {
        match collect(fields, values) {
            (arguments, problems) if problems.is_empty() => Ok(Value::Object(arguments)),
            (_, problems) => Err(problems),
        }
    }

    fn object(value: Value) -> Map<String, Value> {
        let Value::Object(map) = value else { panic!("not an object: {value}") };
        map
    }

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
        let fields = fields(&schema, FLAT);
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
        assert!(super::fields(&json!({"type": "object"}), FLAT).is_empty());
        // An elicitation's form stays flat: nested values are typed as JSON.
        let nested = super::fields(
            &json!({"properties": {
            "filter": {"type": "object", "properties": {"a": {"type": "string"}}},
            "ids": {"type": "array", "items": {"type": "integer"}},
            "any": {"anyOf": [{"type": "string"}, {"type": "number"}]}}}),
            FLAT,
        );
        assert!(nested.iter().all(|f| f.kind == FieldKind::Json), "{nested:?}");
    }

    #[test]
    fn fields_keep_the_order_the_server_wrote() {
        let schema: Value =
            serde_json::from_str(r#"{"properties": {"b": {}, "a": {}, "c": {}}}"#).unwrap();
        let names: Vec<_> = fields(&schema, MAX_DEPTH).into_iter().map(|f| f.name).collect();
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

    /// A shipping order: an address group, a list of strings, a list of groups.
    fn order() -> Value {
        json!({"type": "object", "required": ["address", "lines"], "properties": {
            "address": {"type": "object", "title": "Address", "required": ["city"], "properties": {
                "city": {"type": "string"},
                "zip": {"type": "integer"},
            }},
            "gift": {"type": "object", "description": "Optional wrapping", "required": ["paper"],
                "properties": {"paper": {"type": "string"}, "card": {"type": "boolean"}}},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3},
            "lines": {"type": "array", "items": {"type": "object", "required": ["sku"],
                "properties": {"sku": {"type": "string"}, "qty": {"type": "number"}}}},
            "meta": {"type": "object"},
        }})
    }

    #[test]
    fn objects_with_properties_become_groups_and_arrays_lists() {
        let form = fields(&order(), MAX_DEPTH);
        let FieldKind::Group(address) = &form[0].kind else { panic!("{:?}", form[0]) };
        assert_eq!((form[0].label.as_str(), form[0].required), ("Address", true));
        assert_eq!(
            address[0],
            Field {
                name: "city".into(),
                label: "city".into(),
                description: None,
                kind: FieldKind::Text,
                required: true,
                default: None,
            }
        );
        assert_eq!((&address[1].kind, address[1].required), (&FieldKind::Integer, false));
        assert_eq!(form[1].description.as_deref(), Some("Optional wrapping"));
        assert!(matches!(&form[1].kind, FieldKind::Group(g) if g[0].required && !g[1].required));
        let FieldKind::List(tags) = &form[2].kind else { panic!("{:?}", form[2]) };
        assert_eq!(**tags, ListOf { item: FieldKind::Text, min: 1, max: Some(3) });
        let FieldKind::List(lines) = &form[3].kind else { panic!("{:?}", form[3]) };
        assert!(matches!(&lines.item, FieldKind::Group(g) if g.len() == 2 && g[0].required));
        assert_eq!((lines.min, lines.max), (0, None));
        // A free-form object stays JSON text.
        assert_eq!(form[4].kind, FieldKind::Json);
    }

    #[test]
    fn tuples_mixed_items_and_refs_stay_json() {
        let form = fields(
            &json!({"$defs": {"p": {"type": "string"}}, "properties": {
                "tuple": {"type": "array", "items": [{"type": "string"}, {"type": "number"}]},
                "prefix": {"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "string"}},
                "mixed": {"type": "array", "items": {"oneOf": [{"type": "string"}, {"type": "object"}]}},
                "bare": {"type": "array"},
                "matrix": {"type": "array", "items": {"type": "array", "items": {"type": "number"}}},
                "free": {"type": "array", "items": {"type": "object"}},
                "ref": {"$ref": "#/$defs/p"},
                "typed_ref": {"type": "object", "$ref": "#/$defs/p", "properties": {"a": {"type": "string"}}},
                "items_ref": {"type": "array", "items": {"$ref": "#/$defs/p"}},
                "empty": {"type": "object", "properties": {}},
            }}),
            MAX_DEPTH,
        );
        for field in &form {
            assert_eq!(field.kind, FieldKind::Json, "{}", field.name);
        }
        assert_eq!(form.len(), 10);
    }

    #[test]
    fn nesting_stops_at_the_depth_limit() {
        // {"a": {"a": {"a": …}}}, deeper than the limit; and a list of groups counts as a level.
        let mut schema = json!({"type": "string"});
        for _ in 0..MAX_DEPTH + 3 {
            schema = json!({"type": "object", "properties": {"a": schema}});
        }
        let mut depth = 0;
        let mut level = fields(&schema, MAX_DEPTH);
        while let FieldKind::Group(inner) = &level[0].kind {
            depth += 1;
            level = inner.clone();
        }
        assert_eq!(depth, MAX_DEPTH);
        assert_eq!(level[0].kind, FieldKind::Json);

        let group = json!({"type": "object", "properties": {"x": {"type": "string"}}});
        let list = json!({"type": "array", "items": group});
        let at = |depth| fields(&json!({"properties": {"l": list}}), depth)[0].kind.clone();
        assert!(matches!(at(2), FieldKind::List(l) if matches!(l.item, FieldKind::Group(_))));
        // The list takes a level, its items the next: with one left, the list is JSON text.
        assert_eq!(at(1), FieldKind::Json);
    }

    #[test]
    fn values_become_arguments_of_the_right_shape() {
        let form = fields(&order(), MAX_DEPTH);
        let mut values = initial(&form);
        assert_eq!(
            Value::Object(values.clone()),
            json!({"tags": [null]}),
            "one empty tag to start"
        );
        let at = |steps: &[&str]| -> Vec<Step> {
            steps
                .iter()
                .map(|s| s.parse().map_or_else(|_| Step::Key(s.to_string()), Step::Item))
                .collect()
        };
        set(&mut values, &at(&["address", "city"]), parse_input(&FieldKind::Text, "Kyoto"));
        set(&mut values, &at(&["address", "zip"]), parse_input(&FieldKind::Integer, "6008216"));
        set(&mut values, &at(&["tags", "0"]), Some(json!("fragile")));
        add_item(&mut values, &at(&["tags"]), &FieldKind::Text);
        add_item(&mut values, &at(&["tags"]), &FieldKind::Text);
        set(&mut values, &at(&["tags", "2"]), Some(json!("gift")));
        add_item(&mut values, &at(&["lines"]), &FieldKind::Group(Vec::new()));
        set(&mut values, &at(&["lines", "0", "sku"]), Some(json!("A-1")));
        set(&mut values, &at(&["lines", "0", "qty"]), parse_input(&FieldKind::Number, "2.5"));
        // A box ticked, then the paper typed and cleared again: the gift group is not empty.
        set(&mut values, &at(&["gift", "card"]), Some(json!(false)));
        set(&mut values, &at(&["gift", "paper"]), Some(json!("red")));
        set(&mut values, &at(&["gift", "paper"]), None);
        assert_eq!(get(&values, &at(&["lines", "0", "sku"])), Some(&json!("A-1")));
        assert_eq!(
            checked(&form, &values),
            Err(vec![Problem::Required("gift.paper".into())]),
            "{values:?}"
        );
        set(&mut values, &at(&["gift", "card"]), None);
        // The empty tag in the middle is left out; numbers are numbers.
        assert_eq!(
            checked(&form, &values),
            Ok(json!({
                "address": {"city": "Kyoto", "zip": 6008216},
                "tags": ["fragile", "gift"],
                "lines": [{"sku": "A-1", "qty": 2.5}],
            }))
        );
        remove_item(&mut values, &at(&["tags"]), 0);
        assert_eq!(get(&values, &at(&["tags"])), Some(&json!([null, "gift"])));
    }

    #[test]
    fn missing_values_are_named_by_their_path() {
        let form = fields(&order(), MAX_DEPTH);
        assert_eq!(
            checked(&form, &Map::new()),
            Err(vec![Problem::Required("address.city".into()), Problem::Required("lines".into())])
        );
        let values = object(json!({
            "address": {"zip": 1},
            "lines": [{"qty": 1}, null, {"sku": "B"}, {}],
            "tags": ["a", "b", "c", "d"],
        }));
        assert_eq!(
            checked(&form, &values),
            Err(vec![
                Problem::Required("address.city".into()),
                Problem::TooMany("tags".into(), 3),
                Problem::Required("lines[1].sku".into()),
            ])
        );
        // What can be sent is still made (the raw JSON view shows it): empty items left out.
        assert_eq!(
            Value::Object(collect(&form, &values).0),
            json!({"address": {"zip": 1}, "tags": ["a", "b", "c", "d"],
                "lines": [{"qty": 1}, {"sku": "B"}]})
        );
        // A required group with nothing in it is still looked into.
        let values = object(json!({"address": {}, "lines": [{"sku": "x"}]}));
        assert_eq!(checked(&form, &values), Err(vec![Problem::Required("address.city".into())]));
        // A list below its minimum, once anything is in it or it is required.
        let form = fields(
            &json!({"required": ["two"], "properties": {
                "two": {"type": "array", "items": {"type": "integer"}, "minItems": 2},
                "opt": {"type": "array", "items": {"type": "boolean"}, "minItems": 2},
            }}),
            MAX_DEPTH,
        );
        let values = initial(&form);
        assert_eq!(
            Value::Object(values.clone()),
            json!({"two": [null, null], "opt": [false, false]})
        );
        assert_eq!(
            checked(&form, &object(json!({"two": [null, 7], "opt": [true]}))),
            Err(vec![Problem::TooFew("two".into(), 2), Problem::TooFew("opt".into(), 2)])
        );
        assert_eq!(
            checked(&form, &object(json!({"two": [null, null], "opt": [false]}))),
            Err(vec![Problem::Required("two".into()), Problem::TooFew("opt".into(), 2)])
        );
        assert_eq!(
            checked(&form, &object(json!({"two": [1, 2], "opt": []}))),
            Ok(json!({"two": [1, 2]}))
        );
    }

    #[test]
    fn raw_arguments_fill_the_form_only_when_they_fit() {
        let form = fields(&order(), MAX_DEPTH);
        let fitting = object(json!({
            "address": {"city": "Nara", "zip": 630},
            "tags": ["x"],
            "lines": [{"sku": "A", "qty": 1.5}],
            "meta": {"anything": [1, {"goes": true}]},
        }));
        assert_eq!(fits(&form, &fitting), Ok(()));
        assert_eq!(checked(&form, &fitting), Ok(Value::Object(fitting)));
        for (value, path) in [
            (json!({"address": {"city": "Nara", "zip": 6.5}}), "address.zip"),
            (json!({"address": {"city": 1}}), "address.city"),
            (json!({"address": "Nara"}), "address"),
            (json!({"lines": [{"sku": "A"}, {"sku": "B", "colour": "red"}]}), "lines[2].colour"),
            (json!({"tags": [1]}), "tags[1]"),
            (json!({"tags": "a"}), "tags"),
            (json!({"unknown": 1}), "unknown"),
        ] {
            assert_eq!(fits(&form, &object(value)), Err(path.into()));
        }
    }

    #[test]
    fn a_huge_min_items_starts_a_bounded_list() {
        let form = fields(
            &json!({"properties": {"l": {"type": "array", "items": {"type": "string"}, "minItems": 1_000_000_000u64}}}),
            MAX_DEPTH,
        );
        assert_eq!(initial(&form)["l"].as_array().map(Vec::len), Some(MAX_START_ITEMS));
    }
}
