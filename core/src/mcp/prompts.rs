//! Prompts (`prompts/list`, `prompts/get`) and argument completion (`completion/complete`):
//! templates a person picks, and the values a server suggests while they fill them in.
//!
//! Specification: <https://modelcontextprotocol.io/specification/2025-11-25/server/prompts>,
//! <https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/completion> (the
//! same messages in 2026-07-28, which adds `resource_link` blocks to prompt messages and lets a
//! completion reference name a URI template or a URI).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::client::{CallHandler, Client};
use super::transport::{HttpTransport, Timer};
use super::types::{ContentBlock, InvalidTool};
use super::Error;
use crate::decode::Lenient;
use crate::text::Text;

/// One entry of `prompts/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Prompt {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<PromptArgument>,
    /// `icons`, `_meta`, and whatever later versions add.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Prompt {
    /// What a person reads: the title, else the name.
    pub fn label(&self) -> &str {
        self.title.as_deref().filter(|t| !t.trim().is_empty()).unwrap_or(&self.name)
    }
}

/// An argument of a prompt. Values are strings (the specification has no other type).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptArgument {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub required: bool,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl PromptArgument {
    pub fn label(&self) -> &str {
        self.title.as_deref().filter(|t| !t.trim().is_empty()).unwrap_or(&self.name)
    }
}

/// A `prompts/list` page; one malformed prompt costs only itself.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ListPromptsResult {
    #[serde(default)]
    prompts: Vec<Lenient<Prompt>>,
    #[serde(default)]
    next_cursor: Option<String>,
}

/// A server's prompts and what could not be read of its list.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PromptList {
    pub prompts: Vec<Prompt>,
    pub invalid: Vec<InvalidTool>,
}

/// A `prompts/get` result.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetPromptResult {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default)]
    pub messages: Vec<PromptMessage>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One message of a prompt: `user` or `assistant`, with one content block (text, image, audio,
/// an embedded resource, a resource link, or a kind newer than this client).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PromptMessage {
    pub role: Role,
    pub content: ContentBlock,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

/// What a completion is for: a prompt's argument, or a variable of a resource template.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum CompletionRef {
    #[serde(rename = "ref/prompt")]
    Prompt { name: String },
    /// The template (or, on 2026-07-28, a URI).
    #[serde(rename = "ref/resource")]
    Resource { uri: String },
}

/// The values a server suggests, best first (at most 100 per the specification).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    #[serde(default)]
    pub values: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

/// Suggestions kept per answer, whatever a server sends.
pub const MAX_COMPLETIONS: usize = 100;

#[derive(Deserialize)]
struct CompleteResult {
    completion: Completion,
}

