use super::*;

// What the single `state.rs` file had in scope; the tests themselves are unchanged.
use super::turn::{title_from, TITLE_CHARS};
use gemipanel_core::apps::resource::AppResource;
use gemipanel_core::chats::activity::Activity;
use gemipanel_core::gemini::{Part, Sources, ThinkingChoice, Turn, TurnUsage};
use gemipanel_core::mcp::CallToolResult;
use gemipanel_core::page::tab::Tab;
use gemipanel_core::settings::{ListedModels, Secret};

mod worker;

fn status(uptime_ms: u64) -> WorkerStatus {
    WorkerStatus {
        extension_version: "0.1.0".into(),
        uptime_ms,
        configured_servers: 1,
        vault: Default::default(),
    }
}

fn run_from(state: State, actions: Vec<Action>) -> State {
    actions.into_iter().fold(state, |s, a| reduce(&s, a))
}

fn run(actions: Vec<Action>) -> State {
    run_from(State::default(), actions)
}

fn sent(text: &str) -> Action {
    Action::UserSent { text: text.into(), now_ms: 1 }
}

#[test]
fn deltas_grow_one_reply_until_the_turn_ends() {
    let state = run(vec![
        sent("Hi"),
        Action::TextDelta("Hello ".into()),
        Action::TextDelta("there".into()),
    ]);
    assert!(state.chat.busy);
    assert_eq!(state.chat.title, "Hi");
    assert_eq!(state.chat.entries.len(), 2);
    let Entry::Model(reply) = &*state.chat.entries[1] else { panic!() };
    assert_eq!(reply.doc.text(), "Hello there");
    assert!(reply.streaming);
    let done = reduce(&state, Action::TurnOver { history: Rc::default(), now_ms: 9 });
    assert!(!done.chat.busy);
    assert_eq!(done.chat.save_epoch, state.chat.save_epoch + 1);
    let Entry::Model(reply) = &*done.chat.entries[1] else { panic!() };
    assert!(!reply.streaming && !reply.incomplete);
}

/// An app of `ui://a` on server `s1`, its resource not read yet.
fn app_card() -> AppCard {
    AppCard::unread("s1".into(), "ui://a".into(), Rc::default(), Default::default())
}

#[test]
fn an_app_that_arrives_after_the_turn_is_saved_with_the_chat() {
    let mut card = ToolCard::asked("call-1", "s1", "Apps", "show", "{}".into(), None, false);
    card.app = Some(app_card());
    let state = run(vec![
        sent("show"),
        Action::ToolAsked(card),
        Action::TurnOver { history: Rc::default(), now_ms: 9 },
    ]);
    let resource =
        AppResource { uri: "ui://a".into(), html: "<p>app".into(), ..Default::default() };
    let loaded =
        reduce(&state, Action::AppLoaded { call_id: "call-1".into(), resource: Rc::new(resource) });
    assert_eq!(loaded.chat.save_epoch, state.chat.save_epoch + 1);
    let failed =
        reduce(&state, Action::AppFailed { call_id: "call-1".into(), error: "gone".into() });
    assert_eq!(failed.chat.save_epoch, state.chat.save_epoch + 1);
    // During a turn, the save at its end takes it along.
    let busy = run(vec![sent("show")]);
    let during =
        reduce(&busy, Action::AppFailed { call_id: "call-1".into(), error: "gone".into() });
    assert_eq!(during.chat.save_epoch, busy.chat.save_epoch);
}

#[test]
fn a_rename_of_the_open_chat_is_kept_by_its_next_save() {
    let state = run(vec![sent("hello"), Action::TurnOver { history: Rc::default(), now_ms: 9 }]);
    let id = state.chat.id.clone();
    let other = reduce(
        &state,
        Action::ChatRenamed { id: "another".into(), title: "Other".into(), revision: 9 },
    );
    assert_eq!((&other.chat.title, other.chat.revision), (&state.chat.title, state.chat.revision));
    let renamed =
        reduce(&state, Action::ChatRenamed { id, title: "Kyoto trip".into(), revision: 9 });
    let saved = renamed.chat.to_saved();
    assert_eq!((saved.title.as_str(), saved.revision), ("Kyoto trip", 9));
}

#[test]
fn the_same_app_loaded_twice_is_one_copy() {
    let card = |id: &str| {
        let mut card = ToolCard::asked(id, "s1", "Apps", "show", "{}".into(), None, false);
        card.app = Some(app_card());
        Action::ToolAsked(card)
    };
    let resource =
        || AppResource { uri: "ui://a".into(), html: "<p>app".into(), ..Default::default() };
    let loaded = |id: &str| Action::AppLoaded { call_id: id.into(), resource: Rc::new(resource()) };
    let state =
        run(vec![sent("show"), card("call-1"), card("call-2"), loaded("call-1"), loaded("call-2")]);
    let resources = crate::transcript::app_resources(state.chat.entries.iter().map(|e| &**e));
    assert_eq!(resources.len(), 2);
    assert!(Rc::ptr_eq(&resources[0], &resources[1]));
}

