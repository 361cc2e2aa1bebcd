//! Tidy check: the worker's modules (`background/src`) name one another without a circle.
//!
//! A module that is named by a module it names cannot be read, tested or changed alone, and
//! "who calls whom" stops meaning anything. A lower module that must reach an upper one raises a
//! `WorkerEvent` (`background/src/events.rs`), which the dispatcher on top hands on.
//!
//! A module names another with `use crate::a`, `use crate::{a, b::c}` or a path `crate::a::…`;
//! `crate::item` for anything that is not a module names the crate root (`lib.rs`). Comments and
//! test code (`#[cfg(test)]` and what follows it) are not read.

#![cfg(test)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::util::root;

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The crate's modules, each with the modules its code names. `lib.rs` is the module `lib`.
fn module_graph(src: &Path) -> Graph {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(src).expect("background/src").flatten() {
        let path = entry.path();
        assert!(!path.is_dir(), "{}: read nested modules too", path.display());
        if path.extension().is_some_and(|e| e == "rs") {
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            files.push((stem, std::fs::read_to_string(&path).unwrap()));
        }
    }
    let modules: BTreeSet<String> = files.iter().map(|(m, _)| m.clone()).collect();
    files
        .iter()
        .map(|(module, source)| {
            let mut named = named_modules(source);
            if module == "lib" {
                named.extend(children_named(source, &modules));
            }
            let named = named
                .into_iter()
                .map(|name| if modules.contains(&name) { name } else { "lib".to_owned() })
                .filter(|name| name != module)
                .collect();
            (module.clone(), named)
        })
        .collect()
}

/// The first segment of every `crate::` path in `source`'s code.
fn named_modules(source: &str) -> BTreeSet<String> {
    let code = source.split("#[cfg(test)]").next().unwrap_or_default();
    let code: String = code
        .lines()
        .map(|line| match line.find("//") {
            // A `//` inside a string is rare in these files and would only hide a name.
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let ident = |s: &str| -> String {
        s.trim_start().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect()
    };
    let mut named = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        let Some(group) = rest.strip_prefix('{') else {
            named.insert(ident(rest));
            continue;
        };
        // `crate::{a::{b, c}, d}` names `a` and `d`: the items of the outer group only.
        let (mut depth, mut item_start) = (0usize, true);
        for (i, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => break,
                '}' => depth -= 1,
                ',' if depth == 0 => item_start = true,
                _ if item_start && !c.is_whitespace() => {
                    named.insert(ident(&group[i..]));
                    item_start = false;
                }
                _ => {}
            }
        }
    }
    named.retain(|name| !name.is_empty() && name != "self");
    named
}

/// The crate root names its modules without `crate::`: `ports::add(…)`.
fn children_named(source: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let code = source.split("#[cfg(test)]").next().unwrap_or_default();
    let mut named = BTreeSet::new();
    for module in modules {
        let path = format!("{module}::");
        for (at, _) in code.match_indices(&path) {
            let before = code[..at].chars().next_back();
            if !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
                named.insert(module.clone());
            }
        }
    }
    named
}

