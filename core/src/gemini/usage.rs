//! Token accounting: what each turn cost, and how full the model's context window is.
//!
//! The API reports `usageMetadata` per request; while streaming every chunk repeats the running
//! totals, so a request's figures are its last chunk's
//! (https://ai.google.dev/api/generate-content#UsageMetadata). A person's turn may take several
//! requests (tool rounds, retries that got an answer): its usage is their sum. The context a chat
//! fills is what its next request sends again: the last prompt and the reply to it. Thoughts are
//! not sent back (only their signatures), so they do not count towards it.

use serde::{Deserialize, Serialize};

use super::wire::UsageMetadata;
use crate::text::Text;

/// The share of the context window from which a new chat with a summary is offered.
pub const NEARLY_FULL_PERCENT: u64 = 90;

/// Tokens one turn of the person's cost, summed over its requests. Saved with the reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TurnUsage {
    /// Prompt tokens, cached ones included.
    pub prompt: u64,
    /// The part of `prompt` read from the cache.
    #[serde(default)]
    pub cached: u64,
    #[serde(default)]
    pub thoughts: u64,
    /// The reply's tokens (`candidatesTokenCount`).
    pub output: u64,
    /// Results of the API's own tools (Google Search), read as prompt.
    #[serde(default)]
    pub tool_prompt: u64,
    pub total: u64,
    /// Requests that reported usage.
    pub requests: u32,
}

impl TurnUsage {
    /// Adds one request's final figures.
    pub fn add(&mut self, usage: &UsageMetadata) {
        self.prompt = self.prompt.saturating_add(usage.prompt_token_count);
        self.cached = self.cached.saturating_add(usage.cached_content_token_count);
        self.thoughts = self.thoughts.saturating_add(usage.thoughts_token_count);
        self.output = self.output.saturating_add(usage.candidates_token_count);
        self.tool_prompt = self.tool_prompt.saturating_add(usage.tool_use_prompt_token_count);
        // Some answers leave the total out: the parts then make it.
        let total = match usage.total_token_count {
            0 => usage
                .prompt_token_count
                .saturating_add(usage.candidates_token_count)
                .saturating_add(usage.thoughts_token_count)
                .saturating_add(usage.tool_use_prompt_token_count),
            total => total,
        };
        self.total = self.total.saturating_add(total);
        self.requests = self.requests.saturating_add(1);
    }

    pub fn is_empty(&self) -> bool {
        self.requests == 0
    }

    /// One line for the reply's tooltip: "Prompt 1,204 (cached 800) · thoughts 96 · output 310
    /// · total 1,610", with the number of requests when there were several.
    pub fn text(&self) -> Text {
        let line = Text::new("usageLine")
            .arg(grouped(self.prompt))
            .arg(grouped(self.cached))
            .arg(grouped(self.thoughts))
            .arg(grouped(self.output))
            .arg(grouped(self.total));
        match self.requests {
            0 | 1 => line,
            n => Text::new("usageRequests").with(line).arg(n),
        }
    }
}

/// The tokens the chat's next request sends again after a request with this usage.
pub fn context_tokens(usage: &UsageMetadata) -> u64 {
    usage
        .prompt_token_count
        .saturating_add(usage.tool_use_prompt_token_count)
        .saturating_add(usage.candidates_token_count)
}

/// How full a model's context window is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextMeter {
    pub used: u64,
    /// The model's `inputTokenLimit`.
    pub limit: u64,
}

impl ContextMeter {
    /// `None` without a known, non-zero limit.
    pub fn new(used: u64, limit: Option<u64>) -> Option<Self> {
        limit.filter(|l| *l > 0).map(|limit| Self { used, limit })
    }

    /// Whole percent, rounded down, at most 100 (a chat can pass the window when the model
    /// changed to one with a smaller one).
    pub fn percent(&self) -> u64 {
        (u128::from(self.used) * 100 / u128::from(self.limit)).min(100) as u64
    }

    /// Time to offer a new chat with a summary.
    pub fn is_nearly_full(&self) -> bool {
        u128::from(self.used) * 100 >= u128::from(self.limit) * u128::from(NEARLY_FULL_PERCENT)
    }

    /// "12,345 of 1,048,576 tokens (1 %)".
    pub fn text(&self) -> Text {
        Text::new("contextMeter")
            .arg(grouped(self.used))
            .arg(grouped(self.limit))
            .arg(self.percent())
    }
}

/// Digits in groups of three with commas: "1,048,576" (the same in English and Japanese).
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(prompt: u64, cached: u64, thoughts: u64, output: u64, total: u64) -> UsageMetadata {
        UsageMetadata {
            prompt_token_count: prompt,
            cached_content_token_count: cached,
            candidates_token_count: output,
            thoughts_token_count: thoughts,
            tool_use_prompt_token_count: 0,
            total_token_count: total,
        }
    }

    #[test]
    fn a_turn_sums_its_requests_and_fills_in_a_missing_total() {
        let mut turn = TurnUsage::default();
        assert!(turn.is_empty());
        turn.add(&usage(100, 60, 20, 10, 130));
        turn.add(&usage(150, 0, 0, 25, 0));
        assert_eq!(
            turn,
            TurnUsage {
                prompt: 250,
                cached: 60,
                thoughts: 20,
                output: 35,
                tool_prompt: 0,
                total: 130 + 175,
                requests: 2
            }
        );
        assert_eq!(
            turn.text().to_string(),
            "Prompt 250 (cached 60) · thoughts 20 · output 35 · total 305 (2 requests)"
        );
        let mut one = TurnUsage::default();
        one.add(&usage(1_204_000, 0, 96, 310, 1_204_406));
        assert_eq!(
            one.text().to_string(),
            "Prompt 1,204,000 (cached 0) · thoughts 96 · output 310 · total 1,204,406"
        );
    }

    #[test]
    fn saturates_instead_of_overflowing() {
        let mut turn = TurnUsage::default();
        turn.add(&usage(u64::MAX, u64::MAX, u64::MAX, u64::MAX, 0));
        turn.add(&usage(u64::MAX, 1, 1, 1, 1));
        assert_eq!(turn.prompt, u64::MAX);
        assert_eq!(turn.total, u64::MAX);
    }

    #[test]
    fn the_context_is_the_prompt_and_reply_without_thoughts() {
        let mut u = usage(1_000, 400, 300, 200, 1_500);
        u.tool_use_prompt_token_count = 50;
        assert_eq!(context_tokens(&u), 1_250);
    }

    #[test]
    fn the_meter_offers_a_summary_from_ninety_percent() {
        assert_eq!(ContextMeter::new(10, None), None);
        assert_eq!(ContextMeter::new(10, Some(0)), None);
        let limit = Some(1_048_576);
        let meter = |used| ContextMeter::new(used, limit).unwrap();
        assert_eq!(meter(0).percent(), 0);
        assert!(!meter(943_718).is_nearly_full(), "89.99 %");
        assert!(meter(943_719).is_nearly_full(), "90 %");
        assert_eq!(meter(943_719).percent(), 90);
        assert_eq!(meter(2_000_000).percent(), 100, "a smaller model's window");
        assert_eq!(meter(12_345).text().to_string(), "12,345 of 1,048,576 tokens (1 %)");
        assert_eq!(meter(u64::MAX).percent(), 100);
    }

    #[test]
    fn groups_digits_in_threes() {
        for (n, s) in [(0, "0"), (999, "999"), (1_000, "1,000"), (65_536, "65,536")] {
            assert_eq!(grouped(n), s);
        }
        assert_eq!(grouped(u64::MAX), "18,446,744,073,709,551,615");
    }
}
