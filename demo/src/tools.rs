//! The demo's tools and its app, as MCP documents. Each result is written as the JSON the
//! specification shows and read into rmcp's type, so what goes on the wire is plain to see.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult,
    Implementation, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{json, Map, Value};

use crate::swatches::SWATCHES;

/// The app's resource.
pub const APP_URI: &str = "ui://gemipanel-demo/colour-picker.html";
const APP_MIME: &str = "text/html;profile=mcp-app";

/// The template of a colour's swatch, a PNG (its variable completed from [`SWATCHES`]).
pub const SWATCH_TEMPLATE: &str = "gemipanel-demo://swatch/{colour}";
const SWATCH_PREFIX: &str = "gemipanel-demo://swatch/";

fn templates() -> Value {
    json!({"resourceTemplates": [{
        "uriTemplate": SWATCH_TEMPLATE,
        "name": "swatch",
        "title": "Colour swatch",
        "description": "A small PNG of one colour; the colour's name is completed.",
        "mimeType": "image/png"
    }]})
}

/// The colours starting with what was typed (`completion/complete` of the swatch's variable).
fn complete(request: &Value) -> Value {
    let is_swatch =
        request["ref"]["uri"] == SWATCH_TEMPLATE && request["argument"]["name"] == "colour";
    let typed = request["argument"]["value"].as_str().unwrap_or_default().to_lowercase();
    let values: Vec<&str> = SWATCHES
        .iter()
        .map(|(name, _)| *name)
        .filter(|name| is_swatch && name.starts_with(&typed))
        .collect();
    json!({"completion": {"values": values, "total": values.len(), "hasMore": false}})
}

fn swatch(uri: &str) -> Option<Value> {
    let colour = uri.strip_prefix(SWATCH_PREFIX)?;
    let (_, png) = SWATCHES.iter().find(|(name, _)| *name == colour)?;
    Some(json!({"contents": [{"uri": uri, "mimeType": "image/png", "blob": png}]}))
}

/// One session's handler; the app's HTML is shared by all.
#[derive(Clone)]
pub struct Demo {
    app_html: Arc<str>,
}

impl Demo {
    pub fn new(app_html: Arc<str>) -> Self {
        Demo { app_html }
    }
}

fn tools() -> Value {
    json!({"tools": [
        {
            "name": "pick_colour",
            "title": "Pick a colour",
            "description": "Shows a colour picker app with a colour to start from. Use it when the person wants to choose or see a colour.",
            "inputSchema": {"type": "object", "properties": {
                "colour": {"type": "string", "description": "A CSS colour to start from, like #3366ff or teal", "default": "#3366ff"}
            }},
            "annotations": {"readOnlyHint": true},
            "_meta": {"ui": {"resourceUri": APP_URI, "visibility": ["model", "app"]}}
        },
        {
            "name": "set_colour",
            "title": "Set the colour",
            "description": "Records the colour the person picked in the app (called by the app).",
            "inputSchema": {"type": "object", "properties": {
                "colour": {"type": "string", "description": "A CSS colour"}
            }, "required": ["colour"]},
            "_meta": {"ui": {"visibility": ["app"]}}
        },
        {
            "name": "roll_dice",
            "title": "Roll dice",
            "description": "Rolls dice and returns each die and the total.",
            "inputSchema": {"type": "object", "properties": {
                "count": {"type": "integer", "minimum": 1, "maximum": 20, "default": 2, "description": "How many dice"},
                "sides": {"type": "integer", "minimum": 2, "maximum": 100, "default": 6, "description": "Sides of each die"}
            }},
            "annotations": {"readOnlyHint": true}
        }
    ]})
}

/// The colour the person asked for, or the default.
fn colour_of(arguments: &Map<String, Value>) -> String {
    let given = arguments.get("colour").and_then(Value::as_str).map(str::trim);
    given.filter(|c| !c.is_empty() && c.len() <= 64).unwrap_or("#3366ff").to_owned()
}

