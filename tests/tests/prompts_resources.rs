//! Prompts, completion, resource templates, paged resources and resource updates against real
//! servers: server-everything (2025-11-25, stateful: `resources/subscribe`, updates on the
//! session's GET stream) and the stateless 2026-07-28 fixture (updates on
//! `subscriptions/listen`).

use gemipanel_core::mcp::*;
use gemipanel_tests::servers::Kind;
use gemipanel_tests::{NativeHost, TestServer};
use serde_json::{json, Map, Value};
use std::cell::RefCell;
use std::time::{Duration, Instant};

fn client(server: &TestServer) -> Client<NativeHost> {
    Client::new(NativeHost::default(), ServerConfig::new(server.url()))
}

fn args(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

#[derive(Default)]
struct Recorder {
    events: RefCell<Vec<CallEvent>>,
}

impl CallHandler for Recorder {
    fn on_event(&self, event: CallEvent) {
        self.events.borrow_mut().push(event);
    }
}

/// Waits until `seen` says yes, for at most 15 s.
async fn wait_until(what: &str, seen: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(15);
    while !seen() {
        assert!(Instant::now() < deadline, "not seen within 15 s: {what}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

#[tokio::test]
async fn everything_lists_and_gets_prompts_with_arguments() {
    let server = TestServer::start(Kind::Everything);
    let client = client(&server);
    let list = client.list_prompts().await.expect("prompts/list");
    assert!(list.invalid.is_empty(), "{:?}", list.invalid);
    let names: Vec<&str> = list.prompts.iter().map(|p| p.name.as_str()).collect();
    for expected in ["simple-prompt", "args-prompt", "completable-prompt", "resource-prompt"] {
        assert!(names.contains(&expected), "{expected} missing from {names:?}");
    }
    let with_args = list.prompts.iter().find(|p| p.name == "args-prompt").expect("args-prompt");
    assert_eq!(with_args.label(), "Arguments Prompt");
    let required: Vec<(&str, bool)> =
        with_args.arguments.iter().map(|a| (a.name.as_str(), a.required)).collect();
    assert_eq!(required, [("city", true), ("state", false)]);

    let got = client
        .get_prompt("args-prompt", &args(json!({"city": "Kyoto"})), &())
        .await
        .expect("prompts/get");
    assert_eq!(got.messages.len(), 1);
    assert_eq!(got.messages[0].role, Role::User);
    assert_eq!(got.messages[0].content.text(), Some("What's weather in Kyoto?"));

    // A missing required argument is the server's error, said as the server said it.
    let refused = client.get_prompt("args-prompt", &Map::new(), &()).await.expect_err("refused");
    assert!(refused.rpc_error().is_some(), "{refused}");

    // An embedded resource comes as the block the server sent.
    let embedded = client
        .get_prompt(
            "resource-prompt",
            &args(json!({"resourceType": "Text", "resourceId": "2"})),
            &(),
        )
        .await
        .expect("resource-prompt");
    let kinds: Vec<&str> = embedded.messages.iter().map(|m| m.content.kind()).collect();
    assert_eq!(kinds, ["text", "resource"]);
    assert_eq!(embedded.messages[1].content.0["resource"]["uri"], "demo://resource/dynamic/text/2");
}

#[tokio::test]
async fn everything_completes_an_argument_from_the_ones_already_filled() {
    let server = TestServer::start(Kind::Everything);
    let client = client(&server);
    let prompt = CompletionRef::Prompt { name: "completable-prompt".into() };
    let departments = client.complete(&prompt, "department", "", &Map::new()).await.expect("all");
    assert_eq!(departments.values, ["Engineering", "Sales", "Marketing", "Support"]);
    let typed = client.complete(&prompt, "department", "S", &Map::new()).await.expect("typed");
    assert_eq!(typed.values, ["Sales", "Support"]);
    // The second argument depends on the first, sent as `context.arguments`.
    let sales = args(json!({"department": "Sales"}));
    let names = client.complete(&prompt, "name", "", &sales).await.expect("names");
    assert_eq!(names.values, ["David", "Eve", "Frank"]);
    let without = client.complete(&prompt, "name", "", &Map::new()).await.expect("no context");
    assert!(without.values.is_empty(), "{without:?}");

    // A template's variable.
    let templates = client.list_resource_templates().await.expect("templates/list");
    let uris: Vec<&str> = templates.templates.iter().map(|t| t.uri_template.as_str()).collect();
    assert!(uris.contains(&"demo://resource/dynamic/text/{resourceId}"), "{uris:?}");
    let template =
        CompletionRef::Resource { uri: "demo://resource/dynamic/text/{resourceId}".into() };
    let ids = client.complete(&template, "resourceId", "7", &Map::new()).await.expect("ids");
    assert_eq!(ids.values, ["7"]);
    let read = client
        .read_resource("demo://resource/dynamic/text/7", &())
        .await
        .expect("the expanded template reads");
    assert!(read.contents[0].text.as_deref().unwrap_or_default().starts_with("Resource 7"));
}

#[tokio::test]
async fn a_template_of_everything_expands_reads_and_attaches_as_the_at_menu_does() {
    use gemipanel_core::mentions::{attach, expand, variables};
    use gemipanel_core::page::context::Body;
    let server = TestServer::start(Kind::Everything);
    let client = client(&server);
    let templates = client.list_resource_templates().await.expect("templates/list");
    let blob = templates
        .templates
        .iter()
        .find(|t| t.uri_template.starts_with("demo://resource/dynamic/blob/"))
        .expect("the blob template");
    assert_eq!(variables(&blob.uri_template), ["resourceId"]);
    let uri = expand(&blob.uri_template, |_| Some("12"));
    assert_eq!(uri, "demo://resource/dynamic/blob/12");
    let read = client.read_resource(&uri, &()).await.expect("the made URI reads");
    // A base64 blob of text/plain: decoded to text for the model, nothing left out.
    let server_id = gemipanel_core::settings::ServerId::parse("srv_everything").expect("an id");
    let attached = attach(&server_id, "everything", &blob.name, &uri, &read);
    assert_eq!(attached.part.label.server_id.as_ref(), Some(&server_id), "it names its server");
    assert!(attached.notices.is_empty(), "{:?}", attached.notices);
    let Body::Mixed { text, media } = &attached.part.body else { panic!() };
    assert!(text.starts_with("Resource 12: This is a base64 blob"), "{text}");
    assert!(media.is_empty());
}

#[tokio::test]
async fn everything_pages_its_resources_one_page_at_a_time() {
    let server = TestServer::start(Kind::Everything);
    let client = client(&server);
    let mut cursor: Option<String> = None;
    let mut uris = Vec::new();
    for _ in 0..20 {
        let page = client.list_resources_page(cursor.as_deref()).await.expect("resources/list");
        assert_eq!(page.unreadable, 0);
        uris.extend(page.resources.into_iter().map(|r| r.uri));
        cursor = page.next_cursor;
        if cursor.is_none() {
            break;
        }
    }
    assert!(cursor.is_none(), "the list ends");
    assert!(uris.iter().any(|u| u.starts_with("demo://resource/static/document/")), "{uris:?}");
    let all = client.list_resources().await.expect("every page");
    assert_eq!(all.len(), uris.len());
}

#[tokio::test]
async fn everything_announces_a_subscribed_resource_on_the_watched_stream() {
    let server = TestServer::start(Kind::Everything);
    let client = client(&server);
    client.connect().await.expect("connects");
    assert!(client.offers_resource_updates());
    let uri = "demo://resource/dynamic/text/1";
    client.subscribe_resource(uri).await.expect("resources/subscribe");
    let recorder = Recorder::default();
    let stop = CancelToken::new();
    let streams = RefCell::new(0);
    let watching = client.watch(&recorder, &stop, || *streams.borrow_mut() += 1);
    let updated = |r: &Recorder| {
        r.events.borrow().iter().any(|e| *e == CallEvent::ResourceUpdated { uri: uri.into() })
    };
    let driver = async {
        wait_until("the stream opened", || *streams.borrow() == 1).await;
        // The server sends updates every 5 s once asked (and once at once); the tool call
        // itself takes the stream from the watcher and gives it back.
        let toggled = client.call_tool("toggle-subscriber-updates", json!({}), &(), None).await;
        assert!(toggled.expect("toggle").text().starts_with("Started"));
        wait_until("an update outside any request", || updated(&recorder)).await;
        let before = recorder.events.borrow().len();
        // A call in the middle: it reads the stream itself, and the watcher goes on after.
        let echo = client.call_tool("echo", json!({"message": "hi"}), &(), None).await;
        assert_eq!(echo.expect("echo").text(), "Echo: hi");
        wait_until("another update after the call", || recorder.events.borrow().len() > before)
            .await;
        client.unsubscribe_resource(uri).await.expect("resources/unsubscribe");
        stop.cancel();
    };
    let (watched, ()) = tokio::join!(watching, driver);
    watched.expect("stopped, not failed");
    assert_eq!(*streams.borrow(), 1, "one stream, handed back and forth");
}

#[tokio::test]
async fn a_stateless_server_has_no_stream_to_watch_and_subscribes_by_listening() {
    let server = TestServer::start(Kind::Stateless2026);
    let client = client(&server);
    let refused = client.watch(&(), &CancelToken::new(), || {}).await.expect_err("no stream");
    assert!(refused.is_unsupported(), "{refused}");
    let refused = client.subscribe_resource("test://notes").await.expect_err("listen instead");
    assert!(refused.is_unsupported(), "{refused}");

    let wanted = ListenFilter {
        prompts_list_changed: true,
        resource_subscriptions: vec!["test://notes".into(), "test://unknown".into()],
        ..ListenFilter::default()
    };
    let filter = client.listen_filter(&wanted);
    assert_eq!(filter, wanted, "the server advertises both");
    let events = RefCell::new(Vec::new());
    let listening = client.listen(filter, |e| events.borrow_mut().push(e));
    let driver = async {
        wait_until("acknowledged", || {
            events.borrow().iter().any(|e| matches!(e, ListenEvent::Acknowledged(_)))
        })
        .await;
        let other = gemipanel_core::mcp::Client::new(
            NativeHost::default(),
            ServerConfig::new(server.url()),
        );
        let touched = other.call_tool("touch_notes", json!({}), &(), None).await;
        assert_eq!(touched.expect("touch").text(), "notes v2");
        wait_until("the update", || {
            events.borrow().contains(&ListenEvent::ResourceUpdated("test://notes".into()))
        })
        .await;
        other.call_tool("add_prompt", json!({"name": "fresh"}), &(), None).await.expect("add");
        wait_until("the prompt list change", || {
            events.borrow().contains(&ListenEvent::PromptsListChanged)
        })
        .await;
    };
    tokio::select! {
        ended = listening => panic!("the stream ended: {ended:?}"),
        () = driver => {}
    }
    let prompts = client.list_prompts().await.expect("prompts/list");
    assert!(prompts.prompts.iter().any(|p| p.name == "fresh"));
    let notes = client.read_resource("test://notes", &()).await.expect("read");
    assert_eq!(notes.contents[0].text.as_deref(), Some("notes v2"));
}

#[tokio::test]
async fn a_stateless_server_completes_prompts_and_templates_and_returns_every_kind_of_message() {
    let server = TestServer::start(Kind::Stateless2026);
    let client = client(&server);
    let travel = CompletionRef::Prompt { name: "travel".into() };
    let countries = client.complete(&travel, "country", "j", &Map::new()).await.expect("country");
    assert_eq!(countries.values, ["Japan"]);
    let cities = client
        .complete(&travel, "city", "k", &args(json!({"country": "Japan"})))
        .await
        .expect("city");
    assert_eq!(cities.values, ["Kyoto"]);
    let got = client
        .get_prompt("travel", &args(json!({"country": "Japan", "city": "Kyoto"})), &())
        .await
        .expect("prompts/get");
    let shape: Vec<(Role, &str)> =
        got.messages.iter().map(|m| (m.role, m.content.kind())).collect();
    assert_eq!(shape, [(Role::User, "text"), (Role::Assistant, "text"), (Role::User, "resource")]);
    assert_eq!(got.messages[0].content.text(), Some("Plan three days in Kyoto, Japan."));

    let templates = client.list_resource_templates().await.expect("templates");
    let template = templates.templates.iter().find(|t| t.name == "notes by topic").expect("it");
    assert_eq!(template.uri_template, "test://notes/{topic}");
    let topic = CompletionRef::Resource { uri: template.uri_template.clone() };
    let topics = client.complete(&topic, "topic", "t", &Map::new()).await.expect("topics");
    assert_eq!(topics.values, ["tea", "temples", "trains"]);
    let page = client.list_resources_page(None).await.expect("resources/list");
    let uris: Vec<&str> = page.resources.iter().map(|r| r.uri.as_str()).collect();
    assert!(uris.contains(&"test://notes") && uris.contains(&"test://readme"), "{uris:?}");
}
