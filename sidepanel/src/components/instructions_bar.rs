//! The chat's custom instructions under the top bar: shown when set (those for every chat,
//! from the settings, and this chat's own), and edited here for this chat.

use gemipanel_browser::chrome::{message, word};
use gemipanel_core::settings::validate_instructions;
use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    /// From the settings, for every chat.
    pub every_chat: Option<AttrValue>,
    pub this_chat: Option<AttrValue>,
    /// The editor is open.
    pub editing: bool,
    pub on_editing: Callback<bool>,
    pub on_save: Callback<Option<String>>,
}

#[function_component]
pub fn InstructionsBar(props: &Props) -> Html {
    let input = use_node_ref();
    {
        // Filled once when it opens, not on every render: a refusal keeps what was typed.
        let (input, this_chat) = (input.clone(), props.this_chat.clone());
        use_effect_with(props.editing, move |open| {
            if let (true, Some(area)) = (*open, input.cast::<HtmlTextAreaElement>()) {
                area.set_value(this_chat.as_deref().unwrap_or_default());
                let _ = area.focus();
            }
        });
    }
    // Why the typed instructions were not saved (too long), until they are changed.
    let refused = use_state(|| None::<String>);
    if props.editing {
        let save = {
            let (input, on_save, refused) = (input.clone(), props.on_save.clone(), refused.clone());
            Callback::from(move |_: ()| {
                let value = input.cast::<HtmlTextAreaElement>().map(|a| a.value());
                // The same rule as for every chat's: they go with every request.
                let check = value.as_deref().map(|v| validate_instructions(v.trim()));
                if let Some(Err(invalid)) = check {
                    refused.set(Some(word(&invalid.message)));
                    return;
                }
                refused.set(None);
                on_save.emit(value.filter(|v| !v.trim().is_empty()));
            })
        };
        // Always there, empty until a refusal: the box before it keeps its element (Yew matches
        // unkeyed children from the end) and with it what was typed.
        let oninput = {
            let refused = refused.clone();
            Callback::from(move |_: InputEvent| {
                if refused.is_some() {
                    refused.set(None);
                }
            })
        };
        let refusal = html! {
            <p class="hint error" role="alert" data-testid="instructions-refused"
                hidden={refused.is_none()}>{ (*refused).clone().unwrap_or_default() }</p>
        };
        let close = props.on_editing.reform(|_: ()| false);
        let onkeydown = {
            let (save, close) = (save.clone(), close.clone());
            Callback::from(move |e: KeyboardEvent| {
                if e.key() == "Escape" {
                    e.prevent_default();
                    close.emit(());
                } else if e.key() == "Enter" && (e.ctrl_key() || e.meta_key()) {
                    e.prevent_default();
                    save.emit(());
                }
            })
        };
        let every_chat = props.every_chat.clone().map(|text| {
            html! {
                <p class="hint" data-testid="instructions-every-chat">
                    <strong>{ message("panelInstructionsEveryChat", &[]) }</strong>{ " " }{ text }
                </p>
            }
        });
        return html! {
            <section class="instructions-bar editing" data-testid="instructions-editor"
                aria-label={message("panelInstructions", &[])}>
                <label for="chat-instructions">{ message("panelInstructionsThisChat", &[]) }</label>
                <textarea id="chat-instructions" ref={input} rows="3" {onkeydown} {oninput}
                    data-testid="chat-instructions"
                    placeholder={message("panelInstructionsPlaceholder", &[])} />
                { refusal }
                { for every_chat }
                <div class="edit-actions">
                    <span class="hint">{ message("panelInstructionsKeys", &[]) }</span>
                    <button type="button" onclick={close.reform(|_: MouseEvent| ())}>
                        { message("panelCancel", &[]) }</button>
                    <button type="button" class="primary" data-testid="instructions-save"
                        onclick={save.reform(|_: MouseEvent| ())}>{ message("panelSave", &[]) }</button>
                </div>
            </section>
        };
    }
    let lines: Vec<(AttrValue, &str)> = [
        (props.every_chat.clone(), "panelInstructionsEveryChat"),
        (props.this_chat.clone(), "panelInstructionsThisChat"),
    ]
    .into_iter()
    .filter_map(|(text, key)| Some((text?, key)))
    .collect();
    if lines.is_empty() {
        return html! {};
    }
    let onclick = props.on_editing.reform(|_: MouseEvent| true);
    let shown = lines.into_iter().map(|(text, key)| {
        html! {
            <p title={text.clone()}><strong>{ message(key, &[]) }</strong>{ " " }
                <span class="text">{ text }</span></p>
        }
    });
    html! {
        <section class="instructions-bar" data-testid="instructions-bar"
            aria-label={message("panelInstructions", &[])}>
            <div class="lines">{ for shown }</div>
            <button type="button" class="icon-button" {onclick} data-testid="instructions-edit"
                title={message("panelInstructionsEdit", &[])}
                aria-label={message("panelInstructionsEdit", &[])}>{ "✎" }</button>
        </section>
    }
}