#[test]
fn a_result_after_the_person_stopped_the_call_is_not_the_apps() {
    let mut card = ToolCard::asked("call-1", "s1", "Apps", "show", "{}".into(), None, true);
    card.status = ToolStatus::Running;
    card.app = Some(app_card());
    let late: CallToolResult = serde_json::from_value(serde_json::json!({"content": []})).unwrap();
    let state = run(vec![
        sent("show"),
        Action::ToolAsked(card),
        Action::ToolCancelled { call_id: "call-1".into() },
        Action::AppResult { call_id: "call-1".into(), result: Rc::new(late) },
    ]);
    let app = state.chat.tool("call-1").and_then(|c| c.app.clone()).unwrap();
    assert!(app.cancelled);
    assert!(app.result.is_none());
}

#[test]
fn a_chunk_shares_every_earlier_entry() {
    let state = run(vec![sent("a"), Action::TextDelta("x".into())]);
    let next = reduce(&state, Action::TextDelta("y".into()));
    assert!(Rc::ptr_eq(&state.chat.entries[0], &next.chat.entries[0]));
}

#[test]
fn text_after_a_tool_call_starts_a_new_reply() {
    let card = ToolCard::asked("call-1", "s1", "Everything", "echo", "{}".into(), None, false);
    let state = run(vec![
        sent("echo"),
        Action::TextDelta("Let me check.".into()),
        Action::ModelTurnEnded { incomplete: false },
        Action::ToolAsked(card),
        Action::ToolStarted { call_id: "call-1".into(), now_ms: 100 },
        Action::ToolFinished {
            call_id: "call-1".into(),
            result: "Echo: hi".into(),
            is_error: false,
            now_ms: 350,
        },
        Action::TextDelta("Done.".into()),
    ]);
    let kinds: Vec<_> = state.chat.entries.iter().map(|e| e.kind()).collect();
    assert_eq!(kinds, ["user", "model", "tool", "model"]);
    let Entry::Tool(card) = &*state.chat.entries[2] else { panic!() };
    assert_eq!(card.status, ToolStatus::Done);
    assert_eq!(card.duration_ms, Some(250));
    assert_eq!(card.result.as_deref(), Some("Echo: hi"));
}

#[test]
fn the_activity_keeps_each_finished_call_and_what_a_message_carried_and_is_saved() {
    use gemipanel_core::chats::activity::{Asker, Outcome};
    use gemipanel_core::page::context::ContextKind;
    let card = ToolCard::asked("call-1", "s1", "Everything", "echo", "{}".into(), None, false);
    let denied = ToolCard::asked("call-2", "s1", "Everything", "add", "{}".into(), None, false);
    let page = ContextLabel {
        kind: ContextKind::Page,
        title: "Kyoto".into(),
        url: "https://kyoto.example/".into(),
        server_id: None,
    };
    let state = run(vec![
        sent("echo"),
        Action::UserContext(vec![page.clone()]),
        Action::ToolAsked(card),
        Action::ToolStarted { call_id: "call-1".into(), now_ms: 100 },
    ]);
    // A call still running is not in the record yet.
    assert_eq!(state.chat.activity.len(), 1);
    let state = run_from(
        state.clone(),
        vec![
            Action::ToolFinished {
                call_id: "call-1".into(),
                result: "Echo: hi".into(),
                is_error: false,
                now_ms: 350,
            },
            Action::ToolAsked(denied),
            Action::ToolDenied { call_id: "call-2".into() },
        ],
    );
    let kinds: Vec<_> = state
        .chat
        .activity
        .iter()
        .map(|a| match a {
            Activity::Sent(sent) => format!("sent {}", sent.sent[0].title),
            Activity::Tool(call) => {
                format!("{} {:?} {:?} {:?}", call.tool, call.asker, call.outcome, call.result_bytes)
            }
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "sent Kyoto".to_owned(),
            format!("echo {:?} {:?} Some(8)", Asker::Model, Outcome::Done),
            format!("add {:?} {:?} None", Asker::Model, Outcome::Denied),
        ]
    );
    // Kept with the chat, and read back.
    let saved = state.chat.to_saved();
    assert_eq!(saved.activity.len(), 3);
    let reopened = reduce(&State::default(), Action::ChatOpened(Box::new(saved)));
    assert_eq!(reopened.chat.activity, state.chat.activity);
    // A new version of the message does not take its record away.
    let branched = reduce(&reopened, Action::Branch { at: 0 });
    assert_eq!(branched.chat.activity.len(), 3);
    // A call between turns (the person's, an app's) is saved at once.
    let mut by_person = Activity::of_card(
        &ToolCard::asked("c3", "s1", "Everything", "echo", "{}".into(), None, true),
        400,
    );
    assert!(by_person.is_none(), "a card still waiting is no record");
    let mut card = ToolCard::asked("c3", "s1", "Everything", "echo", "{}".into(), None, true);
    card.status = ToolStatus::Done;
    by_person = Activity::of_card(&card, 400);
    let idle = reduce(&reopened, Action::Activity(by_person.unwrap()));
    assert_eq!(idle.chat.activity.len(), 4);
    assert_eq!(idle.chat.save_epoch, reopened.chat.save_epoch + 1);
    let shown = reduce(&branched, Action::ShowActivity(true));
    assert_eq!(shown.view, View::Activity);
}

