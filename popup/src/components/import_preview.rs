//! What an import would change, with Apply and Cancel.

use gemipanel_browser::chrome::{message, word};
use gemipanel_core::settings::{ImportPreview as Preview, Server, SettingsEdit};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub preview: Preview,
    pub applying: bool,
    pub on_apply: Callback<SettingsEdit>,
    pub on_cancel: Callback<()>,
}

#[function_component]
pub fn ImportPreview(props: &Props) -> Html {
    let p = &props.preview;
    let on_apply = {
        let (cb, edit) = (props.on_apply.clone(), p.clone().into_edit());
        Callback::from(move |_: MouseEvent| cb.emit(edit.clone()))
    };
    let nothing = p.is_empty();
    let group = |key: &str, items: Html, class: &'static str| {
        html! {
            <div class={classes!("preview-group", class)}>
                <h4>{ message(key, &[]) }</h4>
                <ul>{ items }</ul>
            </div>
        }
    };
    let servers = |list: &[Server]| html! { { for list.iter().map(server_item) } };
    let any_local = p.added.iter().chain(&p.updated).any(|s| s.local.is_some());
    html! {
        <div class="import-preview" data-testid="import-preview">
            <p class="note">{ message("popupImportSource", &[p.source.label()]) }</p>
            if any_local {
                <p class="note warn" data-testid="import-local-note">{ message("popupImportLocalNote", &[]) }</p>
            }
            if !p.added.is_empty() { { group("popupImportAdded", servers(&p.added), "added") } }
            if !p.updated.is_empty() { { group("popupImportUpdated", servers(&p.updated), "updated") } }
            if !p.skipped.is_empty() {
                { group("popupImportSkipped", html! {
                    { for p.skipped.iter().map(|skipped| html! {
                        <li><strong>{ &skipped.name }</strong>{ " — " }
                            <span class="muted">{ word(&skipped.reason) }</span></li>
                    }) }
                }, "skipped") }
            }
            if p.api_key.is_some() || p.model.is_some() {
                <p class="note">{ message("popupImportGemini", &[]) }{ p.model.as_deref().map(|m| format!(" ({m})")).unwrap_or_default() }</p>
            }
            if p.instructions.is_some() {
                <p class="note" data-testid="import-instructions">{ message("popupImportInstructions", &[]) }</p>
            }
            if !p.warnings.is_empty() {
                { group("popupImportWarnings", html! {
                    { for p.warnings.iter().map(|w| html! { <li>{ word(w) }</li> }) }
                }, "warnings") }
            }
            if nothing { <p class="note">{ message("popupImportNothing", &[]) }</p> }
            <div class="actions">
                <span class="grow"></span>
                <button type="button" class="secondary" onclick={props.on_cancel.reform(|_: MouseEvent| ())}>
                    { message("popupCancel", &[]) }</button>
                <button type="button" class="primary" data-testid="apply-import"
                    disabled={nothing || props.applying} onclick={on_apply}>
                    { message("popupImportApply", &[]) }</button>
            </div>
        </div>
    }
}

/// A server's name and where it is: its URL, or the command line a local one runs (values of
/// its environment hidden).
fn server_item(server: &Server) -> Html {
    match &server.local {
        Some(local) => html! {
            <li><strong>{ &server.name }</strong>{ " " }
                <code class="muted import-command">{ local.display() }</code></li>
        },
        None => html! {
            <li><strong>{ &server.name }</strong>{ " " }<span class="muted">{ &server.url }</span></li>
        },
    }
}
