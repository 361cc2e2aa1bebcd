//! The same chat open in two windows: each side panel holds its own copy, and a save that finds
//! the stored chat changed since this panel read it (a higher `revision`) keeps both
//! conversations instead of writing over the other panel's turns.
//!
//! Where the two conversations part, the other panel's continuation becomes a version of the
//! chat at that message (as an edit or a regenerate would make), and this panel's stays shown.
//! What one of them only extended, the other takes whole. The chat's own choices (model, tools,
//! instructions, title) are the saving panel's: the last one set wins, as in one window.
//!
//! Versions either panel kept join the other's: an edit in each window, each switched back to
//! the original, leaves both edits as versions.

use gemipanel_core::branches::Path;
use gemipanel_core::chats::saved::messages_in;

use crate::state::ChatView;
use crate::transcript::{Entry, SavedChat};

/// Where two copies of a chat part.
#[derive(Debug, PartialEq, Eq)]
enum Parting {
    /// Neither has a turn the other lacks.
    Nowhere,
    /// The stored copy only has turns after all of this panel's.
    TheirsGoOn,
    /// This panel's copy has every turn of the stored one, and more.
    MineGoOn,
    /// At this message (0-based among the person's messages): both go on differently from it.
    At(usize),
}

fn parting(theirs: &[Entry], mine: &[Entry]) -> Parting {
    // An elicitation is never saved: compare what is.
    let saved = |entries: &[Entry]| -> Vec<Entry> {
        entries.iter().filter(|e| !matches!(e, Entry::Elicitation(_))).cloned().collect()
    };
    let (theirs, mine) = (saved(theirs), saved(mine));
    let same = theirs.iter().zip(&mine).take_while(|(a, b)| a == b).count();
    match (same == theirs.len(), same == mine.len()) {
        (true, true) => return Parting::Nowhere,
        (true, false) => return Parting::MineGoOn,
        (false, true) => return Parting::TheirsGoOn,
        (false, false) => {}
    }
    let messages_before = messages_in(&mine[..same]);
    let both_new_messages =
        matches!((&theirs[same], &mine[same]), (Entry::User { .. }, Entry::User { .. }));
    match (both_new_messages, messages_before) {
        (true, _) => Parting::At(messages_before),
        // The replies to one message differ: the versions part at that message.
        (false, n) if n > 0 => Parting::At(n - 1),
        // Nothing of the person's before the difference: there is no message to part at.
        (false, _) => Parting::MineGoOn,
    }
}

/// What a save of `mine` stores over `stored` (the copy in storage, when it reads), and whether
/// another panel's turns were merged in. A stored copy this panel wrote itself
/// (`stored_by_this_panel`) is an earlier save of the same conversation, whose result had not
/// reached the panel when `mine` was taken: `mine` is newer, and goes over it whole. Merged,
/// the panel's own reply that changed between two saves (it was still being finished) would
/// come back as a second version of its message.
pub fn to_store(
    stored: Option<SavedChat>,
    mine: SavedChat,
    stored_by_this_panel: bool,
) -> (SavedChat, bool) {
    match stored {
        Some(stored) if stored.revision != mine.revision && !stored_by_this_panel => {
            (merge(stored, mine), true)
        }
        stored => (over_own_save(stored.map_or(0, |s| s.revision), mine), false),
    }
}

/// `mine` stored over this panel's own save at `revision` (or over nothing, at 0): whole, at
/// the next revision.
pub fn over_own_save(revision: u64, mine: SavedChat) -> SavedChat {
    SavedChat { revision: revision.max(mine.revision) + 1, ..mine }
}

/// The chat to store when `mine` is saved over `stored`, which another panel wrote since this
/// one read it.
pub fn merge(stored: SavedChat, mine: SavedChat) -> SavedChat {
    let revision = stored.revision.max(mine.revision) + 1;
    let updated_ms = stored.updated_ms.max(mine.updated_ms);
    let activity =
        gemipanel_core::chats::activity::merge(mine.activity.clone(), stored.activity.clone());
    let mut merged = match parting(&stored.entries, &mine.entries) {
        // Versions are only ever added: each copy's kept versions join the other's.
        Parting::Nowhere | Parting::MineGoOn => {
            let shared = messages_in(&stored.entries);
            let mut merged = mine;
            merged.forks.adopt(stored.forks, shared);
            merged
        }
        Parting::TheirsGoOn => {
            let mut forks = stored.forks;
            forks.adopt(mine.forks, messages_in(&mine.entries));
            SavedChat {
                history: stored.history,
                entries: stored.entries,
                forks,
                context_tokens: stored.context_tokens,
                ..mine
            }
        }
        Parting::At(at) => both_versions(stored, mine, at),
    };
    merged.revision = revision;
    merged.updated_ms = updated_ms;
    merged.activity = activity;
    merged
}

