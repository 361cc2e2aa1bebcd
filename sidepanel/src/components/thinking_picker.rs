//! The chat's thinking choice, offering what the model's family takes (none: not shown).

use gemipanel_browser::chrome::message;
use gemipanel_core::gemini::thinking::{choices, honoured};
use gemipanel_core::gemini::{Family, ThinkingChoice};
use web_sys::HtmlSelectElement;
use yew::prelude::*;

use crate::hooks::use_select_value;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub family: Family,
    pub choice: ThinkingChoice,
    pub on_change: Callback<ThinkingChoice>,
}

#[function_component]
pub fn ThinkingPicker(props: &Props) -> Html {
    let offered = choices(&props.family);
    // What the request will carry: a choice the model lacks shows as the one it becomes.
    let selected = honoured(&props.family, props.choice);
    let select = use_select_value(selected.as_str().to_owned());
    if offered.is_empty() {
        return html! {};
    }
    let onchange = props.on_change.reform(|e: Event| {
        let value = e.target_unchecked_into::<HtmlSelectElement>().value();
        ThinkingChoice::parse(&value).unwrap_or_default()
    });
    let family = props.family;
    let options = offered.into_iter().map(|choice| {
        html! {
            <option value={choice.as_str()} selected={choice == selected}>
                { message(choice.label_key(&family), &[]) }
            </option>
        }
    });
    html! {
        <label class="thinking-picker">
            <span>{ message("thinkingLabel", &[]) }</span>
            <select ref={select} data-testid="thinking" {onchange}>{ for options }</select>
        </label>
    }
}
