//! When to retry a failed request: 429 and 5xx only (https://ai.google.dev/gemini-api/docs/troubleshooting:
//! 429 RESOURCE_EXHAUSTED, 500, 503 UNAVAILABLE and 504 are worth another try), honouring the
//! delay the API asks for, else exponential backoff with a cap; never a quota counted per day,
//! which seconds do not clear. Deterministic (no jitter): one user, one request at a time.

use std::time::Duration;

use super::Error;
use crate::backoff::Backoff;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// Delays when the API gives none.
    pub backoff: Backoff,
    /// A `retryDelay` longer than this is not waited for: the error is shown instead.
    pub max_honoured_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 3,
            backoff: Backoff { first: Duration::from_secs(1), max: Duration::from_secs(30) },
            max_honoured_delay: Duration::from_secs(120),
        }
    }
}

impl RetryPolicy {
    /// Never retry.
    pub fn none() -> Self {
        Self { max_retries: 0, ..Self::default() }
    }

    /// The delay before retry number `retry` (1-based) after `error`, or `None` to give up.
    pub fn delay(&self, error: &Error, retry: u32) -> Option<Duration> {
        let retryable = (error.is_rate_limited() && !error.is_daily_quota()) || error.is_server();
        if !retryable || retry == 0 || retry > self.max_retries {
            return None;
        }
        if let Some(asked) = error.retry_after() {
            return (asked <= self.max_honoured_delay).then_some(asked);
        }
        Some(self.backoff.delay(retry - 1))
    }
}
