//! The JSON the Gemini API speaks (`v1beta`, camelCase), for `streamGenerateContent?alt=sse`.
//!
//! Parts that come from the model are kept verbatim: every field this crate does not model lands
//! in an `extra` map and is written back unchanged, and `thoughtSignature` is an opaque string that
//! is never decoded. Gemini rejects a follow-up request whose signatures were altered or dropped.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Role of a [`Content`]: the API knows `user` and `model`; function responses travel as `user`.
pub const ROLE_USER: &str = "user";
/// See [`ROLE_USER`].
pub const ROLE_MODEL: &str = "model";

/// The body of `generateContent` / `streamGenerateContent`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GenerateContentRequest {
    pub contents: Vec<Content>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Tool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_config: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_instruction: Option<Content>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation_config: Option<GenerationConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub safety_settings: Option<Value>,
}

/// One turn of the conversation.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Content {
    /// Absent on `systemInstruction` and sometimes on blocked candidates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    #[serde(default)]
    pub parts: Vec<Part>,
}

impl Content {
    /// A user turn holding one text part.
    pub fn user_text(text: impl Into<String>) -> Self {
        Self { role: Some(ROLE_USER.into()), parts: vec![Part::text(text)] }
    }

    /// Content for `systemInstruction`. The API ignores its role; it is `user` because that is
    /// what the official SDKs send (checked against `@google/genai` by the Node test).
    pub fn system(text: impl Into<String>) -> Self {
        Self::user_text(text)
    }

    /// True when the role is `model`.
    pub fn is_model(&self) -> bool {
        self.role.as_deref() == Some(ROLE_MODEL)
    }

    /// The function calls of this turn, in order.
    pub fn function_calls(&self) -> impl Iterator<Item = &FunctionCall> {
        self.parts.iter().filter_map(|p| p.function_call.as_ref())
    }

    /// Concatenated visible (non-thought) text.
    pub fn text(&self) -> String {
        self.parts.iter().filter(|p| !p.is_thought()).filter_map(|p| p.text.as_deref()).collect()
    }
}

/// One part of a [`Content`]. Exactly one of the data fields is normally set; unknown fields
/// (`executableCode`, `videoMetadata`, future ones) are kept in `extra`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Part {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// True on thought summaries (with `thinkingConfig.includeThoughts`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought: Option<bool>,
    /// Opaque; must be sent back exactly as received.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought_signature: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inline_data: Option<Blob>,
    /// A file uploaded with the Files API, by its `uri`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_data: Option<FileData>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function_call: Option<FunctionCall>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function_response: Option<FunctionResponse>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Part {
    pub fn text(text: impl Into<String>) -> Self {
        Self { text: Some(text.into()), ..Self::default() }
    }

    pub fn inline_data(mime_type: impl Into<String>, data: impl Into<String>) -> Self {
        Self { inline_data: Some(Blob::new(mime_type, data)), ..Self::default() }
    }

    pub fn file_data(mime_type: impl Into<String>, file_uri: impl Into<String>) -> Self {
        let data = FileData { mime_type: Some(mime_type.into()), file_uri: file_uri.into() };
        Self { file_data: Some(data), ..Self::default() }
    }

    pub fn function_response(response: FunctionResponse) -> Self {
        Self { function_response: Some(response), ..Self::default() }
    }

    pub fn is_thought(&self) -> bool {
        self.thought == Some(true)
    }
}

/// Base64 bytes with their media type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Blob {
    pub mime_type: String,
    pub data: String,
    /// Names media inside a function response, for its `{"$ref": …}` in `response`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
}

impl Blob {
    pub fn new(mime_type: impl Into<String>, data: impl Into<String>) -> Self {
        Self { mime_type: mime_type.into(), data: data.into(), display_name: None }
    }
}

/// A file of the Files API in a request: `{"fileData": {"mimeType", "fileUri"}}`
/// (https://ai.google.dev/gemini-api/docs/files).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileData {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    pub file_uri: String,
}

/// A call the model asks for. `id` is set by some backends (and needed back in the response);
/// the Gemini Developer API often omits it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FunctionCall {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Value>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The result of a call. `response` is an object: `{"output": …}` or `{"error": …}` by the
/// API's convention. On Gemini 3 and later `parts` may carry media the response refers to
/// with `{"$ref": "<displayName>"}` (https://ai.google.dev/gemini-api/docs/function-calling#multimodal).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FunctionResponse {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub name: String,
    pub response: Value,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<FunctionResponsePart>,
}

/// Media inside a [`FunctionResponse`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FunctionResponsePart {
    pub inline_data: Blob,
}

/// An entry of `tools`: function declarations or a built-in tool.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub function_declarations: Vec<FunctionDeclaration>,
    /// Grounding with Google Search: serialised as `{"googleSearch": {}}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub google_search: Option<Map<String, Value>>,
}

impl Tool {
    pub fn functions(declarations: Vec<FunctionDeclaration>) -> Self {
        Self { function_declarations: declarations, google_search: None }
    }

