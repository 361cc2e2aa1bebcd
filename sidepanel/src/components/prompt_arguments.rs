//! The arguments of a prompt picked from the `/` menu, or the variables of a resource template
//! picked from the `@` menu, filled in above the input: required ones marked and checked before
//! the server is asked; Enter asks, Escape goes back to the input.
//! A field offers the server's suggestions (`completion/complete`, the fields already filled
//! going along) as a `datalist`, which the browser shows and lets the person pick with arrows.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use gemipanel_browser::chrome::message;
use gemipanel_core::mcp::{CompletionRef, PromptArgument};
use gemipanel_core::messages::{Request, Response};
use gemipanel_core::sync::Latest;
use serde_json::{Map, Value};
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::app_host::AppServices;

/// A prompt whose arguments (or a template whose variables) the person fills in before it is
/// asked for.
#[derive(Clone, PartialEq)]
pub struct ArgumentForm {
    pub server_id: String,
    pub server_name: String,
    /// What the server completes the values of: the prompt or the template.
    pub target: CompletionRef,
    /// `/name` or `@name`.
    pub heading: String,
    /// What a person reads of it (its title).
    pub label: String,
    pub arguments: Vec<PromptArgument>,
    /// The locale key of the button that goes on.
    pub submit_key: &'static str,
    pub values: Vec<String>,
    /// A required argument left empty when the person tried to go on.
    pub missing: Option<usize>,
}

impl ArgumentForm {
    /// The arguments filled so far but `except`.
    fn filled_but(&self, except: usize) -> Map<String, Value> {
        let named = self.arguments.iter().zip(&self.values).enumerate();
        named
            .filter(|(n, (_, value))| *n != except && !value.trim().is_empty())
            .map(|(_, (argument, value))| (argument.name.clone(), value.trim().into()))
            .collect()
    }

    /// The filled arguments, or the first required one left empty.
    fn arguments(&self) -> Result<Map<String, Value>, usize> {
        let mut filled = Map::new();
        for (n, (argument, value)) in self.arguments.iter().zip(&self.values).enumerate() {
            let value = value.trim();
            if value.is_empty() {
                if argument.required {
                    return Err(n);
                }
                continue;
            }
            filled.insert(argument.name.clone(), value.into());
        }
        Ok(filled)
    }
}

#[derive(Properties, PartialEq)]
pub struct Props {
    pub form: ArgumentForm,
    /// The form changed; `None`: the person closed it.
    pub on_change: Callback<Option<ArgumentForm>>,
    /// The form and the arguments it holds, all required ones filled.
    pub on_submit: Callback<(ArgumentForm, Map<String, Value>)>,
}

