use gemipanel_browser::chrome::message;
use yew::prelude::*;

use crate::components::{empty_chat::EmptyChat, status_bar::StatusBar};
use crate::hooks::{use_worker_port, use_worker_status};
use crate::state::{Action, State};

#[function_component]
pub fn App() -> Html {
    let state = use_reducer(State::default);
    let port = use_worker_port(state.dispatcher());
    use_worker_status(port, state.status_epoch, state.dispatcher());
    let on_refresh = {
        let dispatcher = state.dispatcher();
        Callback::from(move |_| dispatcher.dispatch(Action::RefreshStatus))
    };
    html! {
        <div class="page sidepanel">
            <header class="topbar">
                <img class="logo" src="icons/icon32.png" alt="" />
                <h1>{ message("appTitle", &[]) }</h1>
            </header>
            <main class="content">
                <EmptyChat />
            </main>
            <StatusBar worker={state.worker.clone()} {on_refresh} />
        </div>
    }
}
