//! The popup's state and its pure reducer.

use std::rc::Rc;

use gemipanel_core::messages::WorkerStatus;
use yew::Reducible;

#[derive(Debug, Clone, PartialEq, Default)]
pub enum WorkerView {
    #[default]
    Loading,
    Ready(WorkerStatus),
    Failed(String),
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct State {
    pub worker: WorkerView,
    /// Bumped to fetch the worker's status again.
    pub status_epoch: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    RefreshStatus,
    StatusLoaded(WorkerStatus),
    StatusFailed(String),
}

pub fn reduce(state: &State, action: Action) -> State {
    let mut next = state.clone();
    match action {
        Action::RefreshStatus => {
            next.status_epoch += 1;
            next.worker = WorkerView::Loading;
        }
        Action::StatusLoaded(status) => next.worker = WorkerView::Ready(status),
        Action::StatusFailed(message) => next.worker = WorkerView::Failed(message),
    }
    next
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        Rc::new(reduce(&self, action))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refreshing_shows_loading_until_the_answer() {
        let status =
            WorkerStatus { extension_version: "0.1.0".into(), uptime_ms: 1, configured_servers: 0 };
        let state = reduce(&State::default(), Action::StatusLoaded(status.clone()));
        assert_eq!(state.worker, WorkerView::Ready(status));
        let refreshing = reduce(&state, Action::RefreshStatus);
        assert_eq!((refreshing.worker.clone(), refreshing.status_epoch), (WorkerView::Loading, 1));
        let failed = reduce(&refreshing, Action::StatusFailed("no worker".into()));
        assert_eq!(failed.worker, WorkerView::Failed("no worker".into()));
    }
}