#[function_component]
pub fn PromptArguments(props: &Props) -> Html {
    let first = use_node_ref();
    let suggestions = use_suggestions();
    {
        // Another prompt or template: its first field, and none of the last one's values.
        let (first, suggestions) = (first.clone(), suggestions.clone());
        use_effect_with(props.form.heading.clone(), move |_| {
            suggestions.forget();
            if let Some(input) = first.cast::<HtmlInputElement>() {
                let _ = input.focus();
            }
        });
    }
    let form = &props.form;
    let submit = {
        let (form, on_change, on_submit) =
            (form.clone(), props.on_change.clone(), props.on_submit.clone());
        move || match form.arguments() {
            Ok(arguments) => on_submit.emit((form.clone(), arguments)),
            Err(n) => on_change.emit(Some(ArgumentForm { missing: Some(n), ..form.clone() })),
        }
    };
    let onkeydown = {
        let (on_change, submit) = (props.on_change.clone(), submit.clone());
        Callback::from(move |e: KeyboardEvent| match e.key().as_str() {
            "Enter" if !e.is_composing() => {
                e.prevent_default();
                submit();
            }
            "Escape" => {
                e.prevent_default();
                on_change.emit(None);
            }
            _ => {}
        })
    };
    let fields = form.arguments.iter().enumerate().map(|(n, argument)| {
        let oninput = {
            let (form, on_change, suggest) =
                (form.clone(), props.on_change.clone(), suggestions.clone());
            Callback::from(move |e: InputEvent| {
                let Some(input) = e.target_dyn_into::<HtmlInputElement>() else { return };
                let mut next = form.clone();
                next.values[n] = input.value();
                next.missing = None;
                suggest.ask(&next, n, input.value());
                on_change.emit(Some(next));
            })
        };
        let onfocus = {
            let (form, suggest) = (form.clone(), suggestions.clone());
            Callback::from(move |_: FocusEvent| suggest.ask(&form, n, form.values[n].clone()))
        };
        let list = format!("prompt-arg-{n}-values");
        let options = suggestions.of(n);
        let id = format!("prompt-arg-{n}");
        let missing = form.missing == Some(n);
        let node = if n == 0 { first.clone() } else { NodeRef::default() };
        html! {
            <div class="field">
                <label for={id.clone()}>
                    { argument.label().to_owned() }
                    if argument.required { <span class="required" aria-hidden="true">{ " *" }</span> }
                </label>
                <input id={id} ref={node} value={form.values[n].clone()} {oninput} {onfocus}
                    list={list.clone()} autocomplete="off"
                    required={argument.required} aria-invalid={missing.to_string()}
                    placeholder={argument.description.clone().unwrap_or_default()}
                    data-testid="prompt-argument" data-name={argument.name.clone()} />
                <datalist id={list} data-testid="prompt-suggestions">
                    { for options.into_iter().map(|v| html! { <option value={v} /> }) }
                </datalist>
                if missing { <p class="field-error" role="alert">{ message("panelSlashRequired", &[argument.label()]) }</p> }
            </div>
        }
    });
    let onclick = {
        let submit = submit.clone();
        Callback::from(move |_: MouseEvent| submit())
    };
    let cancel = props.on_change.reform(|_: MouseEvent| None);
    html! {
        <section class="prompt-arguments" data-testid="prompt-arguments" {onkeydown}
            aria-label={form.label.clone()}>
            <h3>{ form.heading.clone() }</h3>
            { for fields }
            <div class="actions">
                <button type="button" class="link" onclick={cancel}>{ message("panelSlashCancel", &[]) }</button>
                <button type="button" class="primary" {onclick} data-testid="prompt-use">{ message(form.submit_key, &[]) }</button>
            </div>
        </section>
    }
}

/// The server's values per field, as answered to the newest request of each (answers of
/// several fields, and of one field typed into quickly, may cross).
#[derive(Clone)]
struct Suggestions {
    services: Option<AppServices>,
    values: Rc<RefCell<HashMap<usize, Vec<String>>>>,
    asked: Rc<RefCell<Latest<usize>>>,
    redraw: UseForceUpdateHandle,
}

#[hook]
fn use_suggestions() -> Suggestions {
    Suggestions {
        services: use_context::<AppServices>(),
        values: use_mut_ref(HashMap::new),
        asked: use_mut_ref(Latest::default),
        redraw: use_force_update(),
    }
}

impl Suggestions {
    /// Another form is shown: the last one's values go, and its answers on their way too.
    fn forget(&self) {
        self.values.borrow_mut().clear();
        self.asked.borrow_mut().drop_pending();
    }

    fn of(&self, n: usize) -> Vec<String> {
        self.values.borrow().get(&n).cloned().unwrap_or_default()
    }

    /// Asks the server what field `n` of `form` could hold, typed so far as `value`.
    fn ask(&self, form: &ArgumentForm, n: usize, value: String) {
        let Some(services) = self.services.clone() else { return };
        let Some(argument) = form.arguments.get(n) else { return };
        let request = Request::Complete {
            server_id: crate::chat_driver::server_id(&form.server_id),
            reference: form.target.clone(),
            argument: argument.name.clone(),
            value,
            filled: form.filled_but(n),
        };
        let ticket = self.asked.borrow_mut().ask(n);
        let this = self.clone();
        wasm_bindgen_futures::spawn_local(async move {
            // No suggestions is what a failed completion costs: the field still takes text.
            if let Ok(Response::Completion { completion }) = services.port.request(request).await {
                if this.asked.borrow().is_latest(&n, ticket) {
                    this.values.borrow_mut().insert(n, completion.values);
                    this.redraw.force_update();
                }
            }
        });
    }
}