#[test]
fn a_cut_reply_is_marked_incomplete_and_keeps_its_text() {
    let state = run(vec![
        sent("a"),
        Action::TextDelta("partial".into()),
        Action::ModelTurnEnded { incomplete: true },
        Action::Notice("The reply was cut short and is incomplete.".into()),
    ]);
    let Entry::Model(reply) = &*state.chat.entries[1] else { panic!() };
    assert!(reply.incomplete);
    assert_eq!(reply.doc.text(), "partial");
}

#[test]
fn cancelling_leaves_finished_calls_alone() {
    let mut card = ToolCard::asked("c", "s", "S", "t", "{}".into(), None, false);
    card.status = ToolStatus::Done;
    let state = run(vec![Action::ToolAsked(card), Action::ToolCancelled { call_id: "c".into() }]);
    let Entry::Tool(card) = &*state.chat.entries[0] else { panic!() };
    assert_eq!(card.status, ToolStatus::Done);
}

#[test]
fn toggling_a_server_starts_from_the_defaults() {
    let mut settings = Settings::default();
    let a = gemipanel_core::settings::ServerId::parse("srv_a").unwrap();
    let b = gemipanel_core::settings::ServerId::parse("srv_b").unwrap();
    for (id, on) in [(a, true), (b, false)] {
        settings.servers.push(gemipanel_core::settings::Server {
            oauth: Default::default(),
            id,
            name: "x".into(),
            url: "https://x".into(),
            local: None,
            confirmed_command: None,
            confirmed_run: None,
            headers: Default::default(),
            timeout_ms: 1000,
            trust: false,
            include_tools: None,
            exclude_tools: vec![],
            enabled_by_default: on,
            local_network: false,
            allowed_tools: Default::default(),
        });
    }
    let state = run(vec![Action::SettingsLoaded(Rc::new(settings))]);
    let ids = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<IndexSet<_>>();
    assert_eq!(state.enabled_servers(), ids(&["srv_a", BROWSER, PAGES]));
    let toggled = reduce(&state, Action::ToggleServer("srv_b".into()));
    assert_eq!(toggled.enabled_servers(), ids(&["srv_a", BROWSER, PAGES, "srv_b"]));
    let off = reduce(&toggled, Action::ToggleServer("srv_a".into()));
    assert_eq!(off.chat.servers, Some(ids(&[BROWSER, PAGES, "srv_b"])));
}

#[test]
fn a_saved_chat_reopens_as_it_was() {
    let turn = Turn::new(gemipanel_core::gemini::Content::user_text("Tell me"), None);
    let state = run(vec![
        sent("Tell me"),
        Action::SetThinking(ThinkingChoice::High),
        Action::ThoughtDelta("**Planning** the answer.".into()),
        Action::TextDelta("# Title\n\nBody".into()),
        Action::TurnOver { history: Rc::new(vec![turn]), now_ms: 5 },
    ]);
    let Entry::Model(reply) = &*state.chat.entries[1] else { panic!() };
    assert_eq!(reply.thoughts.text(), "**Planning** the answer.");
    assert_eq!(reply.doc.text(), "# Title\n\nBody", "thoughts are never the answer");
    let saved = state.chat.to_saved();
    let json = serde_json::to_string(&saved).unwrap();
    let back: SavedChat = serde_json::from_str(&json).unwrap();
    let reopened = reduce(&State::default(), Action::ChatOpened(Box::new(back)));
    assert_eq!(reopened.chat.entries, state.chat.entries);
    assert_eq!(reopened.chat.history, state.chat.history);
    assert_eq!(reopened.chat.title, "Tell me");
    assert_eq!(reopened.chat.thinking, ThinkingChoice::High);
}

fn tab(id: i32, url: Option<&str>) -> Tab {
    Tab {
        id,
        active: true,
        url: url.map(str::to_owned),
        title: url.map(|u| format!("Title of {u}")),
        ..Tab::default()
    }
}

