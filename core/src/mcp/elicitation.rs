//! Reading `elicitation/create` requests and filling in what the schema says by default.

use super::types::{ElicitAction, ElicitMode, ElicitParams, ElicitRequest, ElicitResult};
use serde_json::{Map, Value};

/// Reads the params of an `elicitation/create` request (form mode when `mode` is absent).
pub fn parse_request(params: &Value) -> Result<ElicitRequest, String> {
    let params: ElicitParams = crate::decode::from_value("elicitation/create", params.clone())
        .map_err(|e| e.to_string())?;
    match params.mode.unwrap_or(ElicitMode::Form) {
        ElicitMode::Url => Ok(ElicitRequest::Url {
            message: params.message,
            url: params.url.ok_or("URL elicitation without \"url\"")?,
            elicitation_id: params.elicitation_id,
        }),
        ElicitMode::Form => {
            let schema =
                params.requested_schema.ok_or("form elicitation without \"requestedSchema\"")?;
            Ok(ElicitRequest::Form {
                message: params.message,
                defaults: schema_defaults(&schema),
                requested_schema: schema,
            })
        }
    }
}

/// The `default` of every top-level property of a (flat, as MCP requires) form schema.
pub fn schema_defaults(schema: &Value) -> Map<String, Value> {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Map::new();
    };
    properties
        .iter()
        .filter_map(|(name, property)| Some((name.clone(), property.get("default")?.clone())))
        .collect()
}

/// An accepted form gets the defaults for the fields the person left out.
pub fn complete_with_defaults(request: &ElicitRequest, mut result: ElicitResult) -> ElicitResult {
    if let (ElicitRequest::Form { defaults, .. }, ElicitAction::Accept) = (request, result.action) {
        let content = result.content.get_or_insert_with(Map::new);
        for (name, value) in defaults {
            content.entry(name.clone()).or_insert_with(|| value.clone());
        }
    }
    if let (ElicitRequest::Url { .. }, ElicitAction::Accept) = (request, result.action) {
        result.content = None; // URL mode carries no content
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_fill_what_the_person_left_out() {
        let request = parse_request(&json!({
            "message": "Who?",
            "requestedSchema": {"type": "object", "properties": {
                "name": {"type": "string"},
                "color": {"type": "string", "default": "blue"},
                "count": {"type": "integer", "default": 3}
            }}
        }))
        .unwrap();
        let ElicitRequest::Form { defaults, .. } = &request else { panic!("form") };
        assert_eq!(defaults.len(), 2);
        let mut given = Map::new();
        given.insert("name".into(), json!("Ada"));
        given.insert("count".into(), json!(5));
        let done = complete_with_defaults(&request, ElicitResult::accept(given));
        assert_eq!(
            Value::Object(done.content.unwrap()),
            json!({"name": "Ada", "count": 5, "color": "blue"})
        );
        let declined = complete_with_defaults(&request, ElicitResult::decline());
        assert_eq!(declined.content, None);
    }

    #[test]
    fn url_mode_needs_a_url() {
        let ok = parse_request(
            &json!({"mode":"url","message":"m","url":"https://x","elicitationId":"e"}),
        );
        assert!(matches!(ok, Ok(ElicitRequest::Url { .. })));
        assert!(parse_request(&json!({"mode":"url","message":"m"})).is_err());
        assert!(parse_request(&json!({"mode":"url","message":"m","url":"https://x"})).is_ok());
        assert!(parse_request(&json!({"mode":"telepathy"})).is_err());
    }
}
