//! The tool budget against 456 real tool definitions of 21 published MCP servers
//! (`data/tools/corpus.json`) and 100 requests written for them (`data/tools/requests.json`).

#[path = "support/tool_corpus.rs"]
mod tool_corpus;

use gemipanel_core::gemini::budget::flatten::{depth, flatten};
use gemipanel_core::gemini::budget::limits::{
    API_MAX_ARRAY_BOUNDS_SUM, API_MAX_FUNCTION_DECLARATIONS, API_MAX_SCHEMA_DEPTH,
};
use gemipanel_core::gemini::budget::{
    Budget, Catalog, Conversation, Refusal, Restriction, SEARCH_TOOLS,
};
use gemipanel_core::gemini::{Action, Chat, ChatConfig, Content};
use serde_json::{json, Map, Value};

use tool_corpus::{catalog, corpus, exposed, requests, run};

#[test]
fn the_corpus_holds_over_300_tools_of_recorded_packages() {
    let corpus = corpus();
    let tools: usize = corpus.servers.iter().map(|s| s.tools.len()).sum();
    assert!(tools >= 300, "{tools} tools");
    for server in &corpus.servers {
        assert!(!server.package.is_empty() && !server.version.is_empty(), "{}", server.server);
    }
    assert!(tool_corpus::packages(&corpus).len() >= 20);
}

#[test]
fn recall_is_at_least_95_percent() {
    let corpus = corpus();
    let exposed = exposed(&corpus);
    let catalog = catalog(&exposed, Budget::default());
    let requests = requests();
    assert_eq!(requests.len(), 100);
    let mut missed = Vec::new();
    let mut sizes = Vec::new();
    for request in &requests {
        let outcome = run(&exposed, &catalog, request);
        if !outcome.hit_sent && !outcome.hit_search {
            missed.push(request.text.as_str());
        }
        sizes.push(outcome.request_bytes);
    }
    let recall = 100 * (requests.len() - missed.len()) / requests.len();
    assert!(recall >= 95, "recall {recall} %, missed:\n{}", missed.join("\n"));
    sizes.sort_unstable();
    let every_tool = tool_corpus::tools_bytes(catalog.declarations().cloned().collect());
    let median = sizes[sizes.len() / 2];
    assert!(median * 5 < every_tool, "median request {median} B against {every_tool} B");
}

#[test]
fn every_request_stays_within_the_api_limits() {
    let corpus = corpus();
    let exposed = exposed(&corpus);
    let budget = Budget::default();
    let catalog = catalog(&exposed, budget);
    assert!(catalog.len() > budget.max_declarations, "the corpus must not fit the budget");
    for request in requests() {
        let history = vec![Content::user_text(&request.text)];
        let selection =
            catalog.select(&Conversation::from_history(&history), &Restriction::default());
        assert!(selection.declarations.len() <= API_MAX_FUNCTION_DECLARATIONS);
        assert!(selection.declarations.len() <= budget.pick_declarations + 1);
        assert!(selection.sent.search, "{}", request.text);
        assert_eq!(selection.sent.enabled, catalog.len());
        assert_eq!(selection.sent.sent + 1, selection.declarations.len());
        assert_eq!(selection.declarations.last().map(|d| d.name.as_str()), Some(SEARCH_TOOLS));
        for declaration in &selection.declarations {
            let schema = declaration.parameters_json_schema.as_ref().expect("JSON schema");
            assert!(depth(schema) <= API_MAX_SCHEMA_DEPTH, "{}", declaration.name);
        }
    }
}

#[test]
fn every_corpus_schema_is_flattened_to_the_accepted_depth() {
    let corpus = corpus();
    let exposed = exposed(&corpus);
    let catalog = catalog(&exposed, Budget::default());
    let mut flattened = 0;
    for declaration in catalog.declarations() {
        let schema = declaration.parameters_json_schema.as_ref().expect("JSON schema");
        assert!(depth(schema) <= API_MAX_SCHEMA_DEPTH, "{}", declaration.name);
        if catalog.plan(&declaration.name).is_some_and(|p| !p.is_empty()) {
            flattened += 1;
        }
    }
    // The deep ones the issue names are among them.
    for name in ["mcp_gitlab_create_merge_request_thread", "mcp_notion_api_patch_block_children"] {
        assert!(catalog.plan(name).is_some_and(|p| !p.is_empty()), "{name}");
    }
    assert!(flattened >= 10, "{flattened}");
}