#[test]
fn without_tabs_the_chip_stays_on_the_last_tab_it_may_see() {
    let state = run(vec![Action::TabSeen(tab(1, Some("https://a.example/")))]);
    // A tab whose address is hidden (no `tabs`, no access) does not take the chip.
    let hidden = reduce(&state, Action::TabSeen(tab(2, None)));
    assert_eq!(hidden.page.tab.as_ref().map(|t| t.id), Some(1));
    // The same tab navigating keeps it, whatever it shows.
    let moved = reduce(&state, Action::TabSeen(tab(1, None)));
    assert_eq!(moved.page.tab, Some(tab(1, None)));
    // With `tabs`, the chip follows every tab.
    let follows = run(vec![
        Action::TabsPermission(true),
        Action::TabSeen(tab(1, Some("https://a.example/"))),
        Action::TabSeen(tab(2, None)),
    ]);
    assert_eq!(follows.page.tab.as_ref().map(|t| t.id), Some(2));
    // A tab that is not active does not take it.
    let mut background = tab(3, Some("https://c.example/"));
    background.active = false;
    assert_eq!(reduce(&state, Action::TabSeen(background)).page.tab, state.page.tab);
}

#[test]
fn an_attached_selection_goes_with_the_next_message_and_the_message_says_what_it_carried() {
    use gemipanel_core::page::browser_tools::selection_context;
    let selection = Rc::new(selection_context("A", "https://a.example/", "picked").unwrap());
    let state = run(vec![
        Action::SelectionOffered(Some(selection.clone())),
        Action::AttachSelection,
        Action::AttachSelection,
    ]);
    assert_eq!(state.attachments, vec![selection.clone()]);
    assert!(state.selection.is_none());
    let sent = reduce(&state, sent("About this"));
    assert!(sent.attachments.is_empty());
    let labelled = reduce(&sent, Action::UserContext(vec![selection.label.clone()]));
    let Entry::User { context, .. } = &*labelled.chat.entries[0] else { panic!() };
    assert_eq!(context, &vec![selection.label.clone()]);
    // Kept in the saved chat.
    let json = serde_json::to_string(&labelled.chat.to_saved()).unwrap();
    let back: SavedChat = serde_json::from_str(&json).unwrap();
    assert_eq!(back.entries[0], *labelled.chat.entries[0]);
    assert_eq!(reduce(&labelled, Action::Detach(5)).attachments, labelled.attachments);
}

#[test]
fn an_attached_resource_is_kept_once_and_a_change_of_prompts_is_counted() {
    use gemipanel_core::mentions::attach;
    let read = serde_json::from_value(serde_json::json!({"contents": [
        {"uri": "test://a", "mimeType": "text/plain", "text": "A"}
    ]}))
    .unwrap();
    let id = gemipanel_core::settings::ServerId::parse("srv_s").unwrap();
    let part = Rc::new(attach(&id, "S", "a", "test://a", &read).part);
    let state = run(vec![Action::Attach(part.clone()), Action::Attach(part.clone())]);
    assert_eq!(state.attachments, vec![part]);
    let changed = run(vec![Action::PromptsChanged, Action::PromptsChanged]);
    assert_eq!(changed.prompts_epoch, 2);
}

#[test]
fn a_sent_resource_that_changed_is_marked_until_it_is_attached_again() {
    use gemipanel_core::mentions::attach;
    let id = gemipanel_core::settings::ServerId::parse("srv_s").unwrap();
    let read = |text: &str| {
        serde_json::from_value(serde_json::json!({"contents": [
            {"uri": "test://a", "mimeType": "text/plain", "text": text}
        ]}))
        .unwrap()
    };
    let old = Rc::new(attach(&id, "S", "a", "test://a", &read("old")).part);
    let resource = FollowedResource { server_id: id.clone(), uri: "test://a".into() };
    // Attached but not sent: the chat does not follow it yet.
    let attached = run(vec![Action::Attach(old.clone())]);
    let early = reduce(&attached, Action::ResourceUpdated(resource.clone()));
    assert!(early.changed_resources().is_empty());
    let after_send = reduce(&attached, sent("Read it"));
    let after_send = reduce(&after_send, Action::UserContext(vec![old.label.clone()]));
    assert_eq!(after_send.followed_resources(), std::slice::from_ref(&resource));
    let other = FollowedResource { server_id: id.clone(), uri: "test://b".into() };
    let updates = vec![Action::ResourceUpdated(other), Action::ResourceUpdated(resource.clone())];
    let marked = run_from(after_send, updates);
    assert_eq!(marked.changed_resources(), std::slice::from_ref(&resource));
    // Refreshed: the fresh read is the chip (replacing one of the same resource), unmarked.
    let with_old_chip = reduce(&marked, Action::Attach(old));
    let fresh = Rc::new(attach(&id, "S", "a", "test://a", &read("new")).part);
    let refreshed = reduce(&with_old_chip, Action::Attach(fresh.clone()));
    assert_eq!(refreshed.attachments, vec![fresh]);
    assert!(refreshed.changed_resources().is_empty());
    // Another chat has no marks of this one.
    let marked_again = reduce(&refreshed, Action::ResourceUpdated(resource));
    assert_eq!(marked_again.changed_resources().len(), 1);
    let new_chat = reduce(&marked_again, Action::NewChat { id: "other".into(), now_ms: 1 });
    assert!(new_chat.changed_resources().is_empty());
}