    pub fn google_search() -> Self {
        Self { function_declarations: Vec::new(), google_search: Some(Map::new()) }
    }
}

/// A function the model may call. Either `parametersJsonSchema` (JSON Schema, preferred) or
/// `parameters` (the OpenAPI subset the API accepted first) is set, never both.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FunctionDeclaration {
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters_json_schema: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<Value>,
}

impl FunctionDeclaration {
    /// The same declaration with its JSON Schema moved to `parameters`, sanitised to the OpenAPI
    /// subset. Used when the API rejects `parametersJsonSchema`.
    pub fn to_openapi_parameters(&self) -> Self {
        let parameters = self
            .parameters_json_schema
            .as_ref()
            .or(self.parameters.as_ref())
            .map(crate::gemini::schema::to_openapi_subset);
        Self {
            name: self.name.clone(),
            description: self.description.clone(),
            parameters_json_schema: None,
            parameters,
        }
    }
}

/// `generationConfig`; only the fields GemiPanel sets are typed, the rest go through `extra`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GenerationConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_config: Option<ThinkingConfig>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThinkingConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_thoughts: Option<bool>,
    /// Gemini 2.5: token budget (-1 = dynamic, 0 = off where allowed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_budget: Option<i32>,
    /// Gemini 3: `minimal`, `low`, `medium`, `high`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_level: Option<String>,
}

/// One SSE chunk (or the whole reply of the non-streaming call).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GenerateContentResponse {
    #[serde(default)]
    pub candidates: Vec<Candidate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_feedback: Option<PromptFeedback>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage_metadata: Option<UsageMetadata>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Candidate {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Content>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<u32>,
    /// What the safety filters thought of the reply; `blocked` on the category that stopped it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub safety_ratings: Vec<SafetyRating>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Sent only when the prompt was blocked and no candidate came back
/// (https://ai.google.dev/api/generate-content#PromptFeedback).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptFeedback {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub safety_ratings: Vec<SafetyRating>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One harm category as the safety filters rated it
/// (https://ai.google.dev/api/generate-content#safetyrating): `HARM_CATEGORY_HARASSMENT`, …,
/// with a probability `NEGLIGIBLE`…`HIGH`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SafetyRating {
    #[serde(default)]
    pub category: String,
    #[serde(default)]
    pub probability: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked: Option<bool>,
}

impl SafetyRating {
    /// The categories a block is about: those marked `blocked`, else those rated `MEDIUM` or
    /// `HIGH` (a prompt's block does not always mark one).
    pub fn flagged(ratings: &[SafetyRating]) -> Vec<String> {
        let marked: Vec<String> = ratings
            .iter()
            .filter(|r| r.blocked == Some(true))
            .map(|r| r.category.clone())
            .collect();
        if !marked.is_empty() {
            return marked;
        }
        ratings
            .iter()
            .filter(|r| matches!(r.probability.as_str(), "MEDIUM" | "HIGH"))
            .map(|r| r.category.clone())
            .collect()
    }
}

/// Token counts of one request. While streaming, every chunk repeats the running totals: the
/// last chunk's are the request's (https://ai.google.dev/api/generate-content#UsageMetadata).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UsageMetadata {
    /// The whole prompt, cached tokens included.
    #[serde(default)]
    pub prompt_token_count: u64,
    /// The part of the prompt read from the cache.
    #[serde(default)]
    pub cached_content_token_count: u64,
    #[serde(default)]
    pub candidates_token_count: u64,
    /// Billed as output.
    #[serde(default)]
    pub thoughts_token_count: u64,
    /// Results of the API's own tools (Google Search) read as prompt.
    #[serde(default)]
    pub tool_use_prompt_token_count: u64,
    #[serde(default)]
    pub total_token_count: u64,
}

/// Why the model stopped (`finishReason`, https://ai.google.dev/api/generate-content#FinishReason).
/// Unknown reasons are kept as text: the enum grows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FinishReason {
    Stop,
    MaxTokens,
    /// A filter stopped the reply: `SAFETY`, `PROHIBITED_CONTENT`, `BLOCKLIST`, `SPII`, or one of
    /// the image ones; `flagged` are the harm categories the candidate's ratings name.
    Blocked {
        code: String,
        flagged: Vec<String>,
    },
    /// `RECITATION`, `IMAGE_RECITATION`.
    Recitation,
    Language,
    MalformedFunctionCall,
    UnexpectedToolCall,
    TooManyToolCalls,
    MissingThoughtSignature,
    MalformedResponse,
    /// `NO_IMAGE`, `IMAGE_OTHER`: an image was asked for and none came.
    NoImage,
    /// `OTHER`, `FINISH_REASON_UNSPECIFIED` and codes this build does not know.
    Other(String),
}

