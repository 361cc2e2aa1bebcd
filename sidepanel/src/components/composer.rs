use gemipanel_browser::chrome::message;
use gemipanel_core::apps::composer_with_message;
use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub busy: bool,
    pub on_send: Callback<String>,
    pub on_stop: Callback<()>,
    /// The tools menu and toggles, shown above the input.
    #[prop_or_default]
    pub children: Html,
    /// A message an app offered; put in the input (for the person to edit or send), after
    /// what they were typing, each time `draft_epoch` changes.
    #[prop_or_default]
    pub draft: Option<String>,
    #[prop_or_default]
    pub draft_epoch: u32,
    /// The input got focus (the person is about to write: a selection on the page is offered).
    #[prop_or_default]
    pub on_focus: Callback<()>,
}

/// The message input: Enter sends, Shift+Enter is a newline; Stop while Gemini answers.
#[function_component]
pub fn Composer(props: &Props) -> Html {
    let input = use_node_ref();
    {
        let (input, draft) = (input.clone(), props.draft.clone());
        use_effect_with(props.draft_epoch, move |_| {
            if let (Some(area), Some(text)) = (input.cast::<HtmlTextAreaElement>(), draft) {
                area.set_value(&composer_with_message(&area.value(), &text));
                let _ = area.focus();
            }
        });
    }
    let send = {
        let (input, on_send, busy) = (input.clone(), props.on_send.clone(), props.busy);
        Callback::from(move |_: ()| {
            let Some(area) = input.cast::<HtmlTextAreaElement>() else { return };
            let text = area.value();
            if busy || text.trim().is_empty() {
                return;
            }
            area.set_value("");
            on_send.emit(text);
        })
    };
    let onkeydown = {
        let send = send.clone();
        Callback::from(move |e: KeyboardEvent| {
            // While an IME composes (Japanese input), Enter confirms the composition.
            if e.key() == "Enter" && !e.shift_key() && !e.is_composing() {
                e.prevent_default();
                send.emit(());
            }
        })
    };
    let button = if props.busy {
        let onclick = props.on_stop.reform(|_: MouseEvent| ());
        html! { <button type="button" class="stop" {onclick} data-testid="stop">{ message("panelStop", &[]) }</button> }
    } else {
        let onclick = send.reform(|_: MouseEvent| ());
        html! { <button type="button" class="primary send" {onclick} data-testid="send">{ message("panelSend", &[]) }</button> }
    };
    html! {
        <footer class="composer">
            { props.children.clone() }
            <div class="input-row">
                <textarea ref={input} rows="2" {onkeydown} data-testid="input"
                    onfocus={props.on_focus.reform(|_: FocusEvent| ())}
                    placeholder={message("panelInputPlaceholder", &[])}
                    aria-label={message("panelInputPlaceholder", &[])} />
                { button }
            </div>
        </footer>
    }
}
