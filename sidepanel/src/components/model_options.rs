//! The options of a model picker: the default first, then the list's models grouped stable and
//! preview, each with its context window; a chosen model the list lacks stays selectable.

use gemipanel_browser::chrome::message;
use gemipanel_browser::gemini_models::option_label;
use gemipanel_core::gemini::{ModelInfo, Stage};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub models: Vec<ModelInfo>,
    /// The selected option's value; empty: the default.
    pub value: String,
    pub default_label: String,
}

#[function_component]
pub fn ModelOptions(props: &Props) -> Html {
    let value = props.value.as_str();
    let listed = value.is_empty() || props.models.iter().any(|m| m.id == value);
    let group = |stage: Stage, key: &str| {
        let options: Vec<Html> = props
            .models
            .iter()
            .filter(|m| m.stage == stage)
            .map(|m| {
                html! {
                    <option value={m.id.clone()} selected={m.id == value}>{ option_label(m) }</option>
                }
            })
            .collect();
        (!options.is_empty()).then(|| {
            html! { <optgroup label={message(key, &[])} data-stage={key.to_owned()}>{ for options }</optgroup> }
        })
    };
    html! {
        <>
            <option value="" selected={value.is_empty()}>{ props.default_label.clone() }</option>
            if !listed {
                <option value={value.to_owned()} selected=true>{ value.to_owned() }</option>
            }
            { for group(Stage::Stable, "modelGroupStable") }
            { for group(Stage::Preview, "modelGroupPreview") }
        </>
    }
}
