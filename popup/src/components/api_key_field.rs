//! The Gemini API key: a masked box with a show/hide toggle and a Check button that lists the
//! models the key can use.

use gemipanel_browser::chrome::{counted_message, message};
use gemipanel_core::gemini::ModelInfo;
use yew::prelude::*;

use super::field::Note;
use crate::state::Pending;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub value: AttrValue,
    pub check: Pending<Vec<ModelInfo>>,
    pub oninput: Callback<String>,
    pub oncheck: Callback<()>,
    /// The note before any check, when not the popup's.
    #[prop_or_default]
    pub hint: Option<AttrValue>,
}

#[function_component]
pub fn ApiKeyField(props: &Props) -> Html {
    // Whether the key is shown is the popup's own business, never stored.
    let visible = use_state(|| false);
    let toggle = {
        let visible = visible.clone();
        Callback::from(move |_: MouseEvent| visible.set(!*visible))
    };
    let oninput = props
        .oninput
        .reform(|e: InputEvent| e.target_unchecked_into::<web_sys::HtmlInputElement>().value());
    let oncheck = props.oncheck.reform(|_: MouseEvent| ());
    let (toggle_label, input_type) = if *visible {
        (message("popupHideKey", &[]), "text")
    } else {
        (message("popupShowKey", &[]), "password")
    };
    let (error, hint) = match &props.check {
        Pending::Idle => (
            None,
            Some(
                props
                    .hint
                    .as_ref()
                    .map_or_else(|| message("popupApiKeyHint", &[]), |h| h.to_string()),
            ),
        ),
        Pending::Running => (None, Some(message("popupChecking", &[]))),
        Pending::Done(models) => (
            None,
            Some(counted_message("popupModelsFound", models.len(), &[&models.len().to_string()])),
        ),
        Pending::Failed(error) => (Some(message("popupCheckFailed", &[error])), None),
    };
    html! {
        <div class="field">
            <label for="api-key">{ message("popupApiKey", &[]) }</label>
            <div class="input-row">
                <input id="api-key" type={input_type} value={props.value.clone()}
                    autocomplete="off" spellcheck="false" placeholder="AIza…"
                    aria-describedby="api-key-note" {oninput} />
                <button type="button" class="secondary" onclick={toggle}
                    aria-pressed={(*visible).to_string()} aria-controls="api-key"
                    data-testid="toggle-key">{ toggle_label }</button>
                <button type="button" class="secondary" onclick={oncheck}
                    disabled={props.check.is_running()} data-testid="check-key">
                    if props.check.is_running() { <span class="spinner" aria-hidden="true"></span> }
                    { message("popupCheck", &[]) }
                </button>
            </div>
            <div aria-live="polite" data-testid="check-result">
                <Note id="api-key-note" {error} {hint} />
            </div>
        </div>
    }
}
