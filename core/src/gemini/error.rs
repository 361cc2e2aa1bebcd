//! One error type for everything that can go wrong talking to Gemini, with predicates the UI maps
//! to actions ("Check the API key", "Retry in 20 s").
//!
//! The API answers failures with `{"error": {"code", "message", "status", "details": [...]}}`
//! (google.rpc.Status); the message is shown as the API wrote it.

use std::fmt;

use crate::gemini::budget::Refusal;
use crate::text::Text;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `google.rpc.Status` as the API sends it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ApiStatus {
    #[serde(default)]
    pub code: u16,
    #[serde(default)]
    pub message: String,
    #[serde(default)]
    pub status: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<Value>,
}

/// The envelope `{"error": ApiStatus}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ApiErrorBody {
    pub error: ApiStatus,
}

const RETRY_INFO: &str = "type.googleapis.com/google.rpc.RetryInfo";
const ERROR_INFO: &str = "type.googleapis.com/google.rpc.ErrorInfo";
const BAD_REQUEST: &str = "type.googleapis.com/google.rpc.BadRequest";
const QUOTA_FAILURE: &str = "type.googleapis.com/google.rpc.QuotaFailure";

impl ApiStatus {
    fn details_of<'a>(&'a self, ty: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
        self.details.iter().filter(move |d| d.get("@type").and_then(Value::as_str) == Some(ty))
    }

    /// `RetryInfo.retryDelay`, a protobuf Duration in JSON form (`"20s"`, `"1.5s"`).
    pub fn retry_delay(&self) -> Option<Duration> {
        self.details_of(RETRY_INFO)
            .find_map(|d| d.get("retryDelay").and_then(Value::as_str))
            .and_then(parse_proto_duration)
    }

    /// `ErrorInfo.reason`, e.g. `API_KEY_INVALID`.
    pub fn reason(&self) -> Option<&str> {
        self.details_of(ERROR_INFO).find_map(|d| d.get("reason").and_then(Value::as_str))
    }

    /// Field paths named by `BadRequest.fieldViolations`.
    fn violated_fields(&self) -> impl Iterator<Item = &str> {
        self.details_of(BAD_REQUEST)
            .filter_map(|d| d.get("fieldViolations").and_then(Value::as_array))
            .flatten()
            .filter_map(|v| v.get("field").and_then(Value::as_str))
    }
}

/// Parses `"<seconds>[.<fraction>]s"`. Anything else is `None`.
pub fn parse_proto_duration(text: &str) -> Option<Duration> {
    let secs = text.trim().strip_suffix('s')?;
    // The proto3 JSON form of a Duration is a JSON number with an `s`: read it as one (with
    // the JSON parser every answer already goes through).
    let value: f64 = serde_json::from_str(secs).ok()?;
    (0.0..1e9).contains(&value).then(|| Duration::from_secs_f64(value))
}

#[derive(Debug, Clone, PartialEq)]
enum Kind {
    /// A non-2xx HTTP answer (or an error object inside the stream).
    Api { http_status: u16, body: Option<ApiStatus>, text: String },
    /// The connection failed before any of the reply arrived.
    Network(String),
    /// The connection dropped after part of the reply had arrived.
    NetworkLost(String),
    /// A chunk that is not the JSON we expect.
    Malformed(String),
    /// The prompt was blocked before any candidate (`promptFeedback.blockReason`), with the
    /// harm categories its ratings flag.
    Blocked(String, Vec<String>),
    /// No API key is configured.
    MissingKey,
}

/// An error of a Gemini request. Ask it questions instead of matching on it.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    kind: Kind,
}

impl Error {
    /// From a non-2xx HTTP answer and its body (whatever it holds).
    pub fn from_http(http_status: u16, body: &str) -> Self {
        // Some proxies wrap the status in a one-element array. (Checked by the first character:
        // serde would otherwise read the array as the struct's fields, in order.)
        let parsed = if body.trim_start().starts_with('[') {
            serde_json::from_str::<Vec<ApiErrorBody>>(body).ok().and_then(|v| v.into_iter().next())
        } else {
            serde_json::from_str::<ApiErrorBody>(body).ok()
        }
        .map(|b| b.error);
        let text = body.chars().take(500).collect();
        Self { kind: Kind::Api { http_status, body: parsed, text } }
    }

    /// From an error object found inside the stream (`data: {"error": …}`).
    pub fn from_api_status(status: ApiStatus) -> Self {
        let http_status = status.code;
        Self { kind: Kind::Api { http_status, body: Some(status), text: String::new() } }
    }

