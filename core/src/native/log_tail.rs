//! A server's stderr, bounded: the newest bytes are kept, the oldest dropped.

use std::collections::VecDeque;

/// How much of each server's stderr the bridge keeps.
pub const LOG_LIMIT: usize = 64 * 1024;

#[derive(Debug)]
pub struct LogTail {
    bytes: VecDeque<u8>,
    limit: usize,
    truncated: bool,
}

impl LogTail {
    pub fn new(limit: usize) -> Self {
        LogTail { bytes: VecDeque::new(), limit, truncated: false }
    }

    pub fn push(&mut self, data: &[u8]) {
        let keep = &data[data.len().saturating_sub(self.limit)..];
        let overflow = (self.bytes.len() + keep.len()).saturating_sub(self.limit);
        if overflow > 0 || keep.len() < data.len() {
            self.truncated = true;
        }
        self.bytes.drain(..overflow.min(self.bytes.len()));
        self.bytes.extend(keep);
    }

    /// Whether older output was dropped.
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    /// Everything kept, as text (invalid UTF-8 replaced); after truncation it starts at a line.
    pub fn text(&self) -> String {
        let (front, back) = self.bytes.as_slices();
        let all = [front, back].concat();
        let start = if self.truncated {
            all.iter().position(|&b| b == b'\n').map_or(0, |at| at + 1)
        } else {
            0
        };
        String::from_utf8_lossy(&all[start..]).into_owned()
    }

    /// The last `lines` lines, at most `max_bytes` of them (cut at the front).
    pub fn last_lines(&self, lines: usize, max_bytes: usize) -> String {
        let text = self.text();
        let trimmed = text.trim_end_matches('\n');
        let mut start = trimmed.len();
        for _ in 0..lines {
            match trimmed[..start].rfind('\n') {
                Some(at) => start = at,
                None => {
                    start = 0;
                    break;
                }
            }
        }
        let tail = trimmed[start..].trim_start_matches('\n');
        let mut cut = tail.len().saturating_sub(max_bytes);
        while !tail.is_char_boundary(cut) {
            cut += 1;
        }
        tail[cut..].to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_newest_bytes() {
        let mut log = LogTail::new(10);
        log.push(b"abc\n");
        assert_eq!((log.text().as_str(), log.truncated()), ("abc\n", false));
        log.push(b"defgh\nij");
        assert_eq!((log.text().as_str(), log.truncated()), ("defgh\nij", true));
        log.push(b"0123456789ABC\nxy");
        assert_eq!(log.text(), "xy");
        let mut log = LogTail::new(10);
        log.push(b"0123456789");
        assert!(!log.truncated());
        log.push(b"\n");
        assert!(log.truncated());
    }

    #[test]
    fn last_lines_are_bounded_both_ways() {
        let mut log = LogTail::new(LOG_LIMIT);
        log.push("one\ntwo\nthree\nfour\n".as_bytes());
        assert_eq!(log.last_lines(2, 100), "three\nfour");
        assert_eq!(log.last_lines(10, 100), "one\ntwo\nthree\nfour");
        assert_eq!(log.last_lines(10, 6), "e\nfour");
        assert_eq!(log.last_lines(0, 100), "");
        let mut log = LogTail::new(LOG_LIMIT);
        log.push("語語".as_bytes());
        assert_eq!(log.last_lines(1, 4), "語");
        log.push(&[0xff, b'\n']);
        assert_eq!(log.last_lines(1, 100), "語語\u{fffd}");
    }
}
