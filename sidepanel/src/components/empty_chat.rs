use gemipanel_browser::chrome::message;
use yew::prelude::*;

/// What a new chat shows before the first message.
#[function_component]
pub fn EmptyChat() -> Html {
    html! {
        <section class="empty" aria-live="polite">
            <h2>{ message("emptyChatTitle", &[]) }</h2>
            <p>{ message("emptyChatBody", &[]) }</p>
        </section>
    }
}