#[test]
fn what_apps_added_goes_with_the_person_s_message_apart_from_their_words_and_is_saved() {
    let added = AppContextSent {
        tool: "show_counter".into(),
        server: "Apps".into(),
        text: "The counter shows 3".into(),
    };
    let sent = reduce(&State::default(), sent("What does it show?"));
    let marked = reduce(&sent, Action::AppContextSent(vec![added.clone()]));
    let Entry::User { text, app_context, .. } = &*marked.chat.entries[0] else { panic!() };
    assert_eq!(text, "What does it show?");
    assert_eq!(app_context, &vec![added]);
    let json = serde_json::to_string(&marked.chat.to_saved()).unwrap();
    let back: SavedChat = serde_json::from_str(&json).unwrap();
    assert_eq!(back.entries[0], *marked.chat.entries[0]);
    // A chat saved before apps' context was kept reads as it was.
    let old: Entry = serde_json::from_str(r#"{"user": {"text": "hi"}}"#).unwrap();
    assert!(matches!(old, Entry::User { app_context, .. } if app_context.is_empty()));
}

#[test]
fn the_browser_is_on_in_a_new_chat_and_can_be_turned_off() {
    let state = run(vec![Action::SettingsLoaded(Rc::new(Settings::default()))]);
    assert!(state.enabled_servers().contains(BROWSER));
    let off = reduce(&state, Action::ToggleServer(BROWSER.into()));
    assert!(!off.enabled_servers().contains(BROWSER));
}

fn usage(total: u64) -> TurnUsage {
    TurnUsage { prompt: total - 1, output: 1, total, requests: 1, ..TurnUsage::default() }
}

#[test]
fn a_turns_usage_goes_on_its_last_reply_and_the_context_is_kept() {
    let card = ToolCard::asked("call-1", "s1", "S", "t", "{}".into(), None, true);
    let state = run(vec![
        sent("a"),
        Action::TextDelta("first".into()),
        Action::ModelTurnEnded { incomplete: false },
        Action::TurnOver { history: Rc::default(), now_ms: 2 },
        sent("b"),
        Action::TextDelta("Let me look.".into()),
        Action::ModelTurnEnded { incomplete: false },
        Action::ToolAsked(card),
        Action::Usage { turn: usage(10), context_tokens: 10 },
        Action::TextDelta("Found it.".into()),
        Action::Usage { turn: usage(25), context_tokens: 20 },
    ]);
    let usages: Vec<Option<u64>> = state
        .chat
        .entries
        .iter()
        .filter_map(|e| match &**e {
            Entry::Model(reply) => Some(reply.usage.map(|u| u.total)),
            _ => None,
        })
        .collect();
    assert_eq!(usages, [None, Some(10), Some(25)], "never on an earlier turn's reply");
    assert_eq!(state.chat.context_tokens, 20);
    let saved = serde_json::to_string(&state.chat.to_saved()).unwrap();
    let back: SavedChat = serde_json::from_str(&saved).unwrap();
    assert_eq!(ChatView::from_saved(back).context_tokens, 20);
}

#[test]
fn continuing_grows_the_cut_reply_in_place() {
    let state = run(vec![
        sent("story"),
        Action::TextDelta("Once upon".into()),
        Action::ModelTurnEnded { incomplete: false },
        Action::Finished { code: "MAX_TOKENS".into(), text: "cut".into() },
        Action::TurnOver { history: Rc::default(), now_ms: 2 },
        Action::Continued,
        Action::TextDelta(" a time.".into()),
    ]);
    let kinds: Vec<_> = state.chat.entries.iter().map(|e| e.kind()).collect();
    assert_eq!(kinds, ["user", "model"], "the Continue offer went with its use");
    let Entry::Model(reply) = &*state.chat.entries[1] else { panic!() };
    assert_eq!(reply.doc.text(), "Once upon a time.");
    assert!(state.chat.busy && reply.streaming);
}

#[test]
fn a_summary_starts_a_new_chat_with_the_same_choices() {
    let seed = Turn::new(gemipanel_core::gemini::Content::user_text("summary"), None);
    let state = run(vec![
        sent("Plan a trip"),
        Action::SetGoogleSearch(true),
        Action::SetThinking(ThinkingChoice::High),
        Action::TextDelta("Day 1".into()),
        Action::TurnOver { history: Rc::default(), now_ms: 2 },
        Action::SummaryStarted,
        Action::TextDelta("- trip".into()),
    ]);
    assert!(state.chat.summarizing && state.chat.busy);
    assert_eq!(state.chat.entries.len(), 2, "the summary is not a reply of this chat");
    let old_id = state.chat.id.clone();
    let next = reduce(
        &state,
        Action::Summarized {
            id: "new".into(),
            now_ms: 3,
            summary: "- trip".into(),
            history: Rc::new(vec![seed.clone()]),
        },
    );
    assert_ne!(next.chat.id, old_id);
    assert!(next.chat.google_search);
    assert_eq!(next.chat.thinking, ThinkingChoice::High);
    assert_eq!(next.chat.history.as_slice(), [seed]);
    assert_eq!(
        *next.chat.entries[0],
        Entry::Summary { text: "- trip".into(), from_title: "Plan a trip".into() }
    );
    let done = reduce(&next, Action::TurnOver { history: next.chat.history.clone(), now_ms: 4 });
    assert!(!done.chat.busy && !done.chat.summarizing);
    assert_eq!(done.chat.save_epoch, 1, "the new chat is saved");
}

#[test]
fn chats_saved_before_the_countdown_still_open() {
    let old = serde_json::json!({
        "id": "c", "title": "t", "created_ms": 0, "updated_ms": 0, "history": [],
        "entries": [
            {"user": {"text": "hi"}},
            {"retrying": {"seconds": 20, "message": "quota"}},
            {"model": {"doc": "hello", "incomplete": false}}
        ]
    });
    let saved: SavedChat = serde_json::from_value(old).unwrap();
    let chat = ChatView::from_saved(saved);
    assert_eq!(
        *chat.entries[1],
        Entry::Retrying { seconds: 20, message: "quota".into(), until_ms: 0, retry: 0, max: 0 }
    );
    assert_eq!(chat.context_tokens, 0);
}

#[test]
fn a_replys_sources_are_kept_with_it_and_saved() {
    let sources: Sources = serde_json::from_value(serde_json::json!({
        "queries": [{"text": "euro 2024", "href": "https://www.google.com/search?q=euro+2024"}],
        "sources": [{"title": "uefa.com", "href": "https://www.uefa.com/", "supports": ["Spain won."]}]
    }))
    .unwrap();
    let state = run(vec![
        sent("Who won?"),
        Action::TextDelta("Spain won.".into()),
        Action::Sources(sources.clone()),
        Action::ModelTurnEnded { incomplete: false },
        Action::TurnOver { history: Rc::default(), now_ms: 2 },
    ]);
    let Entry::Model(reply) = &*state.chat.entries[1] else { panic!() };
    assert_eq!(reply.sources.as_ref(), Some(&sources));
    let saved = serde_json::to_string(&state.chat.to_saved()).unwrap();
    let back = ChatView::from_saved(serde_json::from_str(&saved).unwrap());
    assert_eq!(back.entries, state.chat.entries);
}

/// One exchange: the message, the reply, and the history the driver would hand over.
pub(crate) fn exchange(state: &State, question: &str, answer: &str) -> State {
    use gemipanel_core::gemini::Content;
    let mut history = (*state.chat.history).clone();
    history.push(Turn::new(Content::user_text(question), None));
    let reply = Content { role: Some("model".into()), parts: vec![Part::text(answer)] };
    history.push(Turn::new(reply, Some("gemini-3.8-flash".into())));
    [
        sent(question),
        Action::TextDelta(answer.into()),
        Action::ModelTurnEnded { incomplete: false },
        Action::TurnOver { history: Rc::new(history), now_ms: 2 },
    ]
    .into_iter()
    .fold(state.clone(), |s, a| reduce(&s, a))
}

fn shown(state: &State) -> Vec<String> {
    state
        .chat
        .entries
        .iter()
        .map(|e| match &**e {
            Entry::User { text, .. } => format!("> {text}"),
            Entry::Model(reply) => reply.doc.text(),
            other => other.kind().to_owned(),
        })
        .collect()
}

fn history_texts(state: &State) -> Vec<String> {
    state
        .chat
        .history
        .iter()
        .map(|t| t.parts.iter().filter_map(|p| p.text.clone()).collect())
        .collect()
}

#[test]
fn an_edit_starts_a_version_and_the_replaced_one_comes_back_as_it_was() {
    let mut state = exchange(&State::default(), "q1", "a1");
    let card = ToolCard::asked("call-7", "s1", "S", "t", "{}".into(), None, true);
    state = reduce(&state, Action::ToolAsked(card));
    state = exchange(&state, "q2", "a2");
    state = exchange(&state, "q3", "a3");
    let before = (shown(&state), history_texts(&state));
    let info = state.chat.message_info();
    assert_eq!(info.len(), 3);
    assert!(info.iter().all(|m| m.editable && m.versions.is_none()));

    // Edit the second message: the driver gets the history before it and what it sent.
    let point = state.chat.branch_point(1).unwrap();
    assert_eq!(point.text, "q2");
    assert_eq!(point.parts, vec![Part::text("q2")]);
    assert_eq!(point.history.len(), 2);
    state = reduce(&state, Action::Branch { at: 1 });
    assert_eq!(shown(&state), ["> q1", "a1", "tool"]);
    assert_eq!(history_texts(&state), ["q1", "a1"]);
    state = exchange(&state, "q2 edited", "b2");
    assert_eq!(state.chat.message_info()[1].versions, Some((1, 2)));
    assert_eq!(state.chat.call_ids(), ["call-7"], "the kept version's calls are counted");

    // Switch back: exactly as it was, the third message included; nothing is re-sent.
    let back = reduce(&state, Action::SwitchVersion { at: 1, to: 0 });
    assert_eq!((shown(&back), history_texts(&back)), before);
    assert_eq!(back.chat.message_info()[1].versions, Some((0, 2)));
    assert_eq!(back.chat.save_epoch, state.chat.save_epoch + 1, "the choice is saved");
    assert!(!back.chat.busy);
    // And forth.
    let forth = reduce(&back, Action::SwitchVersion { at: 1, to: 1 });
    assert_eq!(shown(&forth), ["> q1", "a1", "tool", "> q2 edited", "b2"]);

    // Saved and reopened, the versions are there.
    let json = serde_json::to_string(&back.chat.to_saved()).unwrap();
    let reopened = reduce(
        &State::default(),
        Action::ChatOpened(Box::new(serde_json::from_str(&json).unwrap())),
    );
    assert_eq!((shown(&reopened), history_texts(&reopened)), before);
    let again = reduce(&reopened, Action::SwitchVersion { at: 1, to: 1 });
    assert_eq!(shown(&again), ["> q1", "a1", "tool", "> q2 edited", "b2"]);
}

#[test]
fn nothing_branches_or_switches_during_a_turn() {
    let mut state = exchange(&State::default(), "q1", "a1");
    state = reduce(&state, Action::Branch { at: 0 });
    state = exchange(&state, "q1 again", "b1");
    let busy = reduce(&state, sent("q2"));
    assert!(busy.chat.message_info().iter().all(|m| !m.editable));
    let switched = reduce(&busy, Action::SwitchVersion { at: 0, to: 0 });
    assert_eq!(shown(&switched), shown(&busy));
    let branched = reduce(&busy, Action::Branch { at: 0 });
    assert_eq!(shown(&branched), shown(&busy));
}

#[test]
fn a_question_asked_during_a_call_is_not_kept_in_a_version() {
    let mut state = exchange(&State::default(), "q1", "a1");
    state = reduce(&state, sent("q2"));
    let card = ElicitationCard {
        call_id: "call-1".into(),
        server_name: None,
        elicitation_id: "e1".into(),
        prompt: gemipanel_core::messages::ElicitationPrompt::Url {
            message: "Sign in".into(),
            url: "https://example.com/".into(),
        },
        answer: Some("accept".into()),
    };
    state = reduce(&state, Action::Elicitation(card));
    let history = state.chat.history.clone();
    state = reduce(&state, Action::TurnOver { history, now_ms: 3 });
    state = reduce(&state, Action::Branch { at: 1 });
    assert_eq!(shown(&state), ["> q1", "a1"]);
    // An elicitation cannot be saved (it means nothing once its call ended): a version
    // holding one would make the chat unsaveable.
    let json = serde_json::to_string(&state.chat.to_saved());
    assert!(json.is_ok(), "{json:?}");
    assert!(!json.unwrap().contains("elicitation"));
}

#[test]
fn chats_saved_before_versions_open_and_can_be_edited_when_their_marks_can_be_told() {
    let old = serde_json::json!({
        "id": "c", "title": "t", "created_ms": 0, "updated_ms": 0,
        "history": [
            {"role": "user", "parts": [{"text": "q1"}]},
            {"role": "model", "parts": [{"text": "a1"}]},
            {"role": "user", "parts": [{"text": "q2"}]},
            {"role": "model", "parts": [{"text": "a2"}]}
        ],
        "entries": [
            {"user": {"text": "q1"}}, {"model": {"doc": "a1"}},
            {"user": {"text": "q2"}}, {"model": {"doc": "a2"}}
        ]
    });
    let saved: SavedChat = serde_json::from_value(old.clone()).unwrap();
    assert!(saved.forks.is_empty() && saved.instructions.is_none());
    let state = reduce(&State::default(), Action::ChatOpened(Box::new(saved)));
    assert!(state.chat.message_info().iter().all(|m| m.editable));
    let point = state.chat.branch_point(1).unwrap();
    assert_eq!((point.text.as_str(), point.history.len()), ("q2", 2));

    // A message that joined an unanswered one: marks cannot be told, nothing is editable.
    let mut merged = old;
    merged["history"] = serde_json::json!([
        {"role": "user", "parts": [{"text": "q1"}, {"text": "q2"}]},
        {"role": "model", "parts": [{"text": "a2"}]}
    ]);
    merged["entries"] = serde_json::json!([
        {"user": {"text": "q1"}}, {"error": {"kind": "network", "message": "x"}},
        {"user": {"text": "q2"}}, {"model": {"doc": "a2"}}
    ]);
    let saved: SavedChat = serde_json::from_value(merged).unwrap();
    let state = reduce(&State::default(), Action::ChatOpened(Box::new(saved)));
    assert!(state.chat.message_info().iter().all(|m| !m.editable));
    assert_eq!(state.chat.branch_point(1), None);
}

#[test]
fn a_chats_own_instructions_are_kept_trimmed_and_saved() {
    let state = exchange(&State::default(), "q1", "a1");
    let set = reduce(&state, Action::SetInstructions(Some("  Reply in French. ".into())));
    assert_eq!(set.chat.instructions.as_deref(), Some("Reply in French."));
    assert_eq!(set.chat.save_epoch, state.chat.save_epoch + 1);
    let saved = serde_json::to_value(set.chat.to_saved()).unwrap();
    assert_eq!(saved["instructions"], "Reply in French.");
    let cleared = reduce(&set, Action::SetInstructions(Some("   ".into())));
    assert_eq!(cleared.chat.instructions, None);
}

#[test]
fn another_windows_save_is_shown_when_idle_and_waits_for_the_turns_end_otherwise() {
    let mine = exchange(&State::default(), "q1", "a1");
    let mut elsewhere = exchange(&mine, "q2", "a2").chat.to_saved();
    elsewhere.revision = 1;
    // Idle: shown at once.
    let idle =
        reduce(&mine, Action::ChatStored { chat: Box::new(elsewhere.clone()), merged: true });
    assert_eq!(idle.chat.entries.len(), 4);
    assert_eq!(idle.chat.revision, 1);
    // During a turn: not shown (the turn's save merges), and the revision stays.
    let busy = reduce(&mine, sent("q3"));
    let kept = reduce(&busy, Action::ChatStored { chat: Box::new(elsewhere), merged: true });
    assert_eq!(kept.chat.revision, 0);
    assert_eq!(shown(&kept), shown(&busy));
    // This panel's own save only moves the revision on.
    let mut own = mine.chat.to_saved();
    own.revision = 1;
    let saved = reduce(&mine, Action::ChatStored { chat: Box::new(own), merged: false });
    assert_eq!(saved.chat.revision, 1);
    assert_eq!(saved.chat.entries, mine.chat.entries);
}

#[test]
fn a_sign_in_notice_follows_its_sign_in_and_is_saved_as_words_only() {
    let state = reduce(&State::default(), sent("q1"));
    let notice = Action::SignInNotice {
        text: "Greeter waits".into(),
        server_id: "srv_1".into(),
        server_name: "Greeter".into(),
    };
    let state = reduce(&state, notice);
    let other = Action::SignInNotice {
        text: "Other waits".into(),
        server_id: "srv_2".into(),
        server_name: "Other".into(),
    };
    let state = reduce(&state, other);
    let step = |state: &State, i: usize| match &*state.chat.entries[i] {
        Entry::Notice { sign_in: Some(offer), .. } => offer.step.clone(),
        other => panic!("not a sign-in notice: {other:?}"),
    };
    let offered = SignInStep::Offered { problem: None, origin: None };
    assert_eq!(step(&state, 1), offered);
    let busy =
        reduce(&state, Action::NoticeSignIn { server_id: "srv_1".into(), step: SignInStep::Busy });
    assert_eq!(step(&busy, 1), SignInStep::Busy);
    // Only the notice of the server signed in to follows.
    assert_eq!(step(&busy, 2), offered);
    let done = reduce(
        &busy,
        Action::NoticeSignIn { server_id: "srv_1".into(), step: SignInStep::SignedIn },
    );
    assert_eq!(step(&done, 1), SignInStep::SignedIn);
    // Saved, the notice is its words: a reopened chat offers no stale sign-in.
    let saved = serde_json::to_value(done.chat.to_saved()).unwrap();
    assert_eq!(saved["entries"][1], serde_json::json!({"notice": {"text": "Greeter waits"}}));
    let back: SavedChat = serde_json::from_value(saved).unwrap();
    assert!(matches!(&back.entries[1], Entry::Notice { sign_in: None, .. }));
}

#[test]
fn titles_are_the_first_line_shortened() {
    assert_eq!(title_from("\n  Hello  \nworld"), "Hello");
    let long = "x".repeat(100);
    assert_eq!(title_from(&long).chars().count(), TITLE_CHARS + 1);
}