#[test]
fn a_flattened_argument_is_parsed_back_into_what_the_tool_expects() {
    let corpus = corpus();
    let exposed = exposed(&corpus);
    let catalog = catalog(&exposed, Budget::default());
    let name = "mcp_gitlab_create_merge_request_thread";
    let plan = catalog.plan(name).expect("in the catalog");
    let line_range = json!({"start": {"line_code": "a_1_1", "type": "new"},
                            "end": {"line_code": "a_2_2", "type": "new"}});
    let mut position = Map::new();
    let mut args = Map::new();
    for path in plan.describe() {
        // The model writes every flattened part as JSON text.
        match path.as_str() {
            "position.line_range" => {
                position.insert("line_range".into(), Value::String(line_range.to_string()));
            }
            other => panic!("unexpected flattened path {other}"),
        }
    }
    position.insert("base_sha".into(), json!("abc"));
    args.insert("position".into(), Value::Object(position));
    args.insert("body".into(), json!("Nit"));
    let restored = catalog.restore_arguments(name, args).expect("valid JSON");
    assert_eq!(restored["position"]["line_range"], line_range);
    assert_eq!(restored["position"]["base_sha"], json!("abc"));

    let mut bad = Map::new();
    bad.insert("position".into(), json!({"line_range": "{start: 1"}));
    let error = catalog.restore_arguments(name, bad).expect_err("not JSON");
    assert_eq!(error.path, "position.line_range");
    assert!(error.to_string().contains("position.line_range"), "{error}");
}

#[test]
fn flattening_cases() {
    let cases: Value = serde_json::from_str(include_str!("data/tools/flatten_cases.json")).unwrap();
    for case in cases.as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let max = case["max_depth"].as_u64().unwrap() as usize;
        let (flat, plan) = flatten(&case["schema"], max);
        assert!(depth(&flat) <= max.max(2), "{name}: depth {}", depth(&flat));
        if let Some(want) = case.get("flat") {
            assert_eq!(&flat, want, "{name}");
        }
        let paths: Vec<Value> = plan.describe().into_iter().map(Value::String).collect();
        assert_eq!(Value::Array(paths), case["flattened"], "{name}");
        let args = case["args"].as_object().unwrap().clone();
        let restored = plan.restore(args).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(Value::Object(restored), case["restored"], "{name}");
    }
}

#[test]
fn selection_is_deterministic_and_keeps_recent_tools() {
    let corpus = corpus();
    let exposed = exposed(&corpus);
    let catalog = catalog(&exposed, Budget::default());
    let history = vec![
        Content::user_text("Post the release notes to Slack"),
        serde_json::from_value(json!({"role": "model", "parts": [
            {"functionCall": {"name": "mcp_slack_slack_post_message", "args": {}}}]}))
        .unwrap(),
        serde_json::from_value(json!({"role": "user", "parts": [
            {"functionResponse": {"name": "mcp_slack_slack_post_message",
                                  "response": {"output": "ok"}}}]}))
        .unwrap(),
        Content::user_text("Now show me the git status of my repository"),
    ];
    let conversation = Conversation::from_history(&history);
    let first = catalog.select(&conversation, &Restriction::default());
    let second = catalog.select(&Conversation::from_history(&history), &Restriction::default());
    assert_eq!(first, second);
    let names: Vec<&str> = first.declarations.iter().map(|d| d.name.as_str()).collect();
    assert!(names.contains(&"mcp_slack_slack_post_message"), "{names:?}");
    assert!(names.contains(&"mcp_git_git_status"), "{names:?}");
    // Name order, search_tools last.
    let mut sorted = names[..names.len() - 1].to_vec();
    sorted.sort_unstable();
    assert_eq!(&names[..names.len() - 1], sorted.as_slice());
}

#[test]
fn tools_found_by_search_are_declared_next_and_marked() {
    let corpus = corpus();
    let exposed = exposed(&corpus);
    let catalog = catalog(&exposed, Budget::default());
    let mut args = Map::new();
    args.insert("query".into(), json!("airtable upload attachment"));
    let output = catalog.answer_search(&args, &Restriction::default()).expect("a query");
    let history = vec![
        Content::user_text("hello"),
        serde_json::from_value(json!({"role": "model", "parts": [
            {"functionCall": {"name": SEARCH_TOOLS, "args": args}}]}))
        .unwrap(),
        serde_json::from_value(json!({"role": "user", "parts": [
            {"functionResponse": {"name": SEARCH_TOOLS, "response": {"output": output}}}]}))
        .unwrap(),
    ];
    let conversation = Conversation::from_history(&history);
    assert!(conversation.found_by_search("mcp_airtable_upload_attachment"));
    let selection = catalog.select(&conversation, &Restriction::default());
    assert!(selection.declarations.iter().any(|d| d.name == "mcp_airtable_upload_attachment"));
    assert!(catalog.answer_search(&Map::new(), &Restriction::default()).is_err());
}

#[test]
fn tools_that_fit_are_all_sent_without_search() {
    let corpus = corpus();
    let exposed = exposed(&corpus);
    let small: Vec<_> = exposed
        .iter()
        .filter(|(name, _)| name.starts_with("mcp_github_"))
        .map(|(_, t)| t.declaration.clone())
        .collect();
    let catalog = Catalog::new(&small, &Default::default(), Budget::default());
    let selection = catalog.select(&Conversation::default(), &Restriction::default());
    assert_eq!(selection.declarations.len(), small.len());
    assert!(!selection.sent.search);
    assert_eq!((selection.sent.enabled, selection.sent.sent), (small.len(), small.len()));
}

