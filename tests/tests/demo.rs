//! The demo MCP server (`demo/`, on rmcp) as GemiPanel's client sees it: the app tool and its
//! `_meta.ui`, the app's resource (the bundled `App` class), the app-only tool, a plain tool.

use std::path::Path;
use std::process::Command;

use gemipanel_core::apps::resource::app_resource;
use gemipanel_core::mcp::*;
use gemipanel_demo::APP_URI;
use gemipanel_tests::NativeHost;
use serde_json::json;

/// The demo's app bundled as `cargo xtask run` bundles it.
fn bundled_app() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = std::env::temp_dir().join(format!("gemipanel-demo-{}.html", std::process::id()));
    let status = Command::new(root.join("tests/node_modules/.bin/node"))
        .arg(root.join("demo/app/build.mjs"))
        .arg(&out)
        .status()
        .expect("node runs (cargo xtask setup installs it)");
    assert!(status.success(), "demo/app/build.mjs failed");
    let html = std::fs::read_to_string(&out).expect("the bundled app");
    let _ = std::fs::remove_file(&out);
    html
}

#[tokio::test]
async fn the_demo_serves_its_tools_and_app() {
    let (listener, address) = gemipanel_demo::bind(0).await.expect("a loopback port");
    let server = tokio::spawn(gemipanel_demo::serve(listener, bundled_app()));
    let client =
        Client::new(NativeHost::default(), ServerConfig::new(format!("http://{address}/mcp")));

    let tools = client.list_tools().await.expect("tools/list");
    let tool =
        |name: &str| tools.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("{name}"));
    assert_eq!(tool("pick_colour").ui_resource_uri(), Some(APP_URI));
    assert!(tool("pick_colour").is_visible_to(Visibility::Model));
    assert!(tool("set_colour").is_visible_to(Visibility::App));
    assert!(!tool("set_colour").is_visible_to(Visibility::Model), "the app's own tool");
    assert!(tool("roll_dice").ui_resource_uri().is_none());

    let read = client.read_resource(APP_URI, &()).await.expect("resources/read");
    let app = app_resource(APP_URI, read).expect("an MCP App resource");
    assert!(app.html.contains("ui/initialize"), "the official App class is bundled in");
    assert!(app.html.contains("Use this colour"));
    assert_eq!(app.meta.prefers_border, Some(true));

    let picked = client.call_tool("pick_colour", json!({"colour": "teal"}), &(), None).await;
    assert_eq!(picked.expect("pick_colour").structured_content, Some(json!({"colour": "teal"})));
    let saved = client.call_tool("set_colour", json!({"colour": "#ff0000"}), &(), None).await;
    let saved = saved.expect("set_colour").structured_content.expect("structured");
    assert_eq!(saved, json!({"colour": "#ff0000", "saved": true}));
    let rolled = client.call_tool("roll_dice", json!({"count": 3, "sides": 6}), &(), None).await;
    let total =
        rolled.expect("roll_dice").structured_content.expect("structured")["total"].as_u64();
    assert!(total.is_some_and(|t| (3..=18).contains(&t)), "{total:?}");
    let unknown = client.call_tool("no_such_tool", json!({}), &(), None).await;
    assert!(unknown.is_err() || unknown.is_ok_and(|r| r.is_error == Some(true)));
    server.abort();
}
