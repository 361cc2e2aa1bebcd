//! When to retry a failed request: 429 and 5xx only, honouring the API's `retryDelay`, else
//! exponential backoff with a cap. Deterministic (no jitter): one user, one request at a time.

use std::time::Duration;

use super::Error;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// Delay before the first retry when the API gives none; doubled each time.
    pub base_delay: Duration,
    /// Upper bound of the computed delay.
    pub max_delay: Duration,
    /// A `retryDelay` longer than this is not waited for: the error is shown instead.
    pub max_honoured_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 3,
            base_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(30),
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
        let retryable = error.is_rate_limited() || error.is_server();
        if !retryable || retry == 0 || retry > self.max_retries {
            return None;
        }
        if let Some(asked) = error.retry_after() {
            return (asked <= self.max_honoured_delay).then_some(asked);
        }
        let factor = 2u32.saturating_pow(retry - 1);
        Some(self.base_delay.saturating_mul(factor).min(self.max_delay))
    }
}