/// Every group of modules that reach one another (Tarjan's strongly connected components), each
/// with its members and one circle through it, e.g. `["a", "b", "a"]`.
fn cycles(graph: &Graph) -> Vec<(Vec<String>, Vec<String>)> {
    struct Walk<'g> {
        graph: &'g Graph,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        groups: Vec<Vec<&'g str>>,
    }
    impl<'g> Walk<'g> {
        fn visit(&mut self, node: &'g str) {
            let n = self.index.len();
            self.index.insert(node, n);
            self.low.insert(node, n);
            self.stack.push(node);
            let graph = self.graph;
            for next in graph.get(node).into_iter().flatten() {
                let next = next.as_str();
                if !self.index.contains_key(next) {
                    self.visit(next);
                    let low = self.low[node].min(self.low[next]);
                    self.low.insert(node, low);
                } else if self.stack.contains(&next) {
                    let low = self.low[node].min(self.index[next]);
                    self.low.insert(node, low);
                }
            }
            if self.low[node] == self.index[node] {
                let at = self.stack.iter().position(|n| *n == node).unwrap();
                let group = self.stack.split_off(at);
                if group.len() > 1 {
                    self.groups.push(group);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        groups: Vec::new(),
    };
    for node in graph.keys() {
        if !walk.index.contains_key(node.as_str()) {
            walk.visit(node);
        }
    }
    walk.groups
        .iter()
        .map(|group| {
            let mut members: Vec<String> = group.iter().map(|m| m.to_string()).collect();
            members.sort();
            (members, circle_in(graph, group))
        })
        .collect()
}

/// One circle through the first module of `group`, staying inside the group (breadth first, so
/// the shortest).
fn circle_in(graph: &Graph, group: &[&str]) -> Vec<String> {
    let start = *group.iter().min().unwrap();
    let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(node) = queue.pop_front() {
        for next in graph.get(node).into_iter().flatten() {
            let next = next.as_str();
            if next == start {
                let mut circle = vec![start.to_owned(), node.to_owned()];
                let mut at = node;
                while at != start {
                    at = came_from[at];
                    circle.push(at.to_owned());
                }
                circle.reverse();
                return circle;
            }
            if group.contains(&next) && !came_from.contains_key(next) {
                came_from.insert(next, node);
                queue.push_back(next);
            }
        }
    }
    group.iter().map(|n| n.to_string()).collect()
}

#[test]
fn the_worker_has_no_import_cycle() {
    let graph = module_graph(&root().join("background/src"));
    assert!(graph.len() > 5, "background/src was not read: {graph:?}");
    let found = cycles(&graph);
    let shown: Vec<String> = found
        .iter()
        .map(|(members, circle)| format!("{} (e.g. {})", members.join(", "), circle.join(" → ")))
        .collect();
    assert!(
        found.is_empty(),
        "background/src has modules that name one another in a circle:\n  {}\nThe lower module \
         raises a `WorkerEvent` (background/src/events.rs) for the dispatcher to hand on, or the \
         piece both need moves down.",
        shown.join("\n  ")
    );
}

/// The worker's memory is one `Worker` (`background/src/worker.rs`): a module that wants to keep
/// something adds a part to it rather than a static of its own.
#[test]
fn the_worker_keeps_its_state_in_one_place() {
    let src = root().join("background/src");
    let mut statics = Vec::new();
    for entry in std::fs::read_dir(&src).expect("background/src").flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        let name = entry.file_name().to_string_lossy().into_owned();
        for line in text.lines() {
            let code = line.split("//").next().unwrap_or_default();
            if code.contains("thread_local!") || code.trim_start().starts_with("static ") {
                statics.push(format!("background/src/{name}: {}", line.trim()));
            }
        }
    }
    statics.sort();
    assert_eq!(
        statics,
        [
            "background/src/worker.rs: static WORKER: Worker = Worker::new();",
            "background/src/worker.rs: thread_local! {",
        ],
        "the worker's state is one `Worker` in worker.rs: add a part there instead"
    );
}

#[test]
fn names_are_read_from_paths_and_groups() {
    let source = "use crate::{a, b::{c, d}, e::f};\nuse crate::g;\n// crate::h\nfn x() { \
                  crate::i::j(); crate::k(); }\n#[cfg(test)]\nuse crate::l;";
    let named: Vec<_> = named_modules(source).into_iter().collect();
    assert_eq!(named, ["a", "b", "e", "g", "i", "k"]);
}

#[test]
fn a_circle_is_found_and_named() {
    let graph: Graph = [("a", vec!["b"]), ("b", vec!["c"]), ("c", vec!["a"]), ("d", vec!["a"])]
        .into_iter()
        .map(|(n, to)| (n.to_owned(), to.into_iter().map(str::to_owned).collect()))
        .collect();
    let found = cycles(&graph);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].0, ["a", "b", "c"]);
    assert_eq!(found[0].1, ["a", "b", "c", "a"]);
    let mut acyclic = graph.clone();
    acyclic.get_mut("c").unwrap().clear();
    assert!(cycles(&acyclic).is_empty());
}
