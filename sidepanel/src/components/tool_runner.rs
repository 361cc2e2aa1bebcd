//! One tool of the tool browser, run by hand: its arguments (a form made from its input schema,
//! or raw JSON), Run, and the runs so far as the chat's tool cards, with their apps.
//!
//! The component only composes: `use_runner` keeps what lives between redraws, `Runner`'s
//! methods read the arguments, switch form and JSON, and run a call; `arguments`, `actions` and
//! `runs` draw the three parts of the page.

use std::cell::RefCell;
use std::rc::Rc;

use gemipanel_browser::chrome::{message, word};
use gemipanel_core::apps::resource::AppResource;
use gemipanel_core::chats::activity::{Activity, Asker};
use gemipanel_core::mcp::{Tool, Visibility};
use gemipanel_core::messages::{Caller, Request, Response};
use gemipanel_core::tools::form::{collect, fields, fits, initial, Field, Problem, MAX_DEPTH};
use serde_json::{Map, Value};
use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

use super::form_field::{form_field, Values};
use super::tool_browser::ServerEntry;
use super::tool_card::ToolCardView;
use crate::app_host::AppServices;
use crate::app_read::{read_app, Prefetch};
use crate::chat_driver::server_id;
use crate::state::{ToolCard, ToolStatus};
use crate::tool_text::result_text;
use crate::transcript::AppCard;

#[derive(Properties, PartialEq)]
pub struct RunnerProps {
    pub server: ServerEntry,
    pub tool: Rc<Tool>,
}

/// One tool: its form, Run, and the runs so far (newest first).
#[function_component]
pub fn ToolRunner(props: &RunnerProps) -> Html {
    let services = use_context::<AppServices>();
    let runner = use_runner(props, services.clone());
    let run = {
        let runner = runner.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(services) = services.clone() {
                runner.run(services);
            }
        })
    };
    let toggle_raw = {
        let runner = runner.clone();
        Callback::from(move |_: MouseEvent| runner.toggle_raw())
    };
    html! {
        <div class="tool-runner" data-testid="tool-runner">
            <h2><span class="tool-name">{ &props.tool.name }</span>
                <span class="server">{ &props.server.name }</span></h2>
            if let Some(d) = &props.tool.description { <p class="hint">{ d }</p> }
            { arguments(&runner) }
            if let Some(problem) = &*runner.problem { <p class="hint error" role="alert">{ problem }</p> }
            { actions(&runner, run, toggle_raw) }
            { runs(&runner) }
        </div>
    }
}

/// What the runner keeps between redraws.
#[derive(Clone)]
struct Runner {
    server: ServerEntry,
    tool: Rc<Tool>,
    form: Rc<Vec<Field>>,
    values: Values,
    /// The raw JSON is shown instead of the form.
    raw: UseStateHandle<bool>,
    /// The raw JSON as typed: a redraw (a problem shown, a run) keeps it.
    raw_text: Rc<RefCell<String>>,
    problem: UseStateHandle<Option<String>>,
    runs: Rc<RefCell<Vec<ToolCard>>>,
    redraw: UseForceUpdateHandle,
    prefetch: Rc<Prefetch>,
}

#[hook]
fn use_runner(props: &RunnerProps, services: Option<AppServices>) -> Runner {
    let form = use_memo(props.tool.clone(), |tool| fields(&tool.input_schema, MAX_DEPTH));
    // The schema's defaults fill the form, as in an elicitation.
    let values: Values = {
        let form = form.clone();
        use_mut_ref(move || initial(&form))
    };
    let prefetch = use_prefetch(&props.server, &props.tool, services);
    Runner {
        server: props.server.clone(),
        tool: props.tool.clone(),
        form,
        values,
        raw: use_state(|| false),
        raw_text: use_mut_ref(String::new),
        problem: use_state(|| None::<String>),
        runs: use_mut_ref(Vec::new),
        redraw: use_force_update(),
        prefetch,
    }
}

/// A tool with an app: its resource and the app host get ready while the person fills in the
/// form, so Run shows the app sooner.
#[hook]
fn use_prefetch(
    server: &ServerEntry,
    tool: &Rc<Tool>,
    services: Option<AppServices>,
) -> Rc<Prefetch> {
    let prefetch = use_memo((), |_| Prefetch::default());
    {
        let (prefetch, server, tool) = (prefetch.clone(), server.clone(), tool.clone());
        use_effect_with((), move |_| {
            if let (Some(services), Some(uri)) = (services, tool.ui_resource_uri()) {
                gemipanel_browser::app_frame::warm_up();
                let definition = Rc::new(serde_json::to_value(&*tool).unwrap_or_default());
                prefetch.start(
                    services.port.clone(),
                    server.id.clone(),
                    uri.to_owned(),
                    definition,
                );
            }
        });
    }
    prefetch
}

