//! A chosen model the API no longer offers as it is (routed to another, or gone), with its
//! replacement offered.

use gemipanel_browser::chrome::message;
use gemipanel_core::gemini::{Availability, ModelInfo};
use yew::prelude::*;

use super::top_bar::name_of;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub model: String,
    pub availability: Availability,
    pub models: Vec<ModelInfo>,
    /// Uses this model instead.
    pub on_use: Callback<String>,
}

#[function_component]
pub fn ModelOffer(props: &Props) -> Html {
    let (said, replacement) = match &props.availability {
        Availability::Offered => return html! {},
        Availability::Routed { to } => {
            (message("modelRouted", &[&props.model, &name_of(&props.models, to)]), Some(to.clone()))
        }
        Availability::Gone { replacement } => {
            (message("modelGone", &[&props.model]), replacement.clone())
        }
    };
    let button = replacement.map(|to| {
        let name = name_of(&props.models, &to);
        let onclick = props.on_use.reform(move |_: MouseEvent| to.clone());
        html! {
            <button type="button" class="primary" {onclick} data-testid="use-replacement">
                { message("modelUse", &[&name]) }
            </button>
        }
    });
    html! {
        <div class="banner warn model-offer" role="status" data-testid="model-offer">
            <p>{ said }</p>
            { for button }
        </div>
    }
}
