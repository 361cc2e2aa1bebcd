//! A tool budget per Gemini request: with a thousand tools enabled, every request stays within
//! what the API accepts ([`limits`]) and the model can still reach every tool.
//!
//! A [`Catalog`] holds the chat's enabled tools, each prepared once: its schema flattened to
//! the depth the API accepts ([`flatten`]), its size measured, its words indexed ([`rank`]).
//! For each request [`Catalog::select`] sends them all when they fit the [`Budget`]; when they
//! do not, it sends the tools most relevant to the conversation, those used or found recently,
//! and [`SEARCH_TOOLS`], a function the model calls to find others. What a search found is
//! read back from the history, so the selection is a pure function of (catalog, history,
//! restriction): a reopened chat selects as before.

pub mod flatten;
pub mod limits;
pub mod rank;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

pub use flatten::{BadArgument, Plan};
pub use limits::Budget;

use crate::gemini::{Content, FunctionDeclaration};
use crate::text::Text;

/// The function the model calls to find tools that were not declared.
pub const SEARCH_TOOLS: &str = "search_tools";

/// Tools used or found this many calls/searches back stay declared.
const RECENT_CALLS: usize = 12;
const RECENT_SEARCHES: usize = 3;

/// One enabled tool, ready to declare.
#[derive(Debug, Clone)]
struct Entry {
    declaration: FunctionDeclaration,
    plan: Plan,
    bytes: usize,
    depth: usize,
}

/// The enabled tools of a chat, prepared for budgeting. Built once per tool list.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    /// Sorted by function name.
    entries: Vec<Entry>,
    by_name: HashMap<String, usize>,
    index: rank::Index,
    budget: Budget,
}

/// What one request carries: the declarations, and the counts the page shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    pub declarations: Vec<FunctionDeclaration>,
    pub sent: ToolsSent,
}

/// How many tools were enabled and how many went into a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ToolsSent {
    pub enabled: usize,
    /// MCP tools declared (not counting `search_tools`).
    pub sent: usize,
    /// `search_tools` was declared: some tools are reachable only through it.
    pub search: bool,
}

/// Limits learned from refused requests, kept for the rest of the chat's tool list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Restriction {
    pub max_declarations: Option<usize>,
    pub excluded: BTreeSet<String>,
}

/// Why the API refused a request's tools ([`crate::gemini::Error::tool_refusal`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// "At most 512 function declarations can be specified."
    TooManyDeclarations,
    /// "… exceeds the maximum allowed nesting depth." with the function named, when it is.
    TooDeep { function: Option<String> },
    /// "… a constraint that has too many states for serving."
    TooManyStates,
}

impl Refusal {
    pub fn text(&self) -> Text {
        Text::new(match self {
            Self::TooManyDeclarations => "toolsRefusedTooMany",
            Self::TooDeep { .. } => "toolsRefusedTooDeep",
            Self::TooManyStates => "toolsRefusedTooComplex",
        })
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.text().fmt(f)
    }
}

/// What the conversation says about which tools matter now.
#[derive(Debug, Clone, Default)]
pub struct Conversation {
    query: HashMap<String, f64>,
    /// Tools called or found recently, most recent first.
    pinned: Vec<String>,
    found: BTreeSet<String>,
}

impl Conversation {
    /// Reads the history: the person's messages (the latest weighs most), the functions the
    /// model called, and what `search_tools` found.
    pub fn from_history(history: &[Content]) -> Self {
        let mut query = HashMap::new();
        let mut weight = 1.0;
        let mut calls = Vec::new();
        let mut searches = Vec::new();
        for content in history.iter().rev() {
            if content.is_model() {
                let names: Vec<String> = content.function_calls().map(|c| c.name.clone()).collect();
                calls.extend(names.into_iter().rev());
                continue;
            }
            let text: Vec<&str> = content.parts.iter().filter_map(|p| p.text.as_deref()).collect();
            if !text.is_empty() && weight > 0.1 {
                rank::add_to_query(&mut query, &text.join(" "), weight);
                weight /= 2.0;
            }
            for part in content.parts.iter().rev() {
                if let Some(response) =
                    part.function_response.as_ref().filter(|r| r.name == SEARCH_TOOLS)
                {
                    searches.push(found_in(&response.response));
                }
            }
        }
        let found: BTreeSet<String> =
            searches.iter().take(RECENT_SEARCHES).flatten().cloned().collect();
        let mut pinned = Vec::new();
        let recent_calls = calls.into_iter().filter(|c| c != SEARCH_TOOLS).take(RECENT_CALLS);
        let recent_found = searches.into_iter().take(RECENT_SEARCHES).flatten();
        for name in recent_calls.chain(recent_found) {
            if !pinned.contains(&name) {
                pinned.push(name);
            }
        }
        Self { query, pinned, found }
    }

    /// The tool was declared because `search_tools` found it.
    pub fn found_by_search(&self, function: &str) -> bool {
        self.found.contains(function)
    }
}