impl<T: HttpTransport + Timer> Client<T>
where
    T::Body: 'static,
{
    /// Every prompt, following `nextCursor` pages (bounded like every listing).
    pub async fn list_prompts(&self) -> Result<PromptList, Error> {
        let mut list = PromptList::default();
        let (_, cut) = self
            .paginate("prompts/list", |page: ListPromptsResult| {
                for entry in page.prompts {
                    match entry {
                        Lenient::Valid(prompt) => list.prompts.push(prompt),
                        Lenient::Invalid { raw, error } => list.invalid.push(InvalidTool {
                            name: raw.get("name").and_then(Value::as_str).map(str::to_owned),
                            reason: Text::new("errPromptUnreadable").arg(error.located()),
                        }),
                    }
                }
                page.next_cursor
            })
            .await?;
        list.invalid.extend(cut.map(|cut| cut.note("prompts/list")));
        Ok(list)
    }

    /// The prompt `name` with these argument values. A 2026-07-28 server may ask the person
    /// something first (through `handler`).
    pub async fn get_prompt<H: CallHandler>(
        &self,
        name: &str,
        arguments: &Map<String, Value>,
        handler: &H,
    ) -> Result<GetPromptResult, Error> {
        let mut params = Map::new();
        params.insert("name".into(), name.into());
        if !arguments.is_empty() {
            params.insert("arguments".into(), Value::Object(arguments.clone()));
        }
        let result = self.request("prompts/get", params, handler, None).await?;
        self.decode("prompts/get", result)
    }

    /// What the server suggests for `argument` typed so far as `value`, the arguments already
    /// filled going along as `context.arguments`.
    pub async fn complete(
        &self,
        reference: &CompletionRef,
        argument: &str,
        value: &str,
        filled: &Map<String, Value>,
    ) -> Result<Completion, Error> {
        let mut params = Map::new();
        params.insert("ref".into(), serde_json::json!(reference));
        params.insert("argument".into(), serde_json::json!({"name": argument, "value": value}));
        if !filled.is_empty() {
            params.insert("context".into(), serde_json::json!({"arguments": filled}));
        }
        let result = self.request("completion/complete", params, &(), None).await?;
        let mut completion =
            self.decode::<CompleteResult>("completion/complete", result)?.completion;
        completion.values.truncate(MAX_COMPLETIONS);
        Ok(completion)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn prompts_read_as_the_specification_shows_them() {
        let page: ListPromptsResult = serde_json::from_value(json!({
            "prompts": [
                {"name": "code_review", "title": "Request Code Review",
                 "description": "Asks the LLM to analyze code quality",
                 "arguments": [{"name": "code", "description": "The code to review", "required": true}],
                 "icons": [{"src": "https://example.com/review-icon.svg"}]},
                {"name": "bare"},
                {"title": "no name"},
            ],
            "nextCursor": "next-page-cursor",
        }))
        .unwrap();
        assert_eq!(page.next_cursor.as_deref(), Some("next-page-cursor"));
        let valid: Vec<Prompt> = page.prompts.into_iter().filter_map(Lenient::valid).collect();
        assert_eq!(valid.len(), 2);
        assert_eq!(valid[0].label(), "Request Code Review");
        assert!(valid[0].arguments[0].required);
        assert!(valid[0].extra.contains_key("icons"));
        assert_eq!(valid[1].label(), "bare");
        assert!(valid[1].arguments.is_empty());
    }

    #[test]
    fn prompt_messages_keep_their_blocks_and_refuse_an_unknown_role() {
        let result: GetPromptResult = serde_json::from_value(json!({
            "description": "Code review prompt",
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "Please review"}},
                {"role": "assistant", "content": {"type": "image", "data": "iVBO", "mimeType": "image/png"}},
                {"role": "user", "content": {"type": "resource", "resource": {"uri": "a://b", "text": "t"}}},
            ],
            "resultType": "complete",
        }))
        .unwrap();
        let kinds: Vec<&str> = result.messages.iter().map(|m| m.content.kind()).collect();
        assert_eq!(kinds, ["text", "image", "resource"]);
        assert_eq!(result.messages[1].role, Role::Assistant);
        let bad =
            json!({"messages": [{"role": "system", "content": {"type": "text", "text": "x"}}]});
        assert!(serde_json::from_value::<GetPromptResult>(bad).is_err());
    }

    #[test]
    fn completion_references_are_tagged_as_the_specification_names_them() {
        let prompt = CompletionRef::Prompt { name: "code_review".into() };
        assert_eq!(json!(prompt), json!({"type": "ref/prompt", "name": "code_review"}));
        let template = CompletionRef::Resource { uri: "file:///{path}".into() };
        assert_eq!(json!(template), json!({"type": "ref/resource", "uri": "file:///{path}"}));
        let answer: CompleteResult = serde_json::from_value(json!({
            "completion": {"values": ["python", "pytorch"], "total": 10, "hasMore": true}
        }))
        .unwrap();
        assert_eq!(answer.completion.values, ["python", "pytorch"]);
        assert_eq!(answer.completion.has_more, Some(true));
    }
}