impl Runner {
    /// The arguments as the form or the raw JSON gives them, or why they cannot be sent.
    fn arguments(&self) -> Result<Map<String, Value>, String> {
        if *self.raw {
            serde_json::from_str::<Map<String, Value>>(&self.raw_text.borrow())
                .map_err(|e| message("panelToolsBadJson", &[&e.to_string()]))
        } else {
            match collect(&self.form, &self.values.borrow()) {
                (arguments, problems) if problems.is_empty() => Ok(arguments),
                (_, problems) => Err(words(&problems)),
            }
        }
    }

    /// Form to raw JSON, or back: raw JSON goes back into the form only when the form can show
    /// all of it.
    fn toggle_raw(&self) {
        if !*self.raw {
            let arguments = collect(&self.form, &self.values.borrow()).0;
            *self.raw_text.borrow_mut() =
                serde_json::to_string_pretty(&arguments).unwrap_or_default();
        } else {
            let parsed = serde_json::from_str::<Map<String, Value>>(&self.raw_text.borrow())
                .map_err(|e| message("panelToolsBadJson", &[&e.to_string()]))
                .and_then(|arguments| match fits(&self.form, &arguments) {
                    Ok(()) => Ok(arguments),
                    Err(path) => Err(message("panelToolsNoFit", &[&path])),
                });
            match parsed {
                Ok(arguments) => *self.values.borrow_mut() = arguments,
                Err(error) => return self.problem.set(Some(error)),
            }
        }
        self.problem.set(None);
        self.raw.set(!*self.raw);
    }

    /// Run: a new card on top, its app read (from the prefetch when it has it), the call sent.
    fn run(&self, services: AppServices) {
        let arguments = match self.arguments() {
            Ok(arguments) => arguments,
            Err(problem) => return self.problem.set(Some(problem)),
        };
        self.problem.set(None);
        let call_id = format!("browser-{}", js_sys::Date::now() as u64);
        let definition = Rc::new(serde_json::to_value(&*self.tool).unwrap_or_default());
        let card = self.new_card(&call_id, &arguments, &definition);
        self.runs.borrow_mut().insert(0, card);
        self.redraw.force_update();
        if let Some(app) = self.tool.ui_resource_uri().map(str::to_owned) {
            self.read_app(&services, &call_id, app, definition);
        }
        self.call(services, call_id, arguments);
    }

    fn new_card(
        &self,
        call_id: &str,
        arguments: &Map<String, Value>,
        tool: &Rc<Value>,
    ) -> ToolCard {
        let (server, name) = (&self.server, &self.tool.name);
        let shown = serde_json::to_string_pretty(arguments).unwrap_or_default();
        let mut card = ToolCard::asked(
            call_id,
            &server.id,
            &server.name,
            name,
            shown,
            self.tool.read_only(),
            true,
        );
        card.status = ToolStatus::Running;
        card.app = self.tool.ui_resource_uri().map(|uri| {
            AppCard::unread(server.id.clone(), uri.to_owned(), tool.clone(), arguments.clone())
        });
        card
    }

    /// The app `uri` as an earlier run showed it, which the worker then need not send again.
    fn held_app(&self, uri: &str) -> Option<Rc<AppResource>> {
        let runs = self.runs.borrow();
        let mut apps = runs.iter().filter_map(|run| run.app.as_ref()?.resource.as_ref());
        apps.find(|resource| resource.uri == uri).cloned()
    }

    /// Changes the card of `call_id` and draws again.
    fn update(&self, call_id: &str, change: &dyn Fn(&mut ToolCard)) {
        if let Some(card) = self.runs.borrow_mut().iter_mut().find(|c| c.call_id == call_id) {
            change(card);
        }
        self.redraw.force_update();
    }

    fn read_app(&self, services: &AppServices, call_id: &str, app: String, definition: Rc<Value>) {
        let (runner, services, call_id) = (self.clone(), services.clone(), call_id.to_owned());
        wasm_bindgen_futures::spawn_local(async move {
            let read = match runner.prefetch.get().await {
                Some(Ok(resource)) => Ok(resource),
                _ => {
                    let held = runner.held_app(&app);
                    read_app(&services.port, &runner.server.id, &app, &definition, held).await
                }
            };
            runner.update(&call_id, &|card: &mut ToolCard| {
                if let Some(app) = card.app.as_mut() {
                    match &read {
                        Ok(resource) => app.resource = Some(resource.clone()),
                        Err(error) => app.error = Some(error.clone()),
                    }
                }
            });
        });
    }

