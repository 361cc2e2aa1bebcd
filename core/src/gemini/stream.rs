//! Turns the `data` payloads of a `streamGenerateContent?alt=sse` reply into UI events and one
//! accumulated model [`Content`] for the history.
//!
//! The accumulator takes payloads already split by an SSE parser, so it does not care how the
//! bytes arrived. Adjacent plain-text parts are merged so a long reply does not become thousands
//! of parts; a part carrying a `thoughtSignature` or fields we do not know is never merged, as
//! the API requires signatures back on the part they came with.

use serde_json::Value;

use super::error::ApiErrorBody;
use super::grounding::GroundingMetadata;
use super::wire::{
    Content, FinishReason, FunctionCall, GenerateContentResponse, Part, SafetyRating, ROLE_MODEL,
};
use super::{Error, UsageMetadata};

/// What one payload means for the person reading.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    TextDelta(String),
    ThoughtDelta(String),
    FunctionCall(FunctionCall),
    Finish(FinishReason),
    Usage(UsageMetadata),
    Error(Error),
}

/// The model turn as far as it arrived.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamOutcome {
    /// Role `model`, parts verbatim (text merged), ready to append to the history.
    pub content: Content,
    pub finish_reason: Option<FinishReason>,
    pub usage: Option<UsageMetadata>,
    /// The first error seen in the stream (in-stream API error, malformed chunk, blocked prompt).
    pub error: Option<Error>,
    /// No finish reason arrived, or an error did: the text is partial.
    pub incomplete: bool,
    /// Grounding with Google Search: the last `groundingMetadata` the stream carried.
    pub grounding: Option<GroundingMetadata>,
}

impl StreamOutcome {
    pub fn function_calls(&self) -> Vec<FunctionCall> {
        self.content.function_calls().cloned().collect()
    }
}

#[derive(Debug, Default)]
pub struct StreamAccumulator {
    parts: Vec<Part>,
    finish_reason: Option<FinishReason>,
    usage: Option<UsageMetadata>,
    error: Option<Error>,
    grounding: Option<GroundingMetadata>,
    payloads: usize,
}

impl StreamAccumulator {
    pub fn new() -> Self {
        Self::default()
    }

    /// True once any payload arrived (a retry would then duplicate text).
    pub fn has_data(&self) -> bool {
        self.payloads > 0
    }

    /// Feeds one SSE `data` payload. Never panics; bad JSON becomes an [`StreamEvent::Error`].
    pub fn push(&mut self, data: &str) -> Vec<StreamEvent> {
        let data = data.trim();
        if data.is_empty() {
            return Vec::new();
        }
        self.payloads += 1;
        let value: Value = match serde_json::from_str(data) {
            Ok(v) => v,
            Err(e) => return self.fail(Error::malformed(format!("chunk is not JSON ({e})"))),
        };
        if value.get("error").is_some() {
            return match serde_json::from_value::<ApiErrorBody>(value) {
                Ok(body) => self.fail(Error::from_api_status(body.error)),
                Err(e) => self.fail(Error::malformed(format!("unreadable error object ({e})"))),
            };
        }
        match serde_json::from_value::<GenerateContentResponse>(value) {
            Ok(chunk) => self.absorb(chunk),
            Err(e) => self.fail(Error::malformed(format!("unexpected chunk shape ({e})"))),
        }
    }

    /// Ends the stream (cleanly or not) and hands over what arrived.
    pub fn finish(self) -> StreamOutcome {
        let incomplete = self.error.is_some() || self.finish_reason.is_none();
        StreamOutcome {
            content: Content { role: Some(ROLE_MODEL.into()), parts: self.parts },
            finish_reason: self.finish_reason,
            usage: self.usage,
            error: self.error,
            incomplete,
            grounding: self.grounding,
        }
    }

    fn fail(&mut self, error: Error) -> Vec<StreamEvent> {
        if self.error.is_none() {
            self.error = Some(error.clone());
        }
        vec![StreamEvent::Error(error)]
    }

    fn absorb(&mut self, chunk: GenerateContentResponse) -> Vec<StreamEvent> {
        let mut events = Vec::new();
        if let Some(feedback) = chunk.prompt_feedback.as_ref() {
            if let Some(reason) = feedback.block_reason.clone() {
                let flagged = SafetyRating::flagged(&feedback.safety_ratings);
                events.extend(self.fail(Error::blocked(reason, flagged)));
            }
        }
        // GemiPanel asks for one candidate; others, if any, are ignored.
        if let Some(candidate) = chunk.candidates.into_iter().next() {
            for part in candidate.content.map(|c| c.parts).unwrap_or_default() {
                events.extend(part_events(&part));
                self.append(part);
            }
            // Usually complete in the last chunk; a later one replaces an earlier one.
            if let Some(meta) =
                candidate.extra.get("groundingMetadata").and_then(GroundingMetadata::read)
            {
                self.grounding = Some(meta);
            }
            if let Some(reason) = candidate.finish_reason {
                let reason = FinishReason::parse(&reason).with_ratings(&candidate.safety_ratings);
                self.finish_reason = Some(reason.clone());
                events.push(StreamEvent::Finish(reason));
            }
        }
        if let Some(usage) = chunk.usage_metadata {
            // Each chunk carries the running totals; the last one wins.
            self.usage = Some(usage);
            events.push(StreamEvent::Usage(usage));
        }
        events
    }

    fn append(&mut self, mut part: Part) {
        if is_bare_signature(&part) {
            // A signature streamed on its own closes the part before it (typically the last
            // chunk, with the finish reason): it goes back on that part, as a whole reply
            // would have carried it. A part without data would be refused when sent back.
            match self.parts.last_mut().filter(|p| p.thought_signature.is_none()) {
                Some(last) => {
                    last.thought_signature = part.thought_signature;
                    return;
                }
                None => part.text = Some(String::new()),
            }
        }
        if let Some(last) = self.parts.last_mut() {
            if mergeable(last) && mergeable(&part) && last.thought == part.thought {
                if let (Some(text), Some(more)) = (last.text.as_mut(), part.text.as_deref()) {
                    text.push_str(more);
                    return;
                }
            }
        }
        self.parts.push(part);
    }
}

fn part_events(part: &Part) -> Vec<StreamEvent> {
    let mut events = Vec::new();
    match &part.text {
        Some(text) if !text.is_empty() && part.is_thought() => {
            events.push(StreamEvent::ThoughtDelta(text.clone()))
        }
        Some(text) if !text.is_empty() => events.push(StreamEvent::TextDelta(text.clone())),
        _ => {}
    }
    if let Some(call) = &part.function_call {
        events.push(StreamEvent::FunctionCall(call.clone()));
    }
    events
}

/// A part carrying only a signature: no text (not even empty), no data, nothing else.
fn is_bare_signature(part: &Part) -> bool {
    part.thought_signature.is_some()
        && part.text.is_none()
        && part.thought.is_none()
        && part.inline_data.is_none()
        && part.function_call.is_none()
        && part.function_response.is_none()
        && part.extra.is_empty()
}

/// A plain text part with nothing attached that must stay with it.
fn mergeable(part: &Part) -> bool {
    part.text.is_some()
        && part.thought_signature.is_none()
        && part.inline_data.is_none()
        && part.function_call.is_none()
        && part.function_response.is_none()
        && part.extra.is_empty()
}
