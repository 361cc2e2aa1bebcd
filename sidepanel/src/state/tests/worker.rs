//! The worker's status and settings in the panel: the status asked again, the model lists and
//! which model a chat uses, what a new chat suggests of the key.

use super::*;

#[test]
fn a_restart_asks_for_the_status_again_and_keeps_the_last_one_meanwhile() {
    let state = reduce(&State::default(), Action::StatusLoaded(status(5_000)));
    let restarted = reduce(&state, Action::WorkerStarted);
    assert_eq!(restarted.status_epoch, state.status_epoch + 1);
    assert_eq!(restarted.worker, WorkerView::Ready(status(5_000)));
    let fresh = reduce(&restarted, Action::StatusLoaded(status(10)));
    assert_eq!(fresh.worker, WorkerView::Ready(status(10)));
}

#[test]
fn the_model_is_the_chats_else_the_settings_else_the_automatic_default() {
    use gemipanel_core::gemini::{Stage, FALLBACK_MODEL};
    let info = |id: &str| ModelInfo {
        id: id.into(),
        display_name: id.into(),
        stage: Stage::Stable,
        input_token_limit: None,
        thinking: None,
    };
    let state = run(vec![Action::SettingsLoaded(Rc::new(Settings::default()))]);
    assert_eq!(state.model(), FALLBACK_MODEL, "before any list");
    let listed_for = Settings::default().gemini.model_source();
    let listed = reduce(
        &state,
        Action::ModelsLoaded(ListedModels {
            source: listed_for,
            models: vec![info("gemini-9-flash")],
        }),
    );
    assert_eq!(listed.model(), "gemini-9-flash", "the list's newest stable Flash");
    let mut settings = Settings::default();
    settings.gemini.model = Some("gemini-4-argon".into());
    let set = reduce(&listed, Action::SettingsLoaded(Rc::new(settings)));
    assert_eq!(set.model(), "gemini-4-argon");
    let chosen = reduce(&set, Action::SetModel("gemini-3.6-flash".into()));
    assert_eq!(chosen.model(), "gemini-3.6-flash");
    let back = reduce(&chosen, Action::SetModel(String::new()));
    assert_eq!((back.chat.model.clone(), back.model()), (None, "gemini-4-argon".to_owned()));
}

#[test]
fn a_model_list_counts_only_for_the_key_and_address_shown() {
    use gemipanel_core::gemini::Stage;
    let keyed = |key: &str| {
        let mut settings = Settings::default();
        settings.gemini.api_key = Some(Secret::new(key));
        settings
    };
    let list = |id: &str| {
        vec![ModelInfo {
            id: id.into(),
            display_name: id.into(),
            stage: Stage::Stable,
            input_token_limit: None,
            thinking: None,
        }]
    };
    let (old, new) = (keyed("old-key"), keyed("new-key"));
    // The old key's list was asked for, then another window saved a new key.
    let state = run(vec![
        Action::SettingsLoaded(Rc::new(old.clone())),
        Action::SettingsLoaded(Rc::new(new.clone())),
    ]);
    let late = reduce(
        &state,
        Action::ModelsLoaded(ListedModels {
            source: old.gemini.model_source(),
            models: list("gemini-8-flash"),
        }),
    );
    assert!(late.models.is_none(), "the old key's list is not the new key's");
    let listed = reduce(
        &late,
        Action::ModelsLoaded(ListedModels {
            source: new.gemini.model_source(),
            models: list("gemini-9-flash"),
        }),
    );
    assert_eq!(listed.model(), "gemini-9-flash");
    let mut moved = new.clone();
    moved.gemini.base_url = Some("http://127.0.0.1:9/".into());
    assert_ne!(moved.gemini.model_source(), new.gemini.model_source(), "the address counts too");
    // The list shown goes with settings of another address: it was not listed there.
    let moved = reduce(&listed, Action::SettingsLoaded(Rc::new(moved)));
    assert!(moved.models.is_none());
    let same = reduce(&listed, Action::SettingsLoaded(Rc::new(new.clone())));
    assert!(same.models.is_some(), "the same settings told again keep their list");
}

#[test]
fn the_context_meter_needs_the_models_window() {
    use gemipanel_core::gemini::Stage;
    let mut state = run(vec![
        Action::SettingsLoaded(Rc::new(Settings::default())),
        Action::Usage { turn: usage(5), context_tokens: 950_000 },
    ]);
    assert_eq!(state.context_meter(), None, "no list, no window");
    let model = state.model();
    state = reduce(
        &state,
        Action::ModelsLoaded(ListedModels {
            source: Settings::default().gemini.model_source(),
            models: vec![ModelInfo {
                id: model,
                display_name: "x".into(),
                stage: Stage::Stable,
                input_token_limit: Some(1_000_000),
                thinking: None,
            }],
        }),
    );
    assert!(state.context_meter().unwrap().is_nearly_full());
}

#[test]
fn a_settings_change_elsewhere_fetches_the_status_again_and_nothing_else() {
    // The status line counts the servers and says whether the key is locked. Servers' own news
    // changes neither, and asks nothing: it used to fetch the status and the settings again at
    // each event, dozens of times while a few servers started.
    let mut settings = Settings::default();
    settings.gemini.api_key = Some(Secret::new("AIza-one"));
    let changed = run(vec![Action::SettingsChanged(Rc::new(settings.clone()))]);
    assert_eq!((changed.status_epoch, changed.worker_epoch), (1, 0));
    assert_eq!(changed.settings.as_deref(), Some(&settings));
    let read = reduce(&changed, Action::SettingsLoaded(Rc::new(settings)));
    assert_eq!((read.status_epoch, read.worker_epoch), (1, 0), "the panel's own read asks again");
    let started = reduce(&read, Action::WorkerStarted);
    assert_eq!((started.status_epoch, started.worker_epoch), (2, 1));
    let refreshed = reduce(&started, Action::RefreshStatus);
    assert_eq!((refreshed.status_epoch, refreshed.worker_epoch), (3, 2));
}

#[test]
fn a_new_chat_suggests_what_the_key_needs() {
    assert_eq!(State::default().key_state(), KeyState::Unknown, "before the settings");
    let with = |gemini: gemipanel_core::settings::GeminiSettings| {
        run(vec![Action::SettingsLoaded(Rc::new(Settings { gemini, ..Settings::default() }))])
    };
    assert_eq!(with(Default::default()).key_state(), KeyState::Missing);
    let locked =
        gemipanel_core::settings::GeminiSettings { api_key_locked: true, ..Default::default() };
    assert_eq!(with(locked).key_state(), KeyState::Locked, "kept, not entered: not missing");
    let set = gemipanel_core::settings::GeminiSettings {
        api_key: Some(Secret::new("AIza-x")),
        ..Default::default()
    };
    assert_eq!(with(set).key_state(), KeyState::Set);
}