    pub fn network(message: impl Into<String>) -> Self {
        Self { kind: Kind::Network(message.into()) }
    }

    /// The connection dropped mid-reply: said apart from a refused one, which means another cause.
    pub fn network_lost(message: impl Into<String>) -> Self {
        Self { kind: Kind::NetworkLost(message.into()) }
    }

    pub fn malformed(message: impl Into<String>) -> Self {
        Self { kind: Kind::Malformed(message.into()) }
    }

    /// `reason` is `promptFeedback.blockReason`; `flagged` the harm categories
    /// (`SafetyRating::flagged`).
    pub fn blocked(reason: impl Into<String>, flagged: Vec<String>) -> Self {
        Self { kind: Kind::Blocked(reason.into(), flagged) }
    }

    pub fn missing_key() -> Self {
        Self { kind: Kind::MissingKey }
    }

    /// The HTTP status (or `error.code` of an in-stream error).
    pub fn status(&self) -> Option<u16> {
        match &self.kind {
            Kind::Api { http_status, .. } => Some(*http_status),
            _ => None,
        }
    }

    /// The parsed `google.rpc.Status`, when the body had one.
    pub fn api_status(&self) -> Option<&ApiStatus> {
        match &self.kind {
            Kind::Api { body, .. } => body.as_ref(),
            _ => None,
        }
    }

    fn rpc_status(&self) -> &str {
        self.api_status().map_or("", |s| s.status.as_str())
    }

    fn message(&self) -> &str {
        self.api_status().map_or("", |s| s.message.as_str())
    }

    /// The key is missing, invalid or lacks permission: the person must fix the settings.
    /// A file reference that expired is not about the key (see [`Self::is_file_gone`]).
    pub fn is_auth(&self) -> bool {
        if matches!(self.kind, Kind::MissingKey) {
            return true;
        }
        if self.is_file_gone() {
            return false;
        }
        let reason = self.api_status().and_then(ApiStatus::reason);
        matches!(self.status(), Some(401 | 403))
            || matches!(reason, Some("API_KEY_INVALID" | "API_KEY_SERVICE_BLOCKED"))
            || self.rpc_status() == "UNAUTHENTICATED"
            || self.rpc_status() == "PERMISSION_DENIED"
            || (self.status() == Some(400) && self.message().contains("API key not valid"))
    }

    /// A file of the Files API that the request names is gone: files last 48 hours
    /// (https://ai.google.dev/gemini-api/docs/files), then the API answers 403 "You do not have
    /// permission to access the File <id> or it may not exist." (observed:
    /// github.com/googleapis/python-genai/issues/1218). Uploading it again fixes it.
    pub fn is_file_gone(&self) -> bool {
        self.status() == Some(403)
            && self.message().starts_with("You do not have permission to access the File ")
    }

    pub fn is_missing_key(&self) -> bool {
        matches!(self.kind, Kind::MissingKey)
    }

    /// 429 / `RESOURCE_EXHAUSTED`.
    pub fn is_rate_limited(&self) -> bool {
        self.status() == Some(429) || self.rpc_status() == "RESOURCE_EXHAUSTED"
    }

    /// The delay the API asked for: `RetryInfo.retryDelay`, else the "Please retry in 53.0s."
    /// its 429 messages end with (observed with and without the detail:
    /// github.com/google/langextract/issues/50, googleapis/python-genai/issues/1875).
    pub fn retry_after(&self) -> Option<Duration> {
        let status = self.api_status()?;
        status.retry_delay().or_else(|| retry_in_message(&status.message))
    }

    /// A quota counted per day ran out (`QuotaFailure` names a `…PerDay…` quota): waiting
    /// seconds will not clear it, so it is not retried
    /// (https://ai.google.dev/gemini-api/docs/rate-limits: limits are per minute and per day).
    pub fn is_daily_quota(&self) -> bool {
        self.is_rate_limited()
            && self.api_status().is_some_and(|s| {
                s.details_of(QUOTA_FAILURE)
                    .filter_map(|d| d.get("violations").and_then(Value::as_array))
                    .flatten()
                    .filter_map(|v| v.get("quotaId").and_then(Value::as_str))
                    .any(|id| id.contains("PerDay"))
            })
    }

    /// 5xx: Google's side; worth retrying.
    pub fn is_server(&self) -> bool {
        matches!(self.status(), Some(500..=599))
    }

    pub fn is_network(&self) -> bool {
        matches!(self.kind, Kind::Network(_) | Kind::NetworkLost(_))
    }

    pub fn is_malformed(&self) -> bool {
        matches!(self.kind, Kind::Malformed(_))
    }

