use gemipanel_browser::chrome::message;
use yew::prelude::*;

use crate::state::KeyState;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub key_state: KeyState,
}

/// What a new chat shows before the first message.
#[function_component]
pub fn EmptyChat(props: &Props) -> Html {
    let (next_step, to_settings) = match props.key_state {
        KeyState::Unknown => (None, false),
        KeyState::Missing => (Some("emptyChatNoKey"), true),
        KeyState::Locked => (Some("emptyChatKeyLocked"), true),
        KeyState::Set => (Some("emptyChatHint"), false),
    };
    html! {
        <section class="empty" aria-live="polite">
            <h2>{ message("emptyChatTitle", &[]) }</h2>
            <p>{ message("emptyChatBody", &[]) }</p>
            if let Some(name) = next_step {
                <p>{ message(name, &[]) }</p>
            }
            if to_settings {
                <a class="button primary" href="popup.html" target="_blank" rel="noopener"
                    data-testid="open-settings">{ message("panelOpenSettings", &[]) }</a>
            }
        </section>
    }
}
