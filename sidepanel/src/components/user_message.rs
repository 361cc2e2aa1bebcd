//! A message of the person's: its text, an Edit button that turns it into a box (Enter sends
//! the edited message as a new version of the chat, Shift+Enter is a new line, Escape
//! cancels), and the switch between versions when there are several.

use gemipanel_browser::chrome::message;
use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

use crate::state::MessageInfo;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub text: AttrValue,
    /// Which message of the shown chat this is (0-based).
    pub at: usize,
    pub info: MessageInfo,
    /// (message, new text)
    pub on_edit: Callback<(usize, String)>,
    /// (message, version)
    pub on_switch: Callback<(usize, usize)>,
}

#[function_component]
pub fn UserMessage(props: &Props) -> Html {
    let editing = use_state(|| false);
    let input = use_node_ref();
    {
        // The box takes the focus when it opens, with the caret at the end.
        let input = input.clone();
        use_effect_with(*editing, move |open| {
            if let (true, Some(area)) = (*open, input.cast::<HtmlTextAreaElement>()) {
                let _ = area.focus();
                let end = area.value().encode_utf16().count() as u32;
                let _ = area.set_selection_range(end, end);
            }
        });
    }
    let at = props.at;
    if *editing && props.info.editable {
        let save = {
            let (input, editing, on_edit, old) =
                (input.clone(), editing.clone(), props.on_edit.clone(), props.text.clone());
            Callback::from(move |_: ()| {
                let Some(area) = input.cast::<HtmlTextAreaElement>() else { return };
                let text = area.value();
                if text.trim().is_empty() {
                    return;
                }
                editing.set(false);
                if text != *old {
                    on_edit.emit((at, text));
                }
            })
        };
        let cancel = {
            let editing = editing.clone();
            Callback::from(move |_: ()| editing.set(false))
        };
        let onkeydown = {
            let (save, cancel) = (save.clone(), cancel.clone());
            Callback::from(move |e: KeyboardEvent| {
                if e.key() == "Enter" && !e.shift_key() && !e.is_composing() {
                    e.prevent_default();
                    save.emit(());
                } else if e.key() == "Escape" {
                    e.prevent_default();
                    cancel.emit(());
                }
            })
        };
        return html! {
            <div class="edit-message" data-testid="edit-message">
                <textarea ref={input} rows="3" value={props.text.clone()} {onkeydown}
                    aria-label={message("panelEditMessage", &[])} data-testid="edit-input" />
                <p class="hint">{ message("panelEditHint", &[]) }</p>
                <div class="edit-actions">
                    <button type="button" onclick={cancel.reform(|_: MouseEvent| ())}>
                        { message("panelCancel", &[]) }</button>
                    <button type="button" class="primary" data-testid="edit-send"
                        onclick={save.reform(|_: MouseEvent| ())}>{ message("panelSend", &[]) }</button>
                </div>
            </div>
        };
    }
    let edit = props.info.editable.then(|| {
        let editing = editing.clone();
        let onclick = Callback::from(move |_: MouseEvent| editing.set(true));
        html! {
            <button type="button" class="icon-button" {onclick} data-testid="edit"
                title={message("panelEditMessage", &[])} aria-label={message("panelEditMessage", &[])}>
                { "✎" }
            </button>
        }
    });
    let versions = props.info.versions.map(|(shown, count)| {
        let go = |to: usize| props.on_switch.reform(move |_: MouseEvent| (at, to));
        let busy = !props.info.editable;
        html! {
            <span class="versions" data-testid="versions" role="group"
                aria-label={message("panelVersions", &[])}>
                <button type="button" class="icon-button" disabled={busy || shown == 0}
                    onclick={go(shown.saturating_sub(1))} data-testid="version-previous"
                    aria-label={message("panelVersionPrevious", &[])}>{ "‹" }</button>
                <span class="count" data-testid="version-count">
                    { message("panelVersionOf", &[&(shown + 1).to_string(), &count.to_string()]) }
                </span>
                <button type="button" class="icon-button" disabled={busy || shown + 1 >= count}
                    onclick={go(shown + 1)} data-testid="version-next"
                    aria-label={message("panelVersionNext", &[])}>{ "›" }</button>
            </span>
        }
    });
    html! {
        <>
            <div class="bubble">{ props.text.clone() }</div>
            if edit.is_some() || versions.is_some() {
                <div class="message-meta">{ for versions }{ for edit }</div>
            }
        </>
    }
}
