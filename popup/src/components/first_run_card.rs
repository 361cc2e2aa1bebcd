//! The popup's Getting started card: the first-run steps left (`core::first_run`), each a line
//! with its action, until they are done or the person hides the list.

use gemipanel_browser::chrome::{message, word};
use gemipanel_core::first_run::Step;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub steps: Vec<Step>,
    pub on_action: Callback<Step>,
    pub on_welcome: Callback<()>,
    pub on_dismiss: Callback<()>,
}

#[function_component]
pub fn FirstRunCard(props: &Props) -> Html {
    let dismiss = message("firstRunDismiss", &[]);
    html! {
        <section class="card first-run" aria-labelledby="first-run-heading" data-testid="first-run">
            <div class="card-head">
                <h2 id="first-run-heading">{ message("firstRunTitle", &[]) }</h2>
                <button type="button" class="icon-button" data-testid="first-run-dismiss"
                    title={dismiss.clone()} aria-label={dismiss}
                    onclick={props.on_dismiss.reform(|_: MouseEvent| ())}>{ "×" }</button>
            </div>
            <ul class="first-run-steps">
                { for props.steps.iter().map(|step| {
                    let step = *step;
                    let onclick = props.on_action.reform(move |_: MouseEvent| step);
                    html! {
                        <li data-step={step_name(step)}>
                            <span>{ word(&step.todo()) }</span>
                            <button type="button" class="secondary" {onclick}>{ word(&step.action()) }</button>
                        </li>
                    }
                }) }
            </ul>
            <button type="button" class="link-button" data-testid="open-welcome"
                onclick={props.on_welcome.reform(|_: MouseEvent| ())}>{ message("firstRunWelcome", &[]) }</button>
        </section>
    }
}

/// The step's name for tests and styles, as stored.
pub fn step_name(step: Step) -> &'static str {
    match step {
        Step::ApiKey => "api_key",
        Step::Servers => "servers",
        Step::Shortcut => "shortcut",
    }
}