impl FinishReason {
    pub fn parse(reason: &str) -> Self {
        match reason {
            "STOP" => Self::Stop,
            "MAX_TOKENS" => Self::MaxTokens,
            "SAFETY"
            | "PROHIBITED_CONTENT"
            | "BLOCKLIST"
            | "SPII"
            | "IMAGE_SAFETY"
            | "IMAGE_PROHIBITED_CONTENT" => {
                Self::Blocked { code: reason.to_owned(), flagged: Vec::new() }
            }
            "RECITATION" | "IMAGE_RECITATION" => Self::Recitation,
            "LANGUAGE" => Self::Language,
            "MALFORMED_FUNCTION_CALL" => Self::MalformedFunctionCall,
            "UNEXPECTED_TOOL_CALL" => Self::UnexpectedToolCall,
            "TOO_MANY_TOOL_CALLS" => Self::TooManyToolCalls,
            "MISSING_THOUGHT_SIGNATURE" => Self::MissingThoughtSignature,
            "MALFORMED_RESPONSE" => Self::MalformedResponse,
            "NO_IMAGE" | "IMAGE_OTHER" => Self::NoImage,
            other => Self::Other(other.to_owned()),
        }
    }

    /// The same reason with the harm categories the candidate's ratings flag.
    pub fn with_ratings(self, ratings: &[SafetyRating]) -> Self {
        match self {
            Self::Blocked { code, .. } => {
                Self::Blocked { code, flagged: SafetyRating::flagged(ratings) }
            }
            other => other,
        }
    }

    /// The output limit stopped the reply: asking it to go on makes sense.
    pub fn can_continue(&self) -> bool {
        matches!(self, Self::MaxTokens)
    }

    /// A plain explanation for the transcript; `None` for a normal stop.
    pub fn notice(&self) -> Option<crate::text::Text> {
        use crate::text::Text;
        Some(match self {
            Self::Stop => return None,
            Self::MaxTokens => Text::new("noticeMaxTokens"),
            Self::Blocked { code, flagged } => {
                let why = Text::new(match code.as_str() {
                    "PROHIBITED_CONTENT" | "IMAGE_PROHIBITED_CONTENT" => "blockedProhibited",
                    "BLOCKLIST" => "blockedBlocklist",
                    "SPII" => "blockedSpii",
                    "IMAGE_SAFETY" => "blockedImageSafety",
                    _ => "blockedSafety",
                });
                match harm_list(flagged) {
                    Some(list) => Text::new("noticeBlockedFlagged").with(why).with(list),
                    None => Text::new("noticeBlocked").with(why),
                }
            }
            Self::Recitation => Text::new("noticeRecitation"),
            Self::Language => Text::new("noticeLanguage"),
            Self::MalformedFunctionCall => Text::new("noticeMalformedCall"),
            Self::UnexpectedToolCall => Text::new("noticeUnexpectedToolCall"),
            Self::TooManyToolCalls => Text::new("noticeTooManyToolCalls"),
            Self::MissingThoughtSignature => Text::new("noticeMissingSignature"),
            Self::MalformedResponse => Text::new("noticeMalformedResponse"),
            Self::NoImage => Text::new("noticeNoImage"),
            Self::Other(reason) => Text::new("noticeStoppedEarly").arg(reason),
        })
    }

    /// The API's code, for the transcript's markup and tests.
    pub fn code(&self) -> &str {
        match self {
            Self::Stop => "STOP",
            Self::MaxTokens => "MAX_TOKENS",
            Self::Blocked { code, .. } => code,
            Self::Recitation => "RECITATION",
            Self::Language => "LANGUAGE",
            Self::MalformedFunctionCall => "MALFORMED_FUNCTION_CALL",
            Self::UnexpectedToolCall => "UNEXPECTED_TOOL_CALL",
            Self::TooManyToolCalls => "TOO_MANY_TOOL_CALLS",
            Self::MissingThoughtSignature => "MISSING_THOUGHT_SIGNATURE",
            Self::MalformedResponse => "MALFORMED_RESPONSE",
            Self::NoImage => "NO_IMAGE",
            Self::Other(code) => code,
        }
    }
}

/// A harm category in words (`HARM_CATEGORY_DANGEROUS_CONTENT` → "dangerous content").
pub fn harm_category(category: &str) -> crate::text::Text {
    use crate::text::Text;
    match category {
        "HARM_CATEGORY_HARASSMENT" => Text::new("harmHarassment"),
        "HARM_CATEGORY_HATE_SPEECH" => Text::new("harmHateSpeech"),
        "HARM_CATEGORY_SEXUALLY_EXPLICIT" => Text::new("harmSexuallyExplicit"),
        "HARM_CATEGORY_DANGEROUS_CONTENT" => Text::new("harmDangerousContent"),
        "HARM_CATEGORY_CIVIC_INTEGRITY" => Text::new("harmCivicIntegrity"),
        other => Text::new("harmOther").arg(other.trim_start_matches("HARM_CATEGORY_")),
    }
}

/// Harm categories as one list in words ("harassment, dangerous content"), `None` for none.
pub fn harm_list(categories: &[String]) -> Option<crate::text::Text> {
    let mut words = categories.iter().map(|c| harm_category(c));
    let first = words.next()?;
    Some(words.fold(first, |list, next| crate::text::Text::new("listJoin").with(list).with(next)))
}
