//! A conversation with versions. Editing a message already sent, or regenerating its reply,
//! starts a new version of the conversation from that message; what it replaces is kept and
//! can be shown again. Versions part at a message and nest: a kept version keeps the versions
//! that parted inside it.
//!
//! The shown conversation is a [`Path`] of messages; what follows a message on it is a tail.
//! [`Forks`] holds, for every message where versions part, the tails not shown, and moves tails
//! in and out of the path. It never looks inside a tail: showing a kept version again puts its
//! tail back as it was, so nothing in it (a tool call, an app) runs again.

use serde::{Deserialize, Serialize};

/// The shown conversation, cut and joined at its messages.
pub trait Path {
    type Tail;
    /// How many messages the path has.
    fn messages(&self) -> usize;
    /// Cuts the path before message `at` (0-based); returns what followed, that message
    /// included.
    fn cut(&mut self, at: usize) -> Self::Tail;
    /// Puts back a tail cut before the message the path now ends at.
    fn join(&mut self, tail: Self::Tail);
}

/// Where versions part: the message, which version shows, and the others.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fork<T> {
    /// The message (0-based on the path) each version starts with.
    pub at: usize,
    /// The shown version, 0-based among all of them (oldest first).
    pub shown: usize,
    /// The other versions, oldest first.
    pub others: Vec<Version<T>>,
}

impl<T> Fork<T> {
    /// How many versions there are, the shown one included.
    pub fn count(&self) -> usize {
        self.others.len() + 1
    }
}

/// A version not shown: what followed its message, and the versions that parted inside it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Version<T> {
    pub tail: T,
    #[serde(default = "Vec::new", skip_serializing_if = "Vec::is_empty")]
    pub forks: Vec<Fork<T>>,
}

/// The forks along the shown path, by message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Forks<T>(Vec<Fork<T>>);

impl<T> Default for Forks<T> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<T> Forks<T> {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The versions at message `at`: (shown, count), when versions part there.
    pub fn at(&self, at: usize) -> Option<(usize, usize)> {
        self.0.iter().find(|f| f.at == at).map(|f| (f.shown, f.count()))
    }

    /// Keeps what follows message `at` (that message included) as a version and cuts the path
    /// there: what the path gets next is a new version, shown. False (nothing changed) when the
    /// path has no such message.
    pub fn branch<P: Path<Tail = T>>(&mut self, path: &mut P, at: usize) -> bool {
        if at >= path.messages() {
            return false;
        }
        let tail = path.cut(at);
        let inner = self.take_after(at);
        let fork = self.fork_at(at);
        fork.others.insert(fork.shown.min(fork.others.len()), Version { tail, forks: inner });
        fork.shown = fork.others.len();
        true
    }

    /// Shows version `to` of those parting at message `at`, keeping the one shown now. False
    /// (nothing changed) when there is no such version or it is already shown.
    pub fn switch<P: Path<Tail = T>>(&mut self, path: &mut P, at: usize, to: usize) -> bool {
        let Some(fork) = self.0.iter().find(|f| f.at == at) else { return false };
        if to == fork.shown || to >= fork.count() || at >= path.messages() {
            return false;
        }
        let tail = path.cut(at);
        let inner = self.take_after(at);
        let fork = self.fork_at(at);
        fork.others.insert(fork.shown.min(fork.others.len()), Version { tail, forks: inner });
        let version = fork.others.remove(to);
        fork.shown = to;
        path.join(version.tail);
        self.0.extend(version.forks);
        self.0.sort_by_key(|f| f.at);
        true
    }

