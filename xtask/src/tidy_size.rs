//! Tidy: the page crates (side panel, popup, app host) stay in small parts with one job each.
//!
//! A function (a component, a reducer, a hook) longer than [`MAX_FN_LINES`] or a file whose code
//! is longer than [`MAX_FILE_LINES`] fails here, naming itself. The measure is the indentation:
//! a function runs from its `fn` line to the first `}` line at the same indentation, which is
//! what `cargo fmt` writes. A file's unit tests (from its first `#[cfg(test)]`) do not count.

#![cfg(test)]

use std::path::Path;

use crate::tidy::rust_files;
use crate::util::root;

/// Longest function, in lines, `fn` and closing brace included.
const MAX_FN_LINES: usize = 120;

/// Longest file, in lines of code before its unit tests.
const MAX_FILE_LINES: usize = 900;

/// The crates whose pages are built of components and reducers.
const CRATES: [&str; 3] = ["sidepanel", "popup", "apphost"];

/// Functions that are still over the limit, as `(file, function, why)`. An entry is a debt, not
/// a licence: the test also fails when a listed function got short, so the list only shrinks.
const NOT_YET_SPLIT: &[(&str, &str, &str)] = &[];

/// The name of the function a line opens, if it opens one with a body on later lines.
fn opens_fn(line: &str) -> Option<&str> {
    let mut rest = line.trim_start();
    if rest.ends_with(';') || rest.ends_with('}') {
        return None; // a declaration without a body, or a one-line function
    }
    if let Some(after) = rest.strip_prefix("pub") {
        rest = match after.strip_prefix('(') {
            Some(scoped) => scoped.split_once(')')?.1,
            None => after,
        }
        .trim_start();
    }
    for word in ["const ", "async ", "unsafe "] {
        rest = rest.strip_prefix(word).unwrap_or(rest);
    }
    let name = rest.strip_prefix("fn ")?;
    let end = name.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(name.len());
    Some(&name[..end])
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// `(name, first line, length)` of every function of `text`, nested ones too.
fn functions(text: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (start, line) in lines.iter().enumerate() {
        let Some(name) = opens_fn(line) else { continue };
        let depth = indent(line);
        let end = lines[start + 1..]
            .iter()
            .position(|l| indent(l) == depth && l.trim_start().starts_with('}'))
            .map_or(lines.len(), |at| start + 1 + at);
        out.push((name.to_owned(), start + 1, end - start + 1));
    }
    out
}

/// The file's code, without its unit tests.
fn code_of(text: &str) -> &str {
    text.split("#[cfg(test)]").next().unwrap_or_default()
}

fn shown(file: &Path) -> String {
    file.strip_prefix(root()).unwrap_or(file).display().to_string()
}

#[test]
fn page_functions_are_short() {
    let mut long = Vec::new();
    let mut listed_but_short = Vec::new();
    for dir in CRATES {
        for file in rust_files(&root().join(dir).join("src")) {
            let text = std::fs::read_to_string(&file).unwrap();
            let name_of_file = shown(&file);
            for (name, line, length) in functions(code_of(&text)) {
                let listed = NOT_YET_SPLIT.iter().any(|(f, n, _)| *f == name_of_file && *n == name);
                if length > MAX_FN_LINES && !listed {
                    long.push(format!("{name_of_file}:{line}: `{name}` is {length} lines"));
                }
            }
        }
    }
    for (file, name, _) in NOT_YET_SPLIT {
        let text = std::fs::read_to_string(root().join(file)).unwrap_or_default();
        let still_long = functions(code_of(&text))
            .iter()
            .any(|(n, _, length)| n == name && *length > MAX_FN_LINES);
        if !still_long {
            listed_but_short.push(format!("{file}: `{name}`"));
        }
    }
    assert!(
        long.is_empty(),
        "functions longer than {MAX_FN_LINES} lines; split them into parts with one job each \
         (a component per part of the page, a function per group of actions):\n{}",
        long.join("\n")
    );
    assert!(
        listed_but_short.is_empty(),
        "these are short now (or gone); take them off NOT_YET_SPLIT in xtask/src/tidy_size.rs:\n{}",
        listed_but_short.join("\n")
    );
}

#[test]
fn page_files_are_short() {
    let mut long = Vec::new();
    for dir in CRATES {
        for file in rust_files(&root().join(dir).join("src")) {
            let text = std::fs::read_to_string(&file).unwrap();
            let lines = code_of(&text).lines().count();
            if lines > MAX_FILE_LINES {
                long.push(format!("{}: {lines} lines", shown(&file)));
            }
        }
    }
    assert!(
        long.is_empty(),
        "files with more than {MAX_FILE_LINES} lines of code; make a module directory with a \
         file per job:\n{}",
        long.join("\n")
    );
}

/// The measure itself: a function ends at its own closing brace, not at a nested one.
#[test]
fn the_measure_counts_from_fn_to_its_brace() {
    let text =
        "pub(crate) fn outer() {\n    fn inner() {\n        1;\n    }\n    if x {\n    }\n}\n\
                fn one_line() {}\ntrait T {\n    fn declared(&self);\n}\n";
    let found = functions(text);
    assert_eq!(found, [("outer".to_owned(), 1, 7), ("inner".to_owned(), 2, 3)]);
}