#[test]
fn a_refusal_shrinks_what_is_sent() {
    let corpus = corpus();
    let exposed = exposed(&corpus);
    let catalog = catalog(&exposed, Budget::default());
    let history = vec![Content::user_text("create a merge request thread on GitLab")];
    let conversation = Conversation::from_history(&history);
    let none = Restriction::default();
    let sent = catalog.select(&conversation, &none).declarations;

    let fewer = catalog.shrink(&Refusal::TooManyDeclarations, &sent, &none).expect("smaller");
    let next = catalog.select(&conversation, &fewer);
    assert!(next.declarations.len() < sent.len(), "{} !< {}", next.declarations.len(), sent.len());

    let deep = Refusal::TooDeep { function: Some("mcp_gitlab_create_merge_request_thread".into()) };
    let without = catalog.shrink(&deep, &sent, &none).expect("smaller");
    assert!(without.excluded.contains("mcp_gitlab_create_merge_request_thread"));
    let next = catalog.select(&conversation, &without);
    assert!(!next.declarations.iter().any(|d| d.name == "mcp_gitlab_create_merge_request_thread"));

    let states = catalog.shrink(&Refusal::TooManyStates, &sent, &none).expect("smaller");
    assert_eq!(states.excluded.len(), 1);
    assert!(catalog.shrink(&Refusal::TooManyDeclarations, &[], &none).is_none());
}

#[test]
fn the_fake_gemini_server_enforces_these_limits() {
    let path =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/gemini/limits.json");
    let limits: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(limits["maxFunctionDeclarations"], API_MAX_FUNCTION_DECLARATIONS);
    assert_eq!(limits["maxSchemaDepth"], API_MAX_SCHEMA_DEPTH);
    assert_eq!(limits["maxArrayBoundsSum"], API_MAX_ARRAY_BOUNDS_SUM);
}

/// The request the chat sends with every corpus tool enabled; the Node test sends its tools to
/// the fake Gemini server through the official SDK (tests/e2e-node/fake-gemini.test.mjs).
#[test]
fn the_budgeted_request_fixture_is_what_the_chat_sends() {
    let corpus = corpus();
    let exposed = exposed(&corpus);
    let mut config = ChatConfig::new("gemini-3.8-flash");
    config.declarations = exposed.declarations();
    config.titles = exposed.titles();
    let mut chat = Chat::new(config, Vec::new());
    chat.send_text("Start a discussion thread on line 40 of src/main.rs in GitLab MR 7").unwrap();
    let Some(Action::Send(request)) = chat.poll_action() else { panic!("a request") };
    assert!(request.tools.search);
    let names: Vec<&str> =
        request.body.tools[0].function_declarations.iter().map(|d| d.name.as_str()).collect();
    assert!(names.contains(&"mcp_gitlab_create_merge_request_thread"), "{names:?}");
    let actual = serde_json::to_value(&request.body).unwrap();
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/tools/budgeted_request.json");
    if std::env::var_os("UPDATE_FIXTURES").is_some() {
        std::fs::write(&path, serde_json::to_string_pretty(&actual).unwrap() + "\n").unwrap();
    }
    let expected: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        actual, expected,
        "run with UPDATE_FIXTURES=1 to regenerate after a deliberate change"
    );
}

#[test]
fn an_apps_own_tools_take_their_place_in_the_budget() {
    let corpus = corpus();
    let mut exposed = exposed(&corpus);
    let tool: gemipanel_core::mcp::Tool = serde_json::from_value(json!({
        "name": "get_selection",
        "description": "Returns the cells selected in the spreadsheet view.",
        "inputSchema": {"type": "object"}
    }))
    .unwrap();
    exposed.add_view_tools("call-7", "show_sheet of Sheets", &[tool]);
    let catalog = catalog(&exposed, Budget::default());
    let history = vec![Content::user_text("Which cells are selected in the spreadsheet?")];
    let selection = catalog.select(&Conversation::from_history(&history), &Restriction::default());
    let names: Vec<&str> = selection.declarations.iter().map(|d| d.name.as_str()).collect();
    assert!(selection.sent.search, "the corpus does not fit: the budget chose");
    assert!(selection.declarations.len() <= Budget::default().max_declarations);
    let view = gemipanel_core::tools::view::function_name("call-7", "get_selection");
    assert!(names.contains(&view.as_str()), "{names:?}");
    // Asked about something else, it may stay undeclared like any other tool.
    let other = vec![Content::user_text("Post the release notes to Slack")];
    let selection = catalog.select(&Conversation::from_history(&other), &Restriction::default());
    assert!(selection.declarations.iter().all(|d| d.name != view));
}