    fn call(&self, services: AppServices, call_id: String, arguments: Map<String, Value>) {
        let request = Request::CallTool {
            call_id: call_id.clone(),
            server_id: server_id(&self.server.id),
            tool: self.tool.name.clone(),
            arguments: Value::Object(arguments),
            caller: Caller::Model,
            consent: Default::default(),
        };
        let runner = self.clone();
        let started_ms = js_sys::Date::now() as u64;
        wasm_bindgen_futures::spawn_local(async move {
            let answer = services.port.request(request).await;
            runner.update(&call_id, &|card: &mut ToolCard| take_answer(card, &answer));
            // The person's own call, kept in the open chat's activity.
            runner.record(&services, &call_id, started_ms);
        });
    }

    fn record(&self, services: &AppServices, call_id: &str, started_ms: u64) {
        let now_ms = js_sys::Date::now() as u64;
        let runs = self.runs.borrow();
        let card = runs.iter().find(|c| c.call_id == call_id);
        if let Some(Activity::Tool(mut call)) = card.and_then(|c| Activity::of_card(c, started_ms))
        {
            call.asker = Asker::Person;
            call.duration_ms = Some(now_ms.saturating_sub(started_ms));
            services.driver.record_activity(Activity::Tool(call));
        }
    }
}

/// The worker's answer to a call, on its card.
fn take_answer(card: &mut ToolCard, answer: &Result<Response, impl ToString>) {
    match answer {
        Ok(Response::ToolResult { result }) => {
            let (text, is_error) = result_text(result, word);
            card.status = if is_error {
                ToolStatus::Failed { message: text.clone() }
            } else {
                ToolStatus::Done
            };
            card.result = Some(text);
            if let Some(app) = card.app.as_mut() {
                app.result = Some(Rc::new(result.clone()));
            }
        }
        Ok(Response::Error { error } | Response::SignInNeeded { error, .. }) => {
            card.status = ToolStatus::Failed { message: word(error) };
        }
        Ok(_) => {
            card.status = ToolStatus::Failed { message: message("errWorkerUnexpectedAnswer", &[]) };
        }
        Err(err) => card.status = ToolStatus::Failed { message: err.to_string() },
    }
}

/// What keeps a form from being sent, in words: the missing fields by path, then the lists.
fn words(problems: &[Problem]) -> String {
    let missing: Vec<&str> = problems
        .iter()
        .filter_map(|p| match p {
            Problem::Required(path) => Some(path.as_str()),
            _ => None,
        })
        .collect();
    let lists = problems.iter().filter_map(|p| match p {
        Problem::TooFew(path, n) => Some(message("panelFormTooFew", &[path, &n.to_string()])),
        Problem::TooMany(path, n) => Some(message("panelFormTooMany", &[path, &n.to_string()])),
        Problem::Required(_) => None,
    });
    let required = (!missing.is_empty()).then(|| message("panelRequired", &[&missing.join(", ")]));
    required.into_iter().chain(lists).collect::<Vec<_>>().join(" ")
}

/// The arguments: the raw JSON, or the form.
fn arguments(runner: &Runner) -> Html {
    if *runner.raw {
        let edit_raw = {
            let raw_text = runner.raw_text.clone();
            Callback::from(move |e: InputEvent| {
                *raw_text.borrow_mut() = e.target_unchecked_into::<HtmlTextAreaElement>().value();
            })
        };
        html! {
            <label class="field">
                <span>{ message("panelToolsArguments", &[]) }</span>
                <textarea class="json" rows="6" spellcheck="false" data-testid="tool-raw"
                    value={runner.raw_text.borrow().clone()} oninput={edit_raw} />
            </label>
        }
    } else {
        let redraw = runner.redraw.clone();
        let redraw_form = Callback::from(move |()| redraw.force_update());
        html! { <>{ for runner.form.iter().map(|f| form_field(f, &[], &runner.values, &redraw_form)) }</> }
    }
}

/// Run (or why this tool cannot be run by hand), and the switch between form and JSON.
fn actions(runner: &Runner, run: Callback<MouseEvent>, toggle_raw: Callback<MouseEvent>) -> Html {
    let runnable = runner.tool.is_visible_to(Visibility::Model);
    html! {
        <div class="confirm">
            if runnable {
                <button type="button" class="primary" onclick={run} data-testid="tool-run">
                    { message("panelToolsRun", &[]) }</button>
            } else {
                <p class="hint">{ message("panelToolsAppOnlyHint", &[]) }</p>
            }
            <button type="button" onclick={toggle_raw} data-testid="tool-raw-toggle">
                { message(if *runner.raw { "panelToolsForm" } else { "panelToolsRaw" }, &[]) }</button>
        </div>
    }
}

/// The runs so far, newest first, as the chat shows tool calls.
fn runs(runner: &Runner) -> Html {
    html! {
        <div class="tool-runs">
            { for runner.runs.borrow().iter().map(|card| html! {
                <ToolCardView key={card.call_id.clone()} card={card.clone()} on_decide={Callback::noop()} />
            }) }
        </div>
    }
}