    pub fn is_blocked(&self) -> bool {
        matches!(self.kind, Kind::Blocked(..))
    }

    /// A 400 that refuses the request's tools for one of the API's limits (see
    /// `core::gemini::budget::limits`), recognised by the API's own words.
    pub fn tool_refusal(&self) -> Option<Refusal> {
        if self.status() != Some(400) {
            return None;
        }
        let raw = match &self.kind {
            Kind::Api { text, .. } => text.as_str(),
            _ => "",
        };
        [self.message(), raw].into_iter().find_map(refusal_in)
    }

    /// A 400 about the function declarations' schemas, e.g. `Invalid JSON payload received.
    /// Unknown name "$schema" at 'tools[0].function_declarations[0].parameters'` or
    /// `…function_declarations[1].parameters.properties[x].items: missing field`.
    pub fn is_schema_rejected(&self) -> bool {
        if self.status() != Some(400) || self.is_auth() || self.tool_refusal().is_some() {
            return false;
        }
        let mentions_declarations = |text: &str| {
            text.contains("function_declarations")
                || text.contains("functionDeclarations")
                || text.contains("parametersJsonSchema")
                || text.contains("parameters_json_schema")
        };
        let from_fields = self
            .api_status()
            .map(|s| s.violated_fields().any(mentions_declarations))
            .unwrap_or(false);
        let raw = match &self.kind {
            Kind::Api { text, .. } => text.as_str(),
            _ => "",
        };
        from_fields || mentions_declarations(self.message()) || mentions_declarations(raw)
    }
}

/// "… Please retry in 53.016342224s." at the end of a 429 message.
fn retry_in_message(message: &str) -> Option<Duration> {
    let (_, rest) = message.rsplit_once("retry in ")?;
    let number = rest.split_once('s')?.0.trim();
    parse_proto_duration(&format!("{number}s"))
}

/// The refusal a message of the API names, if any.
fn refusal_in(message: &str) -> Option<Refusal> {
    if message.contains("function declarations can be specified") {
        return Some(Refusal::TooManyDeclarations);
    }
    if message.contains("too many states for serving") {
        return Some(Refusal::TooManyStates);
    }
    let (head, _) = message.split_once("exceeds the maximum allowed nesting depth")?;
    if !head.contains("FunctionDeclaration") {
        return None;
    }
    // "FunctionDeclaration 'name' in the request …" or "A FunctionDeclaration in the request …"
    let function = head
        .split_once("FunctionDeclaration '")
        .and_then(|(_, rest)| rest.split_once('\''))
        .map(|(name, _)| name.to_owned());
    Some(Refusal::TooDeep { function })
}

impl Error {
    /// What went wrong, in words for a person (see `core::text`). The API's own message is
    /// quoted as it came.
    pub fn text(&self) -> Text {
        if self.is_file_gone() {
            return Text::new("errGeminiFileGone").arg(self.message());
        }
        match &self.kind {
            Kind::Api { http_status, body: Some(s), .. } if !s.message.is_empty() => {
                if s.status.is_empty() {
                    Text::new("errGeminiApi").arg(http_status).arg(&s.message)
                } else {
                    Text::new("errGeminiApiStatus").arg(http_status).arg(&s.status).arg(&s.message)
                }
            }
            Kind::Api { http_status, text, .. } if !text.trim().is_empty() => {
                Text::new("errGeminiApi").arg(http_status).arg(text.trim())
            }
            Kind::Api { http_status, .. } => Text::new("errGeminiHttp").arg(http_status),
            Kind::Network(m) => Text::new("errGeminiNetwork").arg(m),
            Kind::NetworkLost(m) => Text::new("errGeminiNetworkLost").arg(m),
            Kind::Malformed(m) => Text::new("errGeminiMalformed").arg(m),
            Kind::Blocked(reason, flagged) => {
                let why = Text::new(match reason.as_str() {
                    "PROHIBITED_CONTENT" => "blockedProhibited",
                    "BLOCKLIST" => "blockedBlocklist",
                    "IMAGE_SAFETY" => "blockedImageSafety",
                    "SAFETY" => "blockedSafety",
                    _ => "blockedOther",
                });
                match super::wire::harm_list(flagged) {
                    Some(list) => Text::new("errGeminiBlockedFlagged").with(why).with(list),
                    None => Text::new("errGeminiBlocked").with(why),
                }
            }
            Kind::MissingKey => Text::new("errGeminiMissingKey"),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.text().fmt(f)
    }
}

impl std::error::Error for Error {}
