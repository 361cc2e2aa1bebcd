//! MCP tools as Gemini functions: names, filters, visibility, routing.

use indexmap::IndexMap;

use gemipanel_core::mcp::Tool;
use gemipanel_core::tools::naming::{function_name, sanitize_segment, MAX_NAME_LEN};
use gemipanel_core::tools::{ExposedTools, ToolDescriptor, ToolFilter, ToolRoute};
use serde_json::json;

fn tool(server_id: &str, server_name: &str, name: &str) -> ToolDescriptor {
    ToolDescriptor {
        server_id: server_id.into(),
        server_name: server_name.into(),
        name: name.into(),
        title: None,
        description: format!("{name} of {server_name}"),
        input_schema: json!({"type": "object"}),
        visible_to_model: true,
        visible_to_app: true,
    }
}

#[test]
fn names_are_sanitised() {
    for (server, tool, want) in [
        ("Everything", "echo", "mcp_everything_echo"),
        ("My Server (prod)", "get-sum", "mcp_my_server_prod_get_sum"),
        ("__a..b__", "Tool/Name!!x", "mcp_a_b_tool_name_x"),
        ("日本語", "検索", "mcp_server_tool"),
        ("GitHub", "search_repositories", "mcp_github_search_repositories"),
        ("s", "ÉTÉ été", "mcp_s_t_t"),
    ] {
        assert_eq!(function_name(server, tool), want, "{server} / {tool}");
    }
    assert_eq!(sanitize_segment("--A--B--"), "a_b");
}

#[test]
fn long_names_are_cut_with_a_stable_hash() {
    let long_tool = "a_really_long_tool_name_that_goes_on_and_on_and_on_forever_";
    let a = function_name("server", &format!("{long_tool}1"));
    let b = function_name("server", &format!("{long_tool}2"));
    for name in [&a, &b] {
        assert!(name.len() <= MAX_NAME_LEN && name.len() >= MAX_NAME_LEN - 1, "{name}");
        assert!(name.starts_with("mcp_server_a_really_long"));
        assert!(name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'));
    }
    assert_ne!(a, b);
    assert_eq!(a, function_name("server", &format!("{long_tool}1")), "stable");
    // Exactly 64 characters is not cut.
    let exact = format!("mcp_s_{}", "x".repeat(58));
    assert_eq!(function_name("s", &"x".repeat(58)), exact);
}

#[test]
fn colliding_names_are_disambiguated_independently_of_order() {
    let tools = vec![
        tool("id-1", "My Server", "search"),
        tool("id-2", "my-server", "search"),
        tool("id-3", "Other", "search"),
    ];
    let forward = ExposedTools::build(&tools, &IndexMap::new());
    let mut reversed_input = tools.clone();
    reversed_input.reverse();
    let reversed = ExposedTools::build(&reversed_input, &IndexMap::new());
    assert_eq!(forward, reversed);

    let names: Vec<String> = forward.declarations().into_iter().map(|d| d.name).collect();
    assert_eq!(names.len(), 3);
    assert!(names.contains(&"mcp_other_search".to_owned()), "no collision, no suffix");
    let suffixed: Vec<&String> =
        names.iter().filter(|n| n.starts_with("mcp_my_server_search_")).collect();
    assert_eq!(suffixed.len(), 2);
    assert_ne!(suffixed[0], suffixed[1]);
    for name in &names {
        let route = forward.route(name).unwrap();
        assert_eq!(forward.function_name(&route.server_id, &route.tool_name), Some(name.as_str()));
    }
    assert_eq!(forward.route("mcp_nope"), None);
}

#[test]
fn filters_and_visibility() {
    let mut app_only = tool("s1", "Apps", "refresh");
    app_only.visible_to_model = false;
    let both = tool("s1", "Apps", "show");
    let mut model_only = tool("s1", "Apps", "think");
    model_only.visible_to_app = false;
    let tools = vec![
        app_only.clone(),
        both.clone(),
        model_only.clone(),
        tool("s2", "Files", "read"),
        tool("s2", "Files", "write"),
        tool("s2", "Files", "delete"),
        tool("s3", "Open", "any"),
    ];

    let mut filters = IndexMap::new();
    filters.insert(
        "s2".to_owned(),
        ToolFilter {
            include: Some(vec!["read".into(), "delete".into()]),
            exclude: vec!["delete".into()],
        },
    );
    let exposed = ExposedTools::build(&tools, &filters);
    let names: Vec<String> = exposed.declarations().into_iter().map(|d| d.name).collect();
    assert_eq!(names, ["mcp_apps_show", "mcp_apps_think", "mcp_files_read", "mcp_open_any"]);
    assert_eq!(
        exposed.route("mcp_files_read"),
        Some(&ToolRoute { server_id: "s2".into(), tool_name: "read".into() })
    );
    assert!(ToolFilter::default().allows("anything"));
}

#[test]
fn descriptors_from_tools_list_entries() {
    let entry = json!({
        "name": "get-tiny-image",
        "description": "Returns an image",
        "inputSchema": {"type": "object", "properties": {}},
        "_meta": {"ui": {"visibility": ["app"], "resourceUri": "ui://x"}}
    });
    let read = |entry: serde_json::Value| serde_json::from_value::<Tool>(entry).unwrap();
    let d = ToolDescriptor::from_mcp("id", "Everything", &read(entry));
    assert_eq!(d.name, "get-tiny-image");
    assert!(!d.visible_to_model && d.visible_to_app);
    let bare = ToolDescriptor::from_mcp("id", "x", &read(json!({"name": "t"})));
    assert!(bare.visible_to_model && bare.visible_to_app);
    // An empty list: nobody (the MCP Apps specification's default applies only when absent).
    let hidden = read(json!({"name": "h", "_meta": {"ui": {"visibility": []}}}));
    let hidden = ToolDescriptor::from_mcp("id", "x", &hidden);
    assert!(!hidden.visible_to_model && !hidden.visible_to_app);

    let exposed = ExposedTools::build(&[bare], &IndexMap::new());
    let decl = &exposed.declarations()[0];
    assert_eq!(decl.parameters_json_schema, Some(json!({"type": "object"})));
    assert_eq!(decl.parameters, None);
}

#[test]
fn an_apps_own_tools_are_declared_beside_server_tools_and_routed_to_the_app() {
    let mut exposed = ExposedTools::build(&[tool("s1", "Apps", "show_counter")], &IndexMap::new());
    let listed: Vec<Tool> = serde_json::from_value(json!([
        {"name": "get_selection", "description": "The selected cells.", "inputSchema": {"type": "object", "properties": {}}},
        {"name": "get-selection", "inputSchema": {"type": "object"}},
    ]))
    .unwrap();
    exposed.add_view_tools("call-1", "show_counter of Apps", &listed);
    let declarations = exposed.declarations();
    let names: Vec<&str> = declarations.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names.len(), 3, "{names:?}");
    assert_eq!(names[0], "mcp_apps_show_counter", "the servers' tools first");
    let view_names: Vec<&str> = names.iter().copied().filter(|n| n.starts_with("app_")).collect();
    assert_eq!(view_names.len(), 2, "two names that collide after sanitising stay apart");
    let route = exposed.view_route(view_names[0]).unwrap();
    assert_eq!(route.instance, "call-1");
    assert_eq!(route.label, "show_counter of Apps");
    assert!(exposed.route(view_names[0]).is_none(), "not a server tool");
    assert_eq!(
        exposed.route("mcp_apps_show_counter"),
        Some(&ToolRoute { server_id: "s1".into(), tool_name: "show_counter".into() })
    );
    let described =
        declarations.iter().find(|d| d.description.contains("The selected cells.")).unwrap();
    assert!(described.description.contains("show_counter of Apps"), "{}", described.description);
    assert_eq!(exposed.len(), 3);
    assert!(exposed.titles().contains_key(view_names[0]));
}

