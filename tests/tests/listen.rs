//! Change notifications and caching hints of protocol 2026-07-28 against the v2 SDK fixture:
//! `subscriptions/listen` and the `ttlMs` of `tools/list`.

use gemipanel_core::mcp::*;
use gemipanel_tests::servers::Kind;
use gemipanel_tests::{NativeHost, TestServer};
use serde_json::json;
use std::cell::RefCell;
use std::future::Future;
use std::time::{Duration, Instant};

fn client(server: &TestServer) -> Client<NativeHost> {
    Client::new(NativeHost::default(), ServerConfig::new(server.url()))
}

const TOOLS_AND_RESOURCES: ListenFilter = ListenFilter {
    tools_list_changed: true,
    prompts_list_changed: false,
    resources_list_changed: true,
    resource_subscriptions: Vec::new(),
};
const TOOLS_ONLY: ListenFilter = ListenFilter {
    tools_list_changed: true,
    prompts_list_changed: false,
    resources_list_changed: false,
    resource_subscriptions: Vec::new(),
};

/// Runs `listening` beside `driver`; returns the listen outcome when it ends first, `None` when
/// the driver finished first (then the stream is dropped, which cancels it).
async fn beside<L: Future, D: Future<Output = ()>>(listening: L, driver: D) -> Option<L::Output> {
    tokio::select! {
        outcome = listening => Some(outcome),
        () = driver => None,
    }
}

/// Waits until `events` holds `wanted`, for at most 10 s.
async fn wait_for(events: &RefCell<Vec<ListenEvent>>, wanted: impl Fn(&ListenEvent) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !events.borrow().iter().any(&wanted) {
        assert!(Instant::now() < deadline, "not seen; events: {:?}", events.borrow());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn is_ack(event: &ListenEvent) -> bool {
    matches!(event, ListenEvent::Acknowledged(_))
}

#[tokio::test]
async fn tools_list_results_carry_their_ttl() {
    let server = TestServer::start(Kind::Stateless2026);
    let modern = client(&server);
    let gemipanel_core::mcp::ToolList { tools, freshness, .. } =
        modern.list_tools_cacheable().await.expect("tools/list");
    assert!(tools.iter().any(|t| t.name == "echo"));
    assert_eq!(freshness, Freshness::TtlMs(60_000));
    assert!(modern.may_announce_changes(), "tools.listChanged is advertised");

    // Handshake era: no hint, and no subscriptions (its changes come on reply streams).
    let old = TestServer::start(Kind::SdkJson);
    let old_client = client(&old);
    let freshness = old_client.list_tools_cacheable().await.expect("tools/list").freshness;
    assert_eq!(freshness, Freshness::UntilChanged);
    assert!(!old_client.may_announce_changes());
    let refused = old_client.listen(TOOLS_ONLY, |_| {}).await.expect_err("not supported");
    assert!(refused.is_unsupported(), "{refused}");
    assert!(refused.to_string().contains("subscriptions/listen"), "{refused}");
}

#[tokio::test]
async fn a_tool_added_elsewhere_is_announced_on_the_listen_stream() {
    let server = TestServer::start(Kind::Stateless2026);
    let listener = client(&server);
    let events = RefCell::new(Vec::new());
    let driver = async {
        wait_for(&events, is_ack).await;
        // Another client changes the tool list; this one makes no request meanwhile.
        let other = client(&server);
        let added = other.call_tool("add_tool", json!({"name": "fresh"}), &(), None).await;
        assert_eq!(added.expect("add_tool").text(), "added fresh");
        wait_for(&events, |e| *e == ListenEvent::ToolsListChanged).await;
    };
    let listening = listener.listen(TOOLS_AND_RESOURCES, |e| events.borrow_mut().push(e));
    let ended = beside(listening, driver).await;
    assert!(ended.is_none(), "the stream stayed open: {ended:?}");
    // The server honours a subset: it never announces resource list changes.
    assert_eq!(
        events.borrow().as_slice(),
        [ListenEvent::Acknowledged(TOOLS_ONLY), ListenEvent::ToolsListChanged]
    );
    let tools = listener.list_tools().await.expect("tools/list");
    assert!(
        tools.iter().any(|t| t.name == "fresh"),
        "{:?}",
        tools.iter().map(|t| &t.name).collect::<Vec<_>>()
    );
}

#[tokio::test]
async fn the_server_can_end_a_subscription_gracefully() {
    let server = TestServer::start(Kind::Stateless2026);
    let listener = client(&server);
    let events = RefCell::new(Vec::new());
    let driver = async {
        wait_for(&events, is_ack).await;
        let other = client(&server);
        other.call_tool("close_subscriptions", json!({}), &(), None).await.expect("close");
        std::future::pending::<()>().await;
    };
    let listening = listener.listen(TOOLS_ONLY, |e| events.borrow_mut().push(e));
    let ended = tokio::time::timeout(Duration::from_secs(10), beside(listening, driver)).await;
    let ended = ended.expect("ended within 10 s").expect("the listen future ended");
    assert_eq!(ended.expect("no error"), ListenEnd::Completed);
}

#[tokio::test]
async fn a_dropped_stream_is_reported_and_reopened_once_the_server_is_back() {
    let mut server = TestServer::start(Kind::Stateless2026);
    let listener = client(&server);

    // One subscription: the server dies under it.
    let events = RefCell::new(Vec::new());
    let listening = listener.listen(TOOLS_ONLY, |e| events.borrow_mut().push(e));
    let driver = async {
        wait_for(&events, is_ack).await;
        std::future::pending::<()>().await;
    };
    let ended = {
        let mut listening = std::pin::pin!(beside(listening, driver));
        let early = tokio::time::timeout(Duration::from_secs(5), listening.as_mut()).await;
        assert!(early.is_err(), "ended before the kill: {early:?}");
        server.kill();
        tokio::time::timeout(Duration::from_secs(10), listening).await.expect("noticed the drop")
    };
    assert_eq!(ended.expect("listen ended").expect("no error"), ListenEnd::Dropped);

    // Kept open: reopened after the restart, which says changes may have been missed.
    server.restart();
    let events = RefCell::new(Vec::new());
    let stop = CancelToken::new();
    let started = Instant::now();
    let now_ms = || started.elapsed().as_millis() as u64;
    let driver = async {
        wait_for(&events, is_ack).await;
        server.kill();
        tokio::time::sleep(Duration::from_millis(300)).await;
        server.restart();
        wait_for(&events, |e| matches!(e, ListenEvent::Reopened(_))).await;
        stop.cancel();
        std::future::pending::<()>().await;
    };
    let keeping =
        listener.keep_listening(TOOLS_ONLY, |e| events.borrow_mut().push(e), &stop, now_ms);
    let ended = tokio::time::timeout(Duration::from_secs(20), beside(keeping, driver)).await;
    let ended = ended.expect("stopped within 20 s").expect("keep_listening ended");
    assert!(ended.is_ok(), "{ended:?}");
    assert_eq!(
        events.borrow().as_slice(),
        [ListenEvent::Acknowledged(TOOLS_ONLY), ListenEvent::Reopened(TOOLS_ONLY)]
    );
}