    /// Every kept tail, nested ones included.
    pub fn tails(&self) -> Vec<&T> {
        fn walk<'a, T>(forks: &'a [Fork<T>], out: &mut Vec<&'a T>) {
            for fork in forks {
                for version in &fork.others {
                    out.push(&version.tail);
                    walk(&version.forks, out);
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.0, &mut out);
        out
    }

    /// Changes every kept tail, nested ones included.
    pub fn each_tail_mut(&mut self, f: &mut dyn FnMut(&mut T)) {
        fn walk<T>(forks: &mut [Fork<T>], f: &mut dyn FnMut(&mut T)) {
            for fork in forks {
                for version in &mut fork.others {
                    f(&mut version.tail);
                    walk(&mut version.forks, f);
                }
            }
        }
        walk(&mut self.0, f);
    }

    /// Adds the kept versions of `other` that these lack, fork by fork, for forks at messages
    /// `other` and this share (before message `shared`): `other` was kept for the same
    /// conversation by another window, which made versions of its own meanwhile. A version
    /// both have (an equal tail) is kept once; a fork only `other` has is added, its shown
    /// version being the one shown here.
    pub fn adopt(&mut self, other: Forks<T>, shared: usize)
    where
        T: PartialEq,
    {
        for fork in other.0.into_iter().filter(|f| f.at < shared) {
            for version in fork.others {
                let mine = self.fork_at(fork.at);
                if !mine.others.iter().any(|v| v.tail == version.tail) {
                    mine.others.push(version);
                }
            }
        }
    }

    /// Takes the forks past message `at` out: they belong to the tail after it, when that tail
    /// is moved elsewhere (`join_after` puts them back in place).
    pub fn split_after(&mut self, at: usize) -> Forks<T> {
        Forks(self.take_after(at))
    }

    /// Puts back forks taken with [`Forks::split_after`], once their tail is on the path again.
    pub fn join_after(&mut self, forks: Forks<T>) {
        self.0.extend(forks.0);
        self.0.sort_by_key(|f| f.at);
    }

    /// The forks past message `at`: they belong to the tail cut there.
    fn take_after(&mut self, at: usize) -> Vec<Fork<T>> {
        let (after, keep): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.0).into_iter().partition(|f| f.at > at);
        self.0 = keep;
        after
    }

