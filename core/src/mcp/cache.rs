//! How long a list result may be reused: the `ttlMs` caching hint of protocol 2026-07-28.
//!
//! The spec's rule: a result received at `t_received` is fresh while
//! `now < t_received + ttlMs`; a negative `ttlMs` counts as 0 (stale at once). Once stale it is
//! fetched again when next needed (never polled), and it may still be served when that fetch
//! fails. Without a hint the spec leaves the client to its own heuristics: such a list holds
//! until the server announces a change (or the person refreshes), as a handshake-era list does.
//! Taking "no hint" as 0 would refetch the list at every look, e.g. each time a page lists the
//! servers.

use serde_json::Value;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Freshness {
    /// Handshake era: reuse until the server announces a change.
    #[default]
    UntilChanged,
    /// 2026-07-28: fresh for this many milliseconds after it was received (0: stale at once).
    TtlMs(u64),
}

impl Freshness {
    /// From a 2026-07-28 result's `ttlMs` field.
    pub fn from_ttl(ttl_ms: Option<&Value>) -> Self {
        let Some(ms) = ttl_ms.and_then(Value::as_f64) else { return Freshness::UntilChanged };
        let ms = ms.max(0.0);
        // `as` saturates: a huge hint is "a very long time", not an overflow.
        Freshness::TtlMs(ms as u64)
    }

    /// The freshness of a list made of pages: each page has its own clock, so the whole list is
    /// fresh only while every page is.
    pub fn and(self, other: Freshness) -> Freshness {
        match (self, other) {
            (Freshness::TtlMs(a), Freshness::TtlMs(b)) => Freshness::TtlMs(a.min(b)),
            (Freshness::UntilChanged, other) | (other, Freshness::UntilChanged) => other,
        }
    }

    /// Whether a result received at `received_ms` may still be used at `now_ms`.
    pub fn is_fresh(self, received_ms: u64, now_ms: u64) -> bool {
        match self {
            Freshness::UntilChanged => true,
            Freshness::TtlMs(ttl) => now_ms < received_ms.saturating_add(ttl),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Freshness::{self, TtlMs, UntilChanged};
    use serde_json::json;

    #[test]
    fn ttl_hints_read_as_the_spec_says() {
        assert_eq!(Freshness::from_ttl(Some(&json!(300000))), TtlMs(300_000));
        assert_eq!(Freshness::from_ttl(Some(&json!(0))), TtlMs(0));
        // Negative: ignored and taken as 0. Absent or not a number: no hint, our own rule.
        assert_eq!(Freshness::from_ttl(Some(&json!(-5))), TtlMs(0));
        assert_eq!(Freshness::from_ttl(None), UntilChanged);
        assert_eq!(Freshness::from_ttl(Some(&json!("60000"))), UntilChanged);
        assert_eq!(Freshness::from_ttl(Some(&json!(1e300))), TtlMs(u64::MAX));
    }

    #[test]
    fn fresh_until_received_plus_ttl_and_not_at_that_instant() {
        let received = 1_000;
        assert!(TtlMs(500).is_fresh(received, 1_000));
        assert!(TtlMs(500).is_fresh(received, 1_499));
        assert!(!TtlMs(500).is_fresh(received, 1_500));
        assert!(!TtlMs(0).is_fresh(received, received), "0 is stale at once");
        assert!(TtlMs(u64::MAX).is_fresh(received, u64::MAX - 1), "no overflow");
        assert!(UntilChanged.is_fresh(received, u64::MAX));
    }

    #[test]
    fn a_paged_list_is_as_fresh_as_its_stalest_page() {
        assert_eq!(TtlMs(500).and(TtlMs(200)), TtlMs(200));
        assert_eq!(UntilChanged.and(TtlMs(200)), TtlMs(200));
        assert_eq!(TtlMs(0).and(UntilChanged), TtlMs(0));
        assert_eq!(UntilChanged.and(UntilChanged), UntilChanged);
    }
}
