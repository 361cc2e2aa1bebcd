//! Import: a configuration file or pasted text, previewed before it is applied. The popup's
//! Import card and the welcome page's servers step both show it.

use gemipanel_browser::chrome::{counted_message, message};
use gemipanel_core::settings::SettingsEdit;
use yew::prelude::*;

use super::import_preview::ImportPreview;
use crate::state::ImportView;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub import: ImportView,
    pub on_file: Callback<web_sys::File>,
    pub on_paste: Callback<String>,
    pub on_apply: Callback<SettingsEdit>,
    pub on_cancel: Callback<()>,
}

#[function_component]
pub fn ImportForm(props: &Props) -> Html {
    let pasted = use_state(String::new);
    let on_file = props.on_file.clone();
    let onchange = Callback::from(move |e: Event| {
        let input = e.target_unchecked_into::<web_sys::HtmlInputElement>();
        if let Some(file) = input.files().and_then(|files| files.get(0)) {
            on_file.emit(file);
        }
        // Picking the same file again must fire `change` again.
        input.set_value("");
    });
    let oninput = {
        let pasted = pasted.clone();
        Callback::from(move |e: InputEvent| {
            pasted.set(e.target_unchecked_into::<web_sys::HtmlTextAreaElement>().value())
        })
    };
    let on_preview_paste = {
        let (pasted, cb) = (pasted.clone(), props.on_paste.clone());
        Callback::from(move |_: MouseEvent| cb.emit((*pasted).clone()))
    };
    let status = match &props.import {
        ImportView::Idle => html! {},
        ImportView::Reading => {
            html! { <p class="note"><span class="spinner" aria-hidden="true"></span>{ message("popupImportReading", &[]) }</p> }
        }
        ImportView::Preview(preview) | ImportView::Applying(preview) => html! {
            <ImportPreview preview={preview.clone()}
                applying={matches!(props.import, ImportView::Applying(_))}
                on_apply={props.on_apply.clone()} on_cancel={props.on_cancel.clone()} />
        },
        ImportView::Applied(count) => {
            html! { <p class="note ok">{ counted_message("popupImportApplied", *count, &[&count.to_string()]) }</p> }
        }
        ImportView::Failed(error) => {
            html! { <p class="note error" role="alert">{ message("popupImportFailed", &[error]) }</p> }
        }
    };
    let previewing = matches!(props.import, ImportView::Preview(_) | ImportView::Applying(_));
    html! {
        <>
            if !previewing {
                <div class="field">
                    <label for="import-file">{ message("popupImportFile", &[]) }</label>
                    <input id="import-file" type="file" accept=".json,.jsonc,application/json"
                        data-testid="import-file" {onchange} />
                    <p class="note">{ message("popupImportHint", &[]) }</p>
                </div>
                <details class="paste">
                    <summary>{ message("popupImportPaste", &[]) }</summary>
                    <label for="import-text" class="visually-hidden">{ message("popupImportPaste", &[]) }</label>
                    <textarea id="import-text" rows="4" spellcheck="false" value={(*pasted).clone()} {oninput} />
                    <div class="actions">
                        <button type="button" class="secondary" disabled={pasted.trim().is_empty()}
                            onclick={on_preview_paste}>{ message("popupImportPreview", &[]) }</button>
                    </div>
                </details>
            }
            <div aria-live="polite" data-testid="import-status">{ status }</div>
        </>
    }
}
