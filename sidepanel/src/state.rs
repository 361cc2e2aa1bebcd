//! The side panel's state and its pure reducer.

use std::rc::Rc;

use gemipanel_core::messages::WorkerStatus;
use yew::Reducible;

#[derive(Debug, Clone, PartialEq)]
pub enum WorkerView {
    Connecting,
    Ready(WorkerStatus),
    Failed(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct State {
    pub worker: WorkerView,
    /// Bumped whenever the worker's status should be fetched again (a (re)connect or a click).
    pub status_epoch: u32,
}

impl Default for State {
    fn default() -> Self {
        Self { worker: WorkerView::Connecting, status_epoch: 0 }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// The worker greeted a fresh connection (first open or after a restart).
    WorkerStarted,
    RefreshStatus,
    StatusLoaded(WorkerStatus),
    StatusFailed(String),
}

pub fn reduce(state: &State, action: Action) -> State {
    let mut next = state.clone();
    match action {
        Action::WorkerStarted | Action::RefreshStatus => next.status_epoch += 1,
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

    fn status(uptime_ms: u64) -> WorkerStatus {
        WorkerStatus { extension_version: "0.1.0".into(), uptime_ms, configured_servers: 1 }
    }

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
    fn a_failure_replaces_the_status_with_its_message() {
        let state = reduce(&State::default(), Action::StatusFailed("worker gone".into()));
        assert_eq!(state.worker, WorkerView::Failed("worker gone".into()));
        assert_eq!(reduce(&state, Action::RefreshStatus).status_epoch, 1);
    }
}
