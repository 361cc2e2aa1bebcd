//! The recorded tool corpus (`data/tools/corpus.json`) and the requests written for it
//! (`data/tools/requests.json`), for the budget tests and `cargo xtask bench`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use gemipanel_core::gemini::budget::{Budget, Catalog, Conversation, Restriction};
use gemipanel_core::gemini::{Content, FunctionDeclaration, Tool as GeminiTool};
use gemipanel_core::mcp::Tool;
use gemipanel_core::tools::{ExposedTools, ToolDescriptor};
use indexmap::IndexMap;
use serde::Deserialize;

#[derive(Deserialize)]
pub struct Corpus {
    pub servers: Vec<RecordedServer>,
}

#[derive(Deserialize)]
pub struct RecordedServer {
    pub server: String,
    pub package: String,
    pub version: String,
    pub tools: Vec<Tool>,
}

#[derive(Deserialize)]
struct Requests {
    requests: Vec<Request>,
}

#[derive(Deserialize)]
pub struct Request {
    pub text: String,
    /// `server/tool`: any of them serves the request.
    pub needs: Vec<String>,
}

fn data(file: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/tools").join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

pub fn corpus() -> Corpus {
    serde_json::from_str(&data("corpus.json")).expect("corpus.json")
}

pub fn requests() -> Vec<Request> {
    serde_json::from_str::<Requests>(&data("requests.json")).expect("requests.json").requests
}

/// Every corpus tool, exposed as the side panel exposes a server's tools.
pub fn exposed(corpus: &Corpus) -> ExposedTools {
    let descriptors: Vec<ToolDescriptor> = corpus
        .servers
        .iter()
        .flat_map(|s| s.tools.iter().map(|t| ToolDescriptor::from_mcp(&s.server, &s.server, t)))
        .collect();
    ExposedTools::build(&descriptors, &IndexMap::new())
}

pub fn catalog(exposed: &ExposedTools, budget: Budget) -> Catalog {
    Catalog::new(&exposed.declarations(), &exposed.titles(), budget)
}

/// What one request would carry and what one `search_tools` call with its text would find.
pub struct Outcome {
    pub hit_sent: bool,
    pub hit_search: bool,
    pub request_bytes: usize,
}

pub fn run(exposed: &ExposedTools, catalog: &Catalog, request: &Request) -> Outcome {
    let needed: BTreeSet<&str> = request
        .needs
        .iter()
        .map(|n| {
            let (server, tool) = n.split_once('/').expect("server/tool");
            exposed.function_name(server, tool).unwrap_or_else(|| panic!("no tool {n}"))
        })
        .collect();
    let history = vec![Content::user_text(&request.text)];
    let selection = catalog.select(&Conversation::from_history(&history), &Restriction::default());
    let hit_sent = selection.declarations.iter().any(|d| needed.contains(d.name.as_str()));
    let hit_search = catalog
        .search(&request.text, &Restriction::default())
        .iter()
        .any(|d| needed.contains(d.name.as_str()));
    Outcome { hit_sent, hit_search, request_bytes: tools_bytes(selection.declarations) }
}

/// Bytes of the `tools` member these declarations make.
pub fn tools_bytes(declarations: Vec<FunctionDeclaration>) -> usize {
    serde_json::to_string(&vec![GeminiTool::functions(declarations)]).map_or(0, |s| s.len())
}

/// The packages the corpus was recorded from, with their tool counts.
#[allow(dead_code)]
pub fn packages(corpus: &Corpus) -> BTreeMap<String, usize> {
    corpus.servers.iter().map(|s| (format!("{}@{}", s.package, s.version), s.tools.len())).collect()
}
