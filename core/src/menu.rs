//! The composer's menus (`/` for prompts and commands, `@` for resources) share one ranking:
//! an entry has a name, a label and a description, and the query is matched against them in
//! that order of weight.

/// What a menu ranks an entry by.
pub trait MenuEntry {
    /// What the person types (a prompt's name, a resource's name).
    fn name(&self) -> &str;
    /// What the person reads (a title), often the name.
    fn label(&self) -> &str;
    /// Matched last: a description, a URI.
    fn description(&self) -> &str;
}

/// The entries matching `query`, best first, at most `max`: the name starting with it, then the
/// label, then either containing it, then the description; the menu's order within each rank.
pub fn ranked<'a, T: MenuEntry>(items: &'a [T], query: &str, max: usize) -> Vec<&'a T> {
    let query = query.to_lowercase();
    // Case-insensitive without allocating per entry for the common ASCII case: the menu of
    // the `@` key may hold ten thousand resources and is ranked on every key.
    let contains = |haystack: &str| {
        if haystack.is_ascii() && query.is_ascii() {
            contains_ascii(haystack.as_bytes(), query.as_bytes())
        } else {
            haystack.to_lowercase().contains(&query)
        }
    };
    let starts = |haystack: &str| {
        haystack.get(..query.len()).is_some_and(|head| head.eq_ignore_ascii_case(&query))
            || (!haystack.is_ascii() && haystack.to_lowercase().starts_with(&query))
    };
    let rank = |item: &T| {
        let (name, label) = (item.name(), item.label());
        // Most entries have no title: their label is their name, matched once.
        let titled = !std::ptr::eq(name, label);
        if starts(name) {
            Some(0)
        } else if titled && starts(label) {
            Some(1)
        } else if contains(name) || (titled && contains(label)) {
            Some(2)
        } else if contains(item.description()) {
            Some(3)
        } else {
            None
        }
    };
    let mut found: [Vec<&T>; 4] = Default::default();
    for item in items {
        if let Some(r) = rank(item) {
            // The best rank fills first; a lower one cannot displace it.
            if found[..=r].iter().map(Vec::len).sum::<usize>() < max {
                found[r].push(item);
            }
        }
    }
    found.into_iter().flatten().take(max).collect()
}

/// Whether ASCII `haystack` holds `query` (already lowercase), ignoring ASCII case.
fn contains_ascii(haystack: &[u8], query: &[u8]) -> bool {
    let Some((&first, _)) = query.split_first() else { return true };
    haystack.len() >= query.len()
        && (0..=haystack.len() - query.len()).any(|at| {
            haystack[at].to_ascii_lowercase() == first
                && haystack[at..at + query.len()].eq_ignore_ascii_case(query)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    struct E(&'static str, &'static str, &'static str);

    impl MenuEntry for E {
        fn name(&self) -> &str {
            self.0
        }
        fn label(&self) -> &str {
            self.1
        }
        fn description(&self) -> &str {
            self.2
        }
    }

    #[test]
    fn ranks_are_kept_case_insensitively_in_ascii_and_beyond() {
        let items = [
            E("notes", "Notes", "test://notes"),
            E("Tokyo", "東京の地図", "map"),
            E("readme", "Read me", "about the NOTES"),
            E("Übersicht", "Übersicht", ""),
            E("photo", "Photo", "test://static/resource/notes"),
        ];
        let names = |q: &str| -> Vec<&str> { ranked(&items, q, 10).iter().map(|e| e.0).collect() };
        assert_eq!(names("NOT"), ["notes", "readme", "photo"]);
        assert_eq!(names("東京"), ["Tokyo"]);
        assert_eq!(names("über"), ["Übersicht"]);
        assert_eq!(names("").len(), 5);
        assert_eq!(names("T://NOTES"), ["notes"], "the URI, past a false start");
        assert!(contains_ascii(b"abc", b"") && !contains_ascii(b"ab", b"abc"));
        assert!(names("zzz").is_empty());
    }

    #[test]
    fn a_later_rank_never_displaces_an_earlier_one_past_the_limit() {
        let items = [E("b", "", "a"), E("xa", "", ""), E("a1", "", ""), E("a2", "", "")];
        let names: Vec<&str> = ranked(&items, "a", 2).iter().map(|e| e.0).collect();
        assert_eq!(names, ["a1", "a2"]);
    }
}
