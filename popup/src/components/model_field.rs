//! The default model: automatic (the newest stable Flash) or one of the list, grouped stable
//! and preview with each model's context window; free text before any list is known. A chosen
//! model the API no longer offers as it is comes with its replacement offered.

use gemipanel_browser::chrome::message;
use gemipanel_browser::gemini_models::option_label;
use gemipanel_core::gemini::{automatic_model, availability, Availability, ModelInfo, Stage};
use yew::prelude::*;

use crate::hooks::use_select_value;

#[derive(Properties, PartialEq)]
pub struct Props {
    /// Empty: automatic.
    pub value: AttrValue,
    /// The list kept from before, the live one or the last Check's.
    pub models: Option<Vec<ModelInfo>>,
    pub onchange: Callback<String>,
    /// Uses the offered replacement at once (its id, empty for automatic).
    pub on_use: Callback<String>,
}

#[function_component]
pub fn ModelField(props: &Props) -> Html {
    let label = html! { <label for="model">{ message("popupModel", &[]) }</label> };
    let listed = props.models.as_deref().filter(|m| !m.is_empty());
    let automatic = automatic_model(listed);
    let automatic_label = message("modelAutomatic", &[&name_of(listed, automatic)]);
    let offer = offer(props, listed, automatic);
    let select = use_select_value(props.value.to_string());
    let Some(models) = listed else {
        let oninput = props
            .onchange
            .reform(|e: InputEvent| e.target_unchecked_into::<web_sys::HtmlInputElement>().value());
        return html! {
            <div class="field">
                { label }
                <input id="model" type="text" value={props.value.clone()} spellcheck="false"
                    autocomplete="off" aria-describedby="model-note" placeholder={automatic_label} {oninput} />
                <p id="model-note" class="note">{ message("popupModelHint", &[]) }</p>
                { offer }
            </div>
        };
    };
    let onchange = props
        .onchange
        .reform(|e: Event| e.target_unchecked_into::<web_sys::HtmlSelectElement>().value());
    let value = props.value.as_str();
    let known = value.is_empty() || models.iter().any(|m| m.id == value);
    let group = |stage: Stage, key: &str| {
        let options: Vec<Html> = models
            .iter()
            .filter(|m| m.stage == stage)
            .map(|m| html! { <option value={m.id.clone()} selected={m.id == value}>{ option_label(m) }</option> })
            .collect();
        (!options.is_empty())
            .then(|| html! { <optgroup label={message(key, &[])}>{ for options }</optgroup> })
    };
    html! {
        <div class="field">
            { label }
            <select ref={select} id="model" aria-describedby="model-auto-note" {onchange}>
                <option value="" selected={value.is_empty()}>{ automatic_label }</option>
                // The current model stays selectable even when the list lacks it.
                if !known {
                    <option value={value.to_owned()} selected=true>{ value.to_owned() }</option>
                }
                { for group(Stage::Stable, "modelGroupStable") }
                { for group(Stage::Preview, "modelGroupPreview") }
            </select>
            <p id="model-auto-note" class="note">{ message("popupModelAutomaticHint", &[]) }</p>
            { offer }
        </div>
    }
}

/// The replacement offer for a chosen model that is routed or gone.
fn offer(props: &Props, listed: Option<&[ModelInfo]>, automatic: &str) -> Html {
    let value = props.value.trim();
    if value.is_empty() {
        return html! {};
    }
    let (said, replacement) = match availability(value, listed) {
        Availability::Offered => return html! {},
        Availability::Routed { to } => {
            (message("modelRouted", &[value, &name_of(listed, &to)]), Some(to))
        }
        Availability::Gone { replacement } => (message("modelGone", &[value]), replacement),
    };
    let button = replacement.map(|to| {
        let name = name_of(listed, &to);
        // The automatic default is what a replaced model turns into when they are the same.
        let value = if to == automatic { String::new() } else { to };
        let onclick = props.on_use.reform(move |_: MouseEvent| value.clone());
        html! {
            <button type="button" class="secondary" {onclick} data-testid="use-replacement">
                { message("modelUse", &[&name]) }
            </button>
        }
    });
    html! {
        <div class="note warn model-offer" role="status" data-testid="model-offer">
            <span>{ said }</span>
            { for button }
        </div>
    }
}

/// A model's display name from the list, else its id.
fn name_of(listed: Option<&[ModelInfo]>, id: &str) -> String {
    listed
        .and_then(|m| m.iter().find(|m| m.id == id))
        .map_or_else(|| id.to_owned(), |m| m.display_name.clone())
}
