//! Answers that may cross: only the one to the newest request of each key is taken.

/// Numbers the requests made per key. A completion asked at "k", "ky" and "kyo" gets three
/// answers in any order; "k"'s, arriving last, must not replace "kyo"'s. Keys are few (the
/// fields of a form): a list, not a map.
#[derive(Debug)]
pub struct Latest<K> {
    asked: Vec<(K, u64)>,
}

impl<K> Default for Latest<K> {
    fn default() -> Self {
        Latest { asked: Vec::new() }
    }
}

impl<K: PartialEq> Latest<K> {
    /// A new request for `key`: its ticket.
    pub fn ask(&mut self, key: K) -> u64 {
        let at = match self.asked.iter().position(|(k, _)| *k == key) {
            Some(at) => at,
            None => {
                self.asked.push((key, 0));
                self.asked.len() - 1
            }
        };
        self.asked[at].1 += 1;
        self.asked[at].1
    }

    /// Whether the answer to `ticket` is to the newest request for `key`.
    pub fn is_latest(&self, key: &K, ticket: u64) -> bool {
        self.asked.iter().any(|(k, asked)| k == key && *asked == ticket)
    }

    /// No answer on its way counts any more (what was asked about is gone).
    pub fn drop_pending(&mut self) {
        for (_, asked) in &mut self.asked {
            *asked += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_to_an_older_request_is_not_taken() {
        let mut latest = Latest::default();
        let k = latest.ask("city");
        let kyo = latest.ask("city");
        let other = latest.ask("date");
        // "kyo" answered first, then "k": only "kyo"'s counts.
        assert!(latest.is_latest(&"city", kyo));
        assert!(!latest.is_latest(&"city", k));
        // Each key keeps its own count.
        assert!(latest.is_latest(&"date", other));
        assert!(!latest.is_latest(&"never asked", 1));
        // Another form: what the last one asked no longer counts, and new tickets do.
        latest.drop_pending();
        assert!(!latest.is_latest(&"city", kyo));
        assert!(!latest.is_latest(&"date", other));
        let again = latest.ask("city");
        assert!(latest.is_latest(&"city", again));
    }
}
