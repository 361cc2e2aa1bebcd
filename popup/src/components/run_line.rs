//! A local server's command line as the person is asked to allow it: the line, the variables
//! that change what runs with their values (flagged, those from the bridge's environment said
//! so), and how its `$VAR`s are expanded.

use gemipanel_browser::chrome::message;
use gemipanel_core::native::run_line::{RunLine, HIDDEN};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub line: RunLine,
    /// The `data-testid` of the line itself.
    pub testid: AttrValue,
    /// Framed as a line waiting for the person's decision.
    #[prop_or_default]
    pub to_confirm: bool,
}

#[function_component]
pub fn RunLineView(props: &Props) -> Html {
    let line = &props.line;
    let text = line.text();
    let hides = text.contains(HIDDEN);
    html! {
        <div class="run-line" data-expanded={line.expanded.to_string()}>
            <code class={classes!("command-line", props.to_confirm.then_some("to-confirm"))}
                data-testid={props.testid.clone()}>{ text }</code>
            { run_changing(line) }
            { expansions(line) }
            if hides {
                <p class="note">{ message("popupHiddenValue", &[HIDDEN]) }</p>
            }
        </div>
    }
}

/// The variables shown with their value, each flagged: they change what runs.
fn run_changing(line: &RunLine) -> Html {
    let variables: Vec<_> = line.run_changing().collect();
    if variables.is_empty() {
        return Html::default();
    }
    html! {
        <div class="run-changing" data-testid="run-changing">
            <p class="note warn"><span aria-hidden="true">{ "⚠ " }</span>
                { message("popupRunChanging", &[]) }</p>
            <ul>
                { for variables.into_iter().map(|v| html! {
                    <li data-testid="run-changing-variable" data-name={v.name.clone()}
                        data-inherited={v.inherited.to_string()}>
                        <code>{ format!("{}={}", v.name, v.value.as_deref().unwrap_or_default()) }</code>
                        if v.inherited {
                            <span class="badge">{ message("popupFromBridgeEnvironment", &[]) }</span>
                        }
                    </li>
                }) }
            </ul>
        </div>
    }
}

/// Which `$VAR`s the bridge expands, and whether the line shows them expanded.
fn expansions(line: &RunLine) -> Html {
    if line.variables.is_empty() {
        return Html::default();
    }
    let names: Vec<String> = line.variables.iter().map(|n| format!("${n}")).collect();
    let (key, state) =
        if line.expanded { ("popupExpanded", "expanded") } else { ("popupExpandsLater", "later") };
    html! {
        <p class="note" data-testid="expansion-note" data-state={state}>
            { message(key, &[&names.join(", ")]) }</p>
    }
}
