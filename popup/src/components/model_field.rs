//! The default model: a list once the key was checked, free text before.

use gemipanel_browser::chrome::message;
use gemipanel_core::gemini::ModelInfo;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub value: AttrValue,
    /// From the last successful Check.
    pub models: Option<Vec<ModelInfo>>,
    pub onchange: Callback<String>,
}

#[function_component]
pub fn ModelField(props: &Props) -> Html {
    let label = html! { <label for="model">{ message("popupModel", &[]) }</label> };
    let Some(models) = props.models.as_ref().filter(|m| !m.is_empty()) else {
        let oninput = props
            .onchange
            .reform(|e: InputEvent| e.target_unchecked_into::<web_sys::HtmlInputElement>().value());
        return html! {
            <div class="field">
                { label }
                <input id="model" type="text" value={props.value.clone()} spellcheck="false"
                    autocomplete="off" aria-describedby="model-note" {oninput} />
                <p id="model-note" class="note">{ message("popupModelHint", &[]) }</p>
            </div>
        };
    };
    let onchange = props
        .onchange
        .reform(|e: Event| e.target_unchecked_into::<web_sys::HtmlSelectElement>().value());
    // The current model stays selectable even when the key does not list it.
    let listed = models.iter().any(|m| m.id == props.value.as_str());
    html! {
        <div class="field">
            { label }
            <select id="model" {onchange}>
                if !listed {
                    <option value={props.value.clone()} selected=true>{ props.value.clone() }</option>
                }
                { for models.iter().map(|m| html! {
                    <option value={m.id.clone()} selected={m.id == props.value.as_str()}>
                        { model_label(m) }
                    </option>
                }) }
            </select>
        </div>
    }
}

fn model_label(model: &ModelInfo) -> String {
    if model.display_name.is_empty() || model.display_name == model.id {
        model.id.clone()
    } else {
        format!("{} ({})", model.display_name, model.id)
    }
}