    fn fork_at(&mut self, at: usize) -> &mut Fork<T> {
        let index = match self.0.iter().position(|f| f.at == at) {
            Some(index) => index,
            None => {
                self.0.push(Fork { at, shown: 0, others: Vec::new() });
                self.0.sort_by_key(|f| f.at);
                self.0.iter().position(|f| f.at == at).unwrap_or(0)
            }
        };
        &mut self.0[index]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A path of exchanges written as strings: "q1>a1" is message q1 and its reply.
    #[derive(Debug, Clone, PartialEq, Default)]
    struct Chat(Vec<String>);

    impl Path for Chat {
        type Tail = Vec<String>;
        fn messages(&self) -> usize {
            self.0.len()
        }
        fn cut(&mut self, at: usize) -> Vec<String> {
            self.0.split_off(at)
        }
        fn join(&mut self, tail: Vec<String>) {
            self.0.extend(tail);
        }
    }

    fn chat(exchanges: &[&str]) -> Chat {
        Chat(exchanges.iter().map(|s| s.to_string()).collect())
    }

    fn say(path: &mut Chat, exchange: &str) {
        path.0.push(exchange.into());
    }

    #[test]
    fn versions_made_in_two_windows_are_all_kept() {
        // Both windows edited message 1 and went back to the original: each kept its edit.
        let mut one = chat(&["q1>a1", "q2>a2"]);
        let mut forks_one = Forks::default();
        forks_one.branch(&mut one, 1);
        say(&mut one, "edit in one");
        forks_one.switch(&mut one, 1, 0);
        let mut two = chat(&["q1>a1", "q2>a2"]);
        let mut forks_two = Forks::default();
        forks_two.branch(&mut two, 1);
        say(&mut two, "edit in two");
        forks_two.switch(&mut two, 1, 0);
        forks_two.branch(&mut two, 0);
        say(&mut two, "edit of the first");
        forks_two.switch(&mut two, 0, 0);
        assert_eq!(one, two, "both show the original");

        forks_one.adopt(forks_two.clone(), one.messages());
        assert_eq!(forks_one.at(1), Some((0, 3)));
        assert_eq!(forks_one.at(0), Some((0, 2)));
        let mut tails: Vec<String> = forks_one.tails().into_iter().flatten().cloned().collect();
        tails.sort();
        assert_eq!(tails, ["edit in one", "edit in two", "edit of the first"]);
        // Adopting again adds nothing; a fork past the shared messages is not placed.
        forks_one.adopt(forks_two, one.messages());
        assert_eq!(forks_one.tails().len(), 3);
        let mut longer = Forks::default();
        let mut path = chat(&["q1>a1", "q2>a2", "q3>a3"]);
        longer.branch(&mut path, 2);
        forks_one.adopt(longer, 2);
        assert_eq!(forks_one.at(2), None);
    }

    #[test]
    fn an_edit_keeps_the_replaced_conversation_and_can_switch_back() {
        let mut path = chat(&["q1>a1", "q2>a2", "q3>a3"]);
        let mut forks = Forks::default();
        assert!(forks.branch(&mut path, 1));
        assert_eq!(path, chat(&["q1>a1"]));
        say(&mut path, "q2'>b2");
        assert_eq!(forks.at(1), Some((1, 2)));
        assert_eq!(forks.at(0), None);
        assert!(forks.switch(&mut path, 1, 0));
        assert_eq!(path, chat(&["q1>a1", "q2>a2", "q3>a3"]));
        assert_eq!(forks.at(1), Some((0, 2)));
        assert!(!forks.switch(&mut path, 1, 0), "already shown");
        assert!(!forks.switch(&mut path, 1, 2), "no such version");
        assert!(!forks.switch(&mut path, 2, 0), "no versions there");
        assert!(forks.switch(&mut path, 1, 1));
        assert_eq!(path, chat(&["q1>a1", "q2'>b2"]));
        assert!(!forks.branch(&mut path, 5), "no such message");
    }

    #[test]
    fn versions_nest_and_come_back_with_their_own_versions() {
        let mut path = chat(&["q1>a1", "q2>a2", "q3>a3"]);
        let mut forks = Forks::default();
        // Regenerate the third exchange, then edit the second.
        forks.branch(&mut path, 2);
        say(&mut path, "q3>a3'");
        forks.branch(&mut path, 1);
        say(&mut path, "x2>x");
        assert_eq!(forks.at(2), None, "the fork at 3 went with the version it is in");
        assert_eq!(forks.tails().len(), 2);
        // Back to the first version of message 2: its own fork at message 3 returns, showing
        // the version that was shown when it was left.
        forks.switch(&mut path, 1, 0);
        assert_eq!(path, chat(&["q1>a1", "q2>a2", "q3>a3'"]));
        assert_eq!(forks.at(2), Some((1, 2)));
        forks.switch(&mut path, 2, 0);
        assert_eq!(path, chat(&["q1>a1", "q2>a2", "q3>a3"]));
        // A third version of message 2, from the first one.
        forks.branch(&mut path, 1);
        say(&mut path, "y2>y");
        assert_eq!(forks.at(1), Some((2, 3)));
        forks.switch(&mut path, 1, 1);
        assert_eq!(path, chat(&["q1>a1", "x2>x"]));
        forks.switch(&mut path, 1, 0);
        assert_eq!(path, chat(&["q1>a1", "q2>a2", "q3>a3"]));
        assert_eq!(forks.at(2), Some((0, 2)), "the versions inside it kept their choice");
        let mut seen = 0;
        forks.each_tail_mut(&mut |tail| seen += tail.len());
        assert_eq!(seen, forks.tails().iter().map(|t| t.len()).sum::<usize>());
    }

    #[test]
    fn branching_at_the_first_message_and_saving() {
        let mut path = chat(&["q1>a1"]);
        let mut forks = Forks::default();
        forks.branch(&mut path, 0);
        assert_eq!(path, chat(&[]));
        say(&mut path, "q1>b1");
        let saved = serde_json::to_string(&forks).unwrap();
        let mut back: Forks<Vec<String>> = serde_json::from_str(&saved).unwrap();
        assert_eq!(back, forks);
        assert!(back.switch(&mut path, 0, 0));
        assert_eq!(path, chat(&["q1>a1"]));
        // A saved chat without versions reads as none.
        let none: Forks<Vec<String>> = serde_json::from_str("[]").unwrap();
        assert!(none.is_empty());
    }
}
