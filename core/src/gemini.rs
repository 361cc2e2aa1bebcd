//! Talking to the Gemini API: wire types for `streamGenerateContent?alt=sse`, stream
//! accumulation, errors and retry policy, the model list, and the function-calling loop as a
//! sans-IO state machine ([`Chat`]).
//!
//! Nothing here performs I/O. The side panel sends the [`ModelRequest`]s that [`Chat`] emits,
//! splits the SSE reply with `core::sse`, feeds each `data` payload back, and runs the
//! [`ToolCall`]s through the worker.

pub mod attachments;
mod backoff;
pub mod budget;
mod chat;
mod error;
pub mod family;
pub mod grounding;
pub mod history;
mod models;
pub mod prompts;
pub mod routing;
pub mod schema;
pub mod schema_keywords;
pub mod signatures;
mod stream;
pub mod thinking;
mod tool_result;
pub mod usage;
mod wire;

pub use backoff::RetryPolicy;
pub use chat::{
    stream_path, Action, Busy, Chat, ChatConfig, ChatEvent, ModelRequest, Notice, ToolCall,
    ToolsOff, DEFAULT_MAX_ROUNDS,
};
pub use error::{parse_proto_duration, ApiErrorBody, ApiStatus, Error};
pub use family::Family;
pub use grounding::{GroundingMetadata, Sources};
pub use models::{
    automatic_model, availability, chat_models, default_model, list_error, model_id,
    supports_function_calling, token_count_label, Availability, KnownModels, ListModelsResponse,
    Model, ModelInfo, Stage, FALLBACK_MODEL, MAX_LIST_BYTES, MAX_LIST_PAGES,
};
pub use signatures::Turn;
pub use stream::{StreamAccumulator, StreamEvent, StreamOutcome};
pub use thinking::ThinkingChoice;
pub use tool_result::ToolOutcome;
pub use usage::{ContextMeter, TurnUsage};
pub use wire::{
    harm_category, harm_list, Blob, Candidate, Content, FileData, FinishReason, FunctionCall,
    FunctionDeclaration, FunctionResponse, FunctionResponsePart, GenerateContentRequest,
    GenerateContentResponse, GenerationConfig, Part, PromptFeedback, SafetyRating, ThinkingConfig,
    Tool, UsageMetadata, ROLE_MODEL, ROLE_USER,
};

/// The public endpoint; tests point the driver elsewhere.
pub const DEFAULT_BASE_URL: &str = "https://generativelanguage.googleapis.com";

/// `GET` path of the model list, one page at a time.
pub fn list_models_path(page_token: Option<&str>) -> String {
    match page_token {
        Some(token) => {
            format!(
                "/v1beta/models?pageSize=1000&pageToken={}",
                form_urlencoded::byte_serialize(token.as_bytes()).collect::<String>()
            )
        }
        None => "/v1beta/models?pageSize=1000".to_owned(),
    }
}
