//! The question in an app's card when the app calls a tool the person's rules say to ask about
//! (the worker decides that: `core::tools::app_calls`). The app waits for the answer; the card
//! names the app that asked, the tool and its arguments.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use futures_channel::oneshot;
use gemipanel_browser::chrome::message;
use serde_json::{Map, Value};
use yew::prelude::*;

/// What an app asked to run.
#[derive(Debug, Clone, PartialEq)]
pub struct AppAsk {
    pub tool: String,
    pub arguments: Map<String, Value>,
    /// Only the rule about web content in the chat asks (the card says so).
    pub because_of_page_content: bool,
}

/// The person's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppAnswer {
    AllowOnce,
    AlwaysTool,
    Deny,
}

struct Waiting {
    ask: AppAsk,
    answer: oneshot::Sender<AppAnswer>,
}

/// One app's questions, asked one at a time in its card; a question still open when the card
/// goes is a no.
#[derive(Clone)]
pub struct AppAsks {
    queue: Rc<RefCell<VecDeque<Waiting>>>,
    /// Shows the card again.
    changed: Callback<()>,
}

impl AppAsks {
    pub fn new(changed: Callback<()>) -> Self {
        AppAsks { queue: Rc::default(), changed }
    }

    /// Asks the person; `Deny` when the card goes first.
    pub async fn ask(&self, ask: AppAsk) -> AppAnswer {
        let (answer, answered) = oneshot::channel();
        self.queue.borrow_mut().push_back(Waiting { ask, answer });
        self.changed.emit(());
        answered.await.unwrap_or(AppAnswer::Deny)
    }

    /// The question shown now.
    pub fn current(&self) -> Option<AppAsk> {
        self.queue.borrow().front().map(|w| w.ask.clone())
    }

    fn answer(&self, answer: AppAnswer) {
        let waiting = self.queue.borrow_mut().pop_front();
        if let Some(waiting) = waiting {
            let _ = waiting.answer.send(answer);
        }
        self.changed.emit(());
    }
}

#[derive(Properties, Clone)]
pub struct Props {
    pub asks: AppAsks,
    pub ask: AppAsk,
    /// The tool whose call showed the app, and its server: which app asks.
    pub app_tool: AttrValue,
    pub server_name: AttrValue,
}

impl PartialEq for Props {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.asks.queue, &other.asks.queue)
            && self.ask == other.ask
            && self.app_tool == other.app_tool
            && self.server_name == other.server_name
    }
}

#[function_component]
pub fn AppCallAsk(props: &Props) -> Html {
    let answer = |answer: AppAnswer| {
        let asks = props.asks.clone();
        Callback::from(move |_: MouseEvent| asks.answer(answer))
    };
    let arguments = serde_json::to_string_pretty(&props.ask.arguments).unwrap_or_default();
    let asks = message("panelAppAsksTool", &[&props.app_tool, &props.ask.tool, &props.server_name]);
    html! {
        <div class="app-call-ask" role="alertdialog" aria-label={asks.clone()} data-testid="app-call-ask">
            <p>{ asks }</p>
            if arguments != "{}" {
                <pre class="args">{ arguments }</pre>
            }
            if props.ask.because_of_page_content {
                <p class="hint web-content">{ message("panelAskedForWebContent", &[&props.server_name]) }</p>
            }
            <div class="confirm">
                <button class="primary" onclick={answer(AppAnswer::AllowOnce)}>{ message("panelAllowOnce", &[]) }</button>
                // A trusted tool asked because of web content: "always" is already so.
                if !props.ask.because_of_page_content {
                    <button onclick={answer(AppAnswer::AlwaysTool)}>{ message("panelAlwaysTool", &[]) }</button>
                }
                <button class="danger" onclick={answer(AppAnswer::Deny)}>{ message("panelDeny", &[]) }</button>
            </div>
        </div>
    }
}