/// The browser's tools and a page's are exposed by the same code as a server's: named by
/// their kind, routed back to their source, and kept apart when their names collide.
#[test]
fn browser_and_page_tools_are_named_and_routed_like_server_tools() {
    use gemipanel_core::page::browser_tools::BrowserTool;
    use gemipanel_core::page::webmcp;
    let page_tool = |name: &str| -> gemipanel_core::mcp::Tool {
        serde_json::from_value(
            json!({"name": name, "description": "d", "inputSchema": {"type": "object"}}),
        )
        .unwrap()
    };
    let origin = "https://shop.example";
    let mut descriptors: Vec<ToolDescriptor> =
        BrowserTool::ALL.iter().map(|t| t.descriptor()).collect();
    descriptors.push(webmcp::descriptor(origin, &page_tool("add.to.cart")));
    descriptors.push(webmcp::descriptor(origin, &page_tool("add-to-cart")));
    descriptors.push(ToolDescriptor::from_mcp("srv_1", "shop example", &page_tool("read_page")));
    let exposed = ExposedTools::build(&descriptors, &IndexMap::new());
    let names: Vec<&str> = exposed.iter().map(|(name, _)| name).collect();
    assert!(names.contains(&"browser_read_page") && names.contains(&"mcp_shop_example_read_page"));
    let route = exposed.route("browser_read_page").unwrap();
    assert_eq!((route.server_id.as_str(), route.tool_name.as_str()), ("browser", "read_page"));
    // Two page tools whose names meet after sanitising both get a hash suffix.
    let page_names: Vec<&str> = names.iter().copied().filter(|n| n.starts_with("page_")).collect();
    assert_eq!(page_names.len(), 2, "{names:?}");
    assert!(
        page_names.iter().all(|n| n.starts_with("page_shop_example_add_to_cart_")),
        "{page_names:?}"
    );
    for name in page_names {
        assert_eq!(exposed.route(name).unwrap().server_id, "page:https://shop.example");
    }
    // A filter turns a browser tool off as it does a server's.
    let filters: IndexMap<String, ToolFilter> =
        [("browser".to_owned(), ToolFilter { include: None, exclude: vec!["screenshot".into()] })]
            .into_iter()
            .collect();
    let filtered = ExposedTools::build(&descriptors, &filters);
    assert!(filtered.route("browser_screenshot").is_none());
    assert!(filtered.route("browser_read_page").is_some());
}
