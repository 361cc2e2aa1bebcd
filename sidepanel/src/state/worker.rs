//! The worker's status, the settings and models it reads, and the chat's choices (model,
//! thinking, tools, search) and which view is shown.

use std::rc::Rc;

use super::{Action, State, View, WorkerView};

pub(super) fn on_worker(next: &mut State, action: Action) {
    match action {
        Action::WorkerStarted | Action::RefreshStatus => {
            next.status_epoch += 1;
            next.worker_epoch += 1;
        }
        Action::StatusLoaded(status) => next.worker = WorkerView::Ready(status),
        Action::StatusFailed(message) => next.worker = WorkerView::Failed(message),
        Action::SettingsChanged(settings) => {
            next.status_epoch += 1;
            on_worker(next, Action::SettingsLoaded(settings));
        }
        Action::SettingsLoaded(settings) => {
            // The list shown was another key's or address's.
            let shown = next.settings.as_ref().map(|s| &s.gemini);
            if !shown.is_some_and(|gemini| gemini.same_model_source(&settings.gemini)) {
                next.models = None;
            }
            next.settings = Some(settings);
            next.settings_error = None;
        }
        Action::SettingsFailed(message) => next.settings_error = Some(message),
        Action::ModelsLoaded(listed)
            if next.settings.as_ref().is_some_and(|s| listed.is_for(&s.gemini)) =>
        {
            next.models = Some(Rc::new(listed.models))
        }
        _ => {} // another part's action (`reduce` sends none here)
    }
}

pub(super) fn on_choice(state: &State, next: &mut State, action: Action) {
    let chat = &mut next.chat;
    match action {
        Action::SetModel(model) => chat.model = Some(model).filter(|m| !m.is_empty()),
        Action::SetThinking(choice) => chat.thinking = choice,
        Action::ToggleServer(id) => {
            let mut servers = state.enabled_servers();
            if !servers.shift_remove(&id) {
                servers.insert(id);
            }
            chat.servers = Some(servers);
        }
        Action::SetGoogleSearch(on) => chat.google_search = on,
        Action::ShowHistory(show) => next.view = if show { View::History } else { View::Chat },
        Action::ShowTools(show) => next.view = if show { View::Tools } else { View::Chat },
        Action::ShowActivity(show) => next.view = if show { View::Activity } else { View::Chat },
        _ => {}
    }
}