/// `mine` shown, with `stored`'s conversation from message `at` on kept as a version there,
/// and the versions `stored` kept before that message.
fn both_versions(stored: SavedChat, mine: SavedChat, at: usize) -> SavedChat {
    let mut theirs = ChatView::from_saved(stored);
    let mut view = ChatView::from_saved(mine);
    let their_tail = theirs.path().cut(at);
    let mut their_forks = std::mem::take(&mut theirs.forks);
    let their_tail_forks = their_forks.split_after(at);
    let mut forks = std::mem::take(&mut view.forks);
    // Mine is kept where the shown version stood among those parting here; theirs is added
    // and shown (with the versions inside it), then mine is shown again.
    let mine_among = forks.at(at).map_or(0, |(shown, _)| shown);
    if forks.branch(&mut view.path(), at) {
        view.path().join(their_tail);
        forks.join_after(their_tail_forks);
        forks.switch(&mut view.path(), at, mine_among);
    }
    forks.adopt(their_forks, at);
    view.forks = forks;
    view.to_saved()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::tests::exchange;
    use crate::state::{reduce, Action, State};

    fn user(text: &str) -> Entry {
        Entry::User { text: text.into(), context: Vec::new(), app_context: Vec::new(), mark: None }
    }

    fn notice(text: &str) -> Entry {
        Entry::Notice { text: text.into(), sign_in: None }
    }

    /// A chat saved with the person's messages and replies given as (message, reply) pairs.
    fn chat(turns: &[(&str, &str)], revision: u64) -> SavedChat {
        let mut state = reduce(&State::default(), Action::NewChat { id: "c".into(), now_ms: 1 });
        for (message, reply) in turns {
            state = exchange(&state, message, reply);
        }
        let mut saved = state.chat.to_saved();
        saved.revision = revision;
        saved
    }

    fn messages(chat: &SavedChat) -> Vec<String> {
        chat.entries
            .iter()
            .filter_map(|e| match e {
                Entry::User { text, .. } => Some(text.clone()),
                _ => None,
            })
            .collect()
    }

    fn versions_at(chat: &SavedChat, at: usize) -> Option<(usize, usize)> {
        chat.forks.at(at)
    }

    #[test]
    fn parting_is_found_at_the_first_differing_message_or_reply() {
        let (a, b, c) = (user("a"), user("b"), user("c"));
        let r = notice("reply");
        let just_a = std::slice::from_ref(&a);
        assert_eq!(parting(just_a, just_a), Parting::Nowhere);
        assert_eq!(parting(just_a, &[a.clone(), r.clone()]), Parting::MineGoOn);
        assert_eq!(parting(&[a.clone(), r.clone()], just_a), Parting::TheirsGoOn);
        assert_eq!(parting(&[a.clone(), r.clone(), b], &[a.clone(), r.clone(), c]), Parting::At(1));
        assert_eq!(parting(&[a.clone(), r], &[a, notice("other")]), Parting::At(0));
        assert_eq!(parting(&[notice("x")], &[notice("y")]), Parting::MineGoOn);
    }

    #[test]
    fn a_turn_the_other_window_saved_meanwhile_is_kept_as_a_version() {
        let base = [("hello", "hi")];
        let theirs = chat(&[base[0], ("from window one", "one")], 3);
        let mine = chat(&[base[0], ("from window two", "two")], 2);
        let merged = merge(theirs, mine);
        assert_eq!(merged.revision, 4);
        // Mine shown where it stood (the first version), theirs one switch away as the newest.
        assert_eq!(messages(&merged), ["hello", "from window two"]);
        assert_eq!(versions_at(&merged, 1), Some((0, 2)));
        let mut view = ChatView::from_saved(merged);
        view = view.switched(1, 1);
        let shown = view.to_saved();
        assert_eq!(messages(&shown), ["hello", "from window one"]);
        // The model's history follows the shown version.
        assert_eq!(shown.history, chat(&[base[0], ("from window one", "one")], 0).history);
    }

    #[test]
    fn what_only_one_window_extended_is_taken_whole() {
        let short = chat(&[("hello", "hi")], 5);
        let long = chat(&[("hello", "hi"), ("more", "yes")], 4);
        let merged = merge(long.clone(), short.clone());
        assert_eq!(messages(&merged), ["hello", "more"]);
        assert_eq!(merged.history, long.history);
        assert_eq!(merged.revision, 6);
        let merged = merge(short, long);
        assert_eq!(messages(&merged), ["hello", "more"]);
        assert_eq!(versions_at(&merged, 1), None);
    }

    #[test]
    fn a_second_save_before_the_first_merge_was_taken_in_keeps_the_merged_version() {
        let theirs = chat(&[("hello", "hi"), ("one", "1")], 3);
        let mine = chat(&[("hello", "hi"), ("two", "2")], 2);
        let first = merge(theirs, mine.clone());
        // The panel saves again from its copy at revision 2, which lacks the other's version.
        let again = merge(first, mine);
        assert_eq!(messages(&again), ["hello", "two"]);
        assert_eq!(versions_at(&again, 1), Some((0, 2)));
    }

    #[test]
    fn an_earlier_save_of_this_panel_is_written_over_not_merged() {
        // The first save stored the reply as it was then; the second was taken before that
        // save's revision came back, with the reply finished and the next message sent.
        let first = chat(&[("hello", "hi"), ("more", "ye")], 4);
        let second = chat(&[("hello", "hi"), ("more", "yes"), ("again", "ok")], 3);
        let (stored, merged) = to_store(Some(first.clone()), second.clone(), true);
        assert!(!merged);
        assert_eq!(stored.revision, 5);
        assert_eq!(messages(&stored), ["hello", "more", "again"]);
        assert_eq!(versions_at(&stored, 1), None, "no second version of its own message");
        // Another panel's copy is merged, as before.
        let (stored, merged) = to_store(Some(first), second, false);
        assert!(merged);
        assert_eq!(versions_at(&stored, 1).map(|(_, count)| count), Some(2));
    }

    #[test]
    fn a_first_save_and_an_unchanged_revision_write_over() {
        let mine = chat(&[("hello", "hi")], 2);
        assert_eq!(to_store(None, mine.clone(), false).0.revision, 3);
        let (stored, merged) = to_store(Some(chat(&[("other", "x")], 2)), mine, false);
        assert!(!merged);
        assert_eq!(messages(&stored), ["hello"]);
    }

    /// `state` with message `at` edited to `text` (answered `reply`), then the original shown.
    fn edited_and_back(state: &State, at: usize, text: &str, reply: &str) -> SavedChat {
        let mut view = state.chat.clone();
        let mut forks = std::mem::take(&mut view.forks);
        forks.branch(&mut view.path(), at);
        view.forks = forks;
        let edited = exchange(&State { chat: view, ..state.clone() }, text, reply);
        edited.chat.switched(at, 0).to_saved()
    }

    #[test]
    fn an_edit_in_each_window_keeps_both_edits() {
        let mut state = reduce(&State::default(), Action::NewChat { id: "c".into(), now_ms: 1 });
        for (message, reply) in [("hello", "hi"), ("more", "yes")] {
            state = exchange(&state, message, reply);
        }
        let mut theirs = edited_and_back(&state, 1, "more, in one", "one");
        theirs.revision = 3;
        let mine = edited_and_back(&state, 1, "more, in two", "two");
        assert_eq!(messages(&theirs), messages(&mine), "both show the original");
        let merged = merge(theirs, mine);
        assert_eq!(messages(&merged), ["hello", "more"]);
        assert_eq!(versions_at(&merged, 1), Some((0, 3)), "the original and both edits");
        for (version, text) in [(1, "more, in two"), (2, "more, in one")] {
            let shown = ChatView::from_saved(merged.clone()).switched(1, version).to_saved();
            assert_eq!(messages(&shown), ["hello", text]);
        }
    }

    #[test]
    fn the_versions_inside_the_other_windows_turn_come_with_it() {
        let mut state = reduce(&State::default(), Action::NewChat { id: "c".into(), now_ms: 1 });
        state = exchange(&state, "hello", "hi");
        let mine = exchange(&state, "from two", "two").chat.to_saved();
        let mut one = exchange(&exchange(&state, "from one", "one"), "and on", "on");
        // Window one regenerated its last reply and went back to the first: a version there.
        one.chat = ChatView::from_saved(edited_and_back(&one, 2, "and on", "again"));
        let mut theirs = one.chat.to_saved();
        theirs.revision = 5;
        let merged = merge(theirs, mine);
        assert_eq!(messages(&merged), ["hello", "from two"]);
        let shown = ChatView::from_saved(merged).switched(1, 1);
        assert_eq!(shown.forks.at(2), Some((0, 2)), "its version at its third message");
    }

    #[test]
    fn versions_already_there_stay_and_the_new_one_joins_them() {
        let theirs = chat(&[("hello", "hi"), ("one", "1")], 7);
        let mine = chat(&[("hello", "hi"), ("two", "2")], 6);
        let first = merge(theirs, mine);
        let third = chat(&[("hello", "hi"), ("three", "3")], 0);
        let merged = merge(third, first.clone());
        assert_eq!(messages(&merged), ["hello", "two"]);
        assert_eq!(versions_at(&merged, 1).map(|(_, count)| count), Some(3));
    }
}