/// The `output` of a `search_tools` response: the tools found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchOutput {
    pub found: Vec<FoundTool>,
    pub note: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FoundTool {
    pub name: String,
    pub description: String,
}

fn found_in(response: &Value) -> Vec<String> {
    response
        .get("output")
        .cloned()
        .and_then(|output| serde_json::from_value::<SearchOutput>(output).ok())
        .map(|output| output.found.into_iter().map(|t| t.name).collect())
        .unwrap_or_default()
}

impl Catalog {
    /// `declarations` as `core::tools` made them (refs inlined); `titles` by function name.
    pub fn new(
        declarations: &[FunctionDeclaration],
        titles: &BTreeMap<String, String>,
        budget: Budget,
    ) -> Self {
        // The first declaration of a name wins; names are then unique, so any sort is stable.
        let mut seen = BTreeSet::new();
        let mut entries: Vec<Entry> = declarations
            .iter()
            .filter(|d| d.name != SEARCH_TOOLS && seen.insert(d.name.as_str()))
            .map(|d| prepare(d, budget.max_depth))
            .collect();
        entries.sort_unstable_by(|a, b| a.declaration.name.cmp(&b.declaration.name));
        let by_name =
            entries.iter().enumerate().map(|(i, e)| (e.declaration.name.clone(), i)).collect();
        let documents = entries
            .iter()
            .map(|e| document(&e.declaration, titles.get(&e.declaration.name)))
            .collect();
        Self { entries, by_name, index: rank::Index::new(documents), budget }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn budget(&self) -> &Budget {
        &self.budget
    }

    /// Every tool as it would be declared (flattened), in name order.
    pub fn declarations(&self) -> impl Iterator<Item = &FunctionDeclaration> {
        self.entries.iter().map(|e| &e.declaration)
    }

    /// Where a tool's schema was flattened (empty when it was not).
    pub fn plan(&self, function: &str) -> Option<&Plan> {
        self.by_name.get(function).map(|&i| &self.entries[i].plan)
    }

    /// The declarations for the next request.
    pub fn select(&self, conversation: &Conversation, restriction: &Restriction) -> Selection {
        let usable: Vec<usize> = (0..self.entries.len())
            .filter(|&i| !restriction.excluded.contains(&self.entries[i].declaration.name))
            .collect();
        let max = restriction
            .max_declarations
            .map_or(self.budget.max_declarations, |m| m.min(self.budget.max_declarations))
            .min(limits::API_MAX_FUNCTION_DECLARATIONS);
        let bytes: usize = usable.iter().map(|&i| self.entries[i].bytes).sum();
        let enabled = self.entries.len();
        if usable.len() <= max && bytes <= self.budget.max_bytes {
            let declarations =
                usable.iter().map(|&i| self.entries[i].declaration.clone()).collect();
            return Selection {
                declarations,
                sent: ToolsSent { enabled, sent: usable.len(), search: false },
            };
        }
        // One slot is search_tools.
        let count = self.budget.pick_declarations.min(max.saturating_sub(1));
        let usable_set: BTreeSet<usize> = usable.iter().copied().collect();
        let mut chosen: Vec<usize> = Vec::new();
        let mut used_bytes = 0;
        let pinned = conversation.pinned.iter().filter_map(|n| self.by_name.get(n).copied());
        for i in pinned.filter(|i| usable_set.contains(i)) {
            if chosen.len() < count && !chosen.contains(&i) {
                chosen.push(i);
                used_bytes += self.entries[i].bytes;
            }
        }
        for i in self.index.ranked(&conversation.query) {
            if chosen.len() >= count {
                break;
            }
            let size = self.entries[i].bytes;
            if usable_set.contains(&i) && !chosen.contains(&i) {
                if used_bytes + size > self.budget.pick_bytes {
                    continue;
                }
                chosen.push(i);
                used_bytes += size;
            }
        }
        chosen.sort_unstable();
        let mut declarations: Vec<FunctionDeclaration> =
            chosen.iter().map(|&i| self.entries[i].declaration.clone()).collect();
        declarations.push(search_declaration(enabled));
        Selection { declarations, sent: ToolsSent { enabled, sent: chosen.len(), search: true } }
    }

    /// The tools matching `query`, best first, at most `search_results` of them.
    pub fn search(&self, query: &str, restriction: &Restriction) -> Vec<&FunctionDeclaration> {
        let mut words = HashMap::new();
        rank::add_to_query(&mut words, query, 1.0);
        self.index
            .ranked(&words)
            .into_iter()
            .map(|i| &self.entries[i].declaration)
            .filter(|d| !restriction.excluded.contains(&d.name))
            .take(self.budget.search_results)
            .collect()
    }

    /// The output of a `search_tools` call with these arguments (the function's error when
    /// there is no query).
    pub fn answer_search(
        &self,
        args: &Map<String, Value>,
        restriction: &Restriction,
    ) -> Result<Value, String> {
        let query = args.get("query").and_then(Value::as_str).unwrap_or("").trim();
        if query.is_empty() {
            return Err("Give `query`: a few words describing the task.".into());
        }
        let found: Vec<FoundTool> = self
            .search(query, restriction)
            .into_iter()
            .map(|d| FoundTool { name: d.name.clone(), description: summary(&d.description) })
            .collect();
        let note = if found.is_empty() {
            "No tool matches; try other words.".to_owned()
        } else {
            "These tools are declared in your next turn: call them directly.".to_owned()
        };
        serde_json::to_value(SearchOutput { found, note }).map_err(|e| e.to_string())
    }

    /// The arguments the MCP tool expects, from those the model wrote (flattened parts parsed
    /// back). Tools not in the catalog pass through.
    pub fn restore_arguments(
        &self,
        function: &str,
        args: Map<String, Value>,
    ) -> Result<Map<String, Value>, BadArgument> {
        match self.plan(function) {
            Some(plan) if !plan.is_empty() => plan.restore(args),
            _ => Ok(args),
        }
    }

    /// After a refusal: the restriction for the retry, and the tools it leaves out of what was
    /// sent. `None` when nothing smaller can be sent.
    pub fn shrink(
        &self,
        refusal: &Refusal,
        sent: &[FunctionDeclaration],
        restriction: &Restriction,
    ) -> Option<Restriction> {
        let sent: Vec<usize> =
            sent.iter().filter_map(|d| self.by_name.get(&d.name).copied()).collect();
        if sent.is_empty() {
            return None;
        }
        let mut next = restriction.clone();
        match refusal {
            Refusal::TooManyDeclarations | Refusal::TooManyStates => {
                if sent.len() <= 1 {
                    return None;
                }
                next.max_declarations = Some(sent.len() / 2);
                if matches!(refusal, Refusal::TooManyStates) {
                    // The largest schema likely holds most of the states.
                    let largest = sent.iter().max_by_key(|&&i| (self.entries[i].bytes, i));
                    next.excluded
                        .extend(largest.map(|&i| self.entries[i].declaration.name.clone()));
                }
            }
            Refusal::TooDeep { function: Some(name) } if self.by_name.contains_key(name) => {
                next.excluded.insert(name.clone());
            }
            Refusal::TooDeep { .. } => {
                let deepest = sent.iter().map(|&i| self.entries[i].depth).max()?;
                next.excluded.extend(
                    sent.iter()
                        .filter(|&&i| self.entries[i].depth == deepest)
                        .map(|&i| self.entries[i].declaration.name.clone()),
                );
            }
        }
        (next != *restriction).then_some(next)
    }
}

fn prepare(declaration: &FunctionDeclaration, max_depth: usize) -> Entry {
    let mut declaration = declaration.clone();
    let mut plan = Plan::default();
    if let Some(schema) = declaration.parameters_json_schema.take() {
        let (flat, flat_plan) = flatten::flatten(&schema, max_depth);
        declaration.parameters_json_schema = Some(flat);
        plan = flat_plan;
    }
    let depth = declaration
        .parameters_json_schema
        .as_ref()
        .or(declaration.parameters.as_ref())
        .map_or(1, flatten::depth);
    let bytes = serde_json::to_string(&declaration).map_or(0, |s| s.len());
    Entry { declaration, plan, bytes, depth }
}

/// The words a tool is found by, weighted by field.
fn document(declaration: &FunctionDeclaration, title: Option<&String>) -> rank::Document {
    let mut doc = rank::Document::default();
    doc.add(&declaration.name, 3.0);
    if let Some(title) = title {
        doc.add(title, 2.0);
    }
    doc.add(&declaration.description, 1.0);
    let schema = declaration.parameters_json_schema.as_ref().or(declaration.parameters.as_ref());
    if let Some(Value::Object(properties)) = schema.and_then(|s| s.get("properties")) {
        for name in properties.keys() {
            doc.add(name, 1.0);
        }
    }
    doc
}

/// The first sentence or 200 characters of a description.
fn summary(description: &str) -> String {
    let first = description.split_terminator(['\n']).next().unwrap_or("").trim();
    let mut out: String = first.chars().take(200).collect();
    if out.len() < first.len() {
        out.push('…');
    }
    out
}

/// The declaration of [`SEARCH_TOOLS`].
pub fn search_declaration(enabled: usize) -> FunctionDeclaration {
    FunctionDeclaration {
        name: SEARCH_TOOLS.into(),
        description: format!(
            "Finds tools. The user enabled {enabled} tools; only some are declared here. When \
             none of the declared functions fits the task, call this with a few keywords (for \
             example \"create calendar event\" or \"list open pull requests\"). The tools found \
             are declared in your next turn: call them then."
        ),
        parameters_json_schema: Some(json!({
            "type": "object",
            "properties": {"query": {
                "type": "string",
                "description": "Keywords for the task, in English."
            }},
            "required": ["query"]
        })),
        parameters: None,
    }
}