fn call(name: &str, arguments: &Map<String, Value>, now_nanos: u128) -> Result<Value, ErrorData> {
    match name {
        "pick_colour" => {
            let colour = colour_of(arguments);
            Ok(json!({
                "content": [{"type": "text", "text": format!("Showing a colour picker at {colour}.")}],
                "structuredContent": {"colour": colour}
            }))
        }
        "set_colour" => {
            let colour = colour_of(arguments);
            Ok(json!({
                "content": [{"type": "text", "text": format!("The person picked {colour}.")}],
                "structuredContent": {"colour": colour, "saved": true}
            }))
        }
        "roll_dice" => {
            let count = arguments.get("count").and_then(Value::as_u64).unwrap_or(2).clamp(1, 20);
            let sides = arguments.get("sides").and_then(Value::as_u64).unwrap_or(6).clamp(2, 100);
            // A die needs no cryptography: the clock's nanoseconds, mixed per die.
            let mut state = now_nanos as u64 | 1;
            let dice: Vec<u64> = (0..count)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    state % sides + 1
                })
                .collect();
            let total: u64 = dice.iter().sum();
            Ok(json!({
                "content": [{"type": "text", "text": format!("Rolled {dice:?}: {total}.")}],
                "structuredContent": {"dice": dice, "total": total}
            }))
        }
        other => Err(ErrorData::invalid_params(format!("no tool named {other}"), None)),
    }
}

/// rmcp's type for a JSON document written here; a mismatch is this file's bug, reported.
fn typed<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, ErrorData> {
    serde_json::from_value(value)
        .map_err(|e| ErrorData::internal_error(format!("demo document: {e}"), None))
}

impl ServerHandler for Demo {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_completions()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("gemipanel-demo", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "A demo: pick_colour shows a colour picker app; roll_dice rolls dice; \
                 gemipanel-demo://swatch/{colour} is a PNG of a named colour.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        typed(tools())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.unwrap_or_default();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(1);
        let result: CallToolResult = typed(call(&request.name, &arguments, now)?)?;
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        typed(json!({"resources": [
            {"uri": APP_URI, "name": "colour-picker", "title": "Colour picker", "mimeType": APP_MIME}
        ]}))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        typed(templates())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let request = serde_json::to_value(&request)
            .map_err(|e| ErrorData::internal_error(format!("demo: {e}"), None))?;
        typed(complete(&request))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if let Some(found) = swatch(&request.uri) {
            let result: ReadResourceResult = typed(found)?;
            return Ok(result.into());
        }
        if request.uri != APP_URI {
            return Err(ErrorData::resource_not_found(
                format!("no resource {}", request.uri),
                None,
            ));
        }
        let result: ReadResourceResult = typed(json!({"contents": [{
            "uri": APP_URI,
            "mimeType": APP_MIME,
            "text": &*self.app_html,
            "_meta": {"ui": {"prefersBorder": true, "csp": {}}}
        }]}))?;
        Ok(result.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_document_reads_as_rmcp_types() {
        typed::<ListToolsResult>(tools()).expect("tools");
        let args = json!({"colour": "teal", "count": 3, "sides": 6});
        let args = args.as_object().unwrap();
        for name in ["pick_colour", "set_colour", "roll_dice"] {
            typed::<CallToolResult>(call(name, args, 42).unwrap()).expect(name);
        }
        assert!(call("nope", args, 1).is_err());
    }

    #[test]
    fn the_swatch_template_is_completed_and_read_as_a_png() {
        typed::<ListResourceTemplatesResult>(templates()).expect("templates");
        let asked = json!({"ref": {"type": "ref/resource", "uri": SWATCH_TEMPLATE},
                           "argument": {"name": "colour", "value": "G"}});
        let answer = complete(&asked);
        typed::<CompleteResult>(answer.clone()).expect("completion");
        assert_eq!(answer["completion"]["values"], json!(["gold", "green", "grey"]));
        let other = json!({"ref": {"type": "ref/resource", "uri": "x://{y}"},
                           "argument": {"name": "y", "value": ""}});
        assert_eq!(complete(&other)["completion"]["values"], json!([]));
        let read = swatch("gemipanel-demo://swatch/teal").expect("teal");
        typed::<ReadResourceResult>(read.clone()).expect("read");
        let png = read["contents"][0]["blob"].as_str().unwrap();
        assert!(png.starts_with("iVBORw0KGgo"), "a PNG's signature in base64");
        assert!(swatch("gemipanel-demo://swatch/chartreuse").is_none());
    }

    #[test]
    fn dice_stay_within_their_sides() {
        let args = json!({"count": 20, "sides": 3});
        let result = call("roll_dice", args.as_object().unwrap(), 123_456_789).unwrap();
        let dice = result["structuredContent"]["dice"].as_array().unwrap();
        assert_eq!(dice.len(), 20);
        assert!(dice.iter().all(|d| (1..=3).contains(&d.as_u64().unwrap())));
    }
}
