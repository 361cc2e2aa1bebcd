//! The Gemini card: API key, default model, instructions for every chat, Save.

use gemipanel_browser::chrome::{message, word};
use yew::prelude::*;

use super::api_key_field::ApiKeyField;
use super::field::Note;
use super::model_field::ModelField;
use crate::state::{GeminiForm, Pending};

#[derive(Properties, PartialEq)]
pub struct Props {
    pub form: GeminiForm,
    /// False until the settings arrived: nothing to save yet.
    pub loaded: bool,
    pub on_key: Callback<String>,
    pub on_model: Callback<String>,
    pub on_instructions: Callback<String>,
    /// Saves this model at once (the replacement of one no longer offered).
    pub on_use_model: Callback<String>,
    pub on_check: Callback<()>,
    pub on_save: Callback<()>,
}

#[function_component]
pub fn GeminiCard(props: &Props) -> Html {
    let form = &props.form;
    let onsubmit = props.on_save.reform(|e: SubmitEvent| e.prevent_default());
    let (error, hint) = match &form.save {
        Pending::Failed(error) => (Some(error.clone()), None),
        Pending::Done(()) => (None, Some(message("popupSaved", &[]))),
        _ => (None, None),
    };
    let instructions_error = form.instructions_error().map(|t| word(&t));
    let oninput = props
        .on_instructions
        .reform(|e: InputEvent| e.target_unchecked_into::<web_sys::HtmlTextAreaElement>().value());
    html! {
        <section class="card" aria-labelledby="gemini-heading">
            <h2 id="gemini-heading">{ message("popupGeminiSection", &[]) }</h2>
            <form {onsubmit}>
                <ApiKeyField value={form.api_key.clone()} check={form.check.clone()}
                    oninput={props.on_key.clone()} oncheck={props.on_check.clone()} />
                <ModelField value={form.model.clone()} models={form.models.clone()}
                    onchange={props.on_model.clone()} on_use={props.on_use_model.clone()} />
                <div class="field">
                    <label for="instructions">{ message("popupInstructions", &[]) }</label>
                    <textarea id="instructions" class="instructions" rows="3" data-testid="instructions"
                        value={form.instructions.clone()} aria-describedby="instructions-note"
                        aria-invalid={instructions_error.as_ref().map(|_| "true")}
                        placeholder={message("popupInstructionsPlaceholder", &[])} {oninput} />
                    <Note id={"instructions-note".to_owned()} error={instructions_error.clone()}
                        hint={Some(message("popupInstructionsHint", &[]))} />
                </div>
                <div class="actions">
                    <div class="grow" aria-live="polite" data-testid="gemini-save-result">
                        <Note id="gemini-save-note" {error} {hint} />
                    </div>
                    <button type="submit" class="primary" data-testid="save-gemini"
                        disabled={!props.loaded || !form.dirty || form.save.is_running()
                            || instructions_error.is_some()}>
                        { message("popupSave", &[]) }
                    </button>
                </div>
            </form>
        </section>
    }
}
