use gemipanel_browser::chrome::message;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub code: AttrValue,
    pub lang: AttrValue,
}

/// A fenced code block with its language and a copy button.
#[function_component]
pub fn CodeBlock(props: &Props) -> Html {
    let copied = use_state(|| false);
    let on_copy = {
        let code = props.code.clone();
        let copied = copied.clone();
        Callback::from(move |_: MouseEvent| {
            let code = code.clone();
            let copied = copied.clone();
            wasm_bindgen_futures::spawn_local(async move {
                copied.set(copy_text(&code).await);
            });
        })
    };
    let label = if *copied { message("panelCopied", &[]) } else { message("panelCopy", &[]) };
    html! {
        <figure class="code-block">
            <figcaption>
                <span class="lang">{ props.lang.clone() }</span>
                <button type="button" class="copy" onclick={on_copy}>{ label }</button>
            </figcaption>
            <pre><code>{ props.code.clone() }</code></pre>
        </figure>
    }
}

/// Writes to the clipboard; false when the page may not (no focus, no permission).
pub async fn copy_text(text: &str) -> bool {
    let Some(window) = web_sys::window() else { return false };
    let promise = window.navigator().clipboard().write_text(text);
    wasm_bindgen_futures::JsFuture::from(promise).await.is_ok()
}
