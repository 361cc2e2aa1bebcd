//! The Import and export card: [`ImportForm`], then export with or without secrets.

use gemipanel_browser::chrome::message;
use gemipanel_core::settings::SettingsEdit;
use yew::prelude::*;

use super::field::CheckField;
use super::import_form::ImportForm;
use crate::state::ImportView;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub import: ImportView,
    pub include_secrets: bool,
    pub export_error: Option<String>,
    /// Servers whose URL query the last export left out.
    pub export_shortened: Vec<String>,
    pub export_blanked: Vec<String>,
    pub on_file: Callback<web_sys::File>,
    pub on_paste: Callback<String>,
    pub on_apply: Callback<SettingsEdit>,
    pub on_cancel: Callback<()>,
    pub on_export: Callback<()>,
    pub on_include_secrets: Callback<bool>,
}

#[function_component]
pub fn ImportExport(props: &Props) -> Html {
    html! {
        <section class="card" aria-labelledby="import-heading">
            <h2 id="import-heading">{ message("popupImportSection", &[]) }</h2>
            <ImportForm import={props.import.clone()} on_file={props.on_file.clone()}
                on_paste={props.on_paste.clone()} on_apply={props.on_apply.clone()}
                on_cancel={props.on_cancel.clone()} />
            <hr />
            <CheckField id="export-secrets" label={message("popupIncludeSecrets", &[])}
                checked={props.include_secrets} onchange={props.on_include_secrets.clone()}
                hint={message("popupIncludeSecretsHint", &[])} />
            if let Some(error) = &props.export_error {
                <p class="note error" role="alert">{ error }</p>
            }
            if !props.export_shortened.is_empty() {
                <p class="note warn" data-testid="export-shortened">
                    { message("popupExportShortened", &[&props.export_shortened.join(", ")]) }</p>
            }
            if !props.export_blanked.is_empty() {
                <p class="note warn" data-testid="export-blanked">
                    { message("popupExportBlanked", &[&props.export_blanked.join(", ")]) }</p>
            }
            <div class="actions">
                <button type="button" class="secondary" data-testid="export"
                    onclick={props.on_export.reform(|_: MouseEvent| ())}>
                    { message("popupExport", &[]) }</button>
            </div>
        </section>
    }
}
