use gemipanel_browser::chrome::message;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    /// False once the settings are known to have no key: then the first step is to add one.
    pub has_key: bool,
}

/// What a new chat shows before the first message.
#[function_component]
pub fn EmptyChat(props: &Props) -> Html {
    html! {
        <section class="empty" aria-live="polite">
            <h2>{ message("emptyChatTitle", &[]) }</h2>
            <p>{ message("emptyChatBody", &[]) }</p>
            if props.has_key {
                <p>{ message("emptyChatHint", &[]) }</p>
            } else {
                <p>{ message("emptyChatNoKey", &[]) }</p>
                <a class="button primary" href="popup.html" target="_blank" rel="noopener"
                    data-testid="open-settings">{ message("panelOpenSettings", &[]) }</a>
            }
        </section>
    }
}
