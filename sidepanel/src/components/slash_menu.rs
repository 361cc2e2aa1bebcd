//! The composer's `/` menu as shown: one row per command or prompt (the server's name beside a
//! prompt), the highlighted row marked for screen readers too (`aria-selected`).

use gemipanel_browser::chrome::message;
use gemipanel_core::slash::SlashItem;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub items: Vec<SlashItem>,
    pub highlighted: usize,
    /// Still asking servers for their prompts.
    pub loading: bool,
    pub on_pick: Callback<usize>,
}

#[function_component]
pub fn SlashMenu(props: &Props) -> Html {
    let list = use_node_ref();
    {
        // The arrows may move past what the list shows.
        let list = list.clone();
        use_effect_with(props.highlighted, move |_| {
            let selected = list
                .cast::<web_sys::Element>()
                .and_then(|l| l.query_selector(".selected").ok().flatten());
            if let Some(selected) = selected {
                selected.scroll_into_view_with_bool(false);
            }
        });
    }
    let rows = props.items.iter().enumerate().map(|(n, item)| {
        let selected = n == props.highlighted;
        let (title, detail, source) = match item {
            SlashItem::Command(command) => {
                (String::new(), message(command.description_key(), &[]), message("panelSlashPanel", &[]))
            }
            SlashItem::Prompt { server_name, prompt, .. } => (
                prompt.title.clone().filter(|t| t != &prompt.name).unwrap_or_default(),
                prompt.description.clone().unwrap_or_default(),
                server_name.clone(),
            ),
        };
        // A mouse press would take the focus from the input first.
        let onmousedown = props.on_pick.reform(move |e: MouseEvent| {
            e.prevent_default();
            n
        });
        html! {
            <li role="option" aria-selected={selected.to_string()} class={classes!("slash-item", selected.then_some("selected"))}
                {onmousedown} data-testid="slash-item">
                <span class="slash-name">{ format!("/{}", item.name()) }</span>
                if !title.is_empty() { <span class="slash-title">{ title }</span> }
                <span class="slash-source">{ source }</span>
                if !detail.is_empty() { <span class="slash-detail">{ detail }</span> }
            </li>
        }
    });
    let empty = props.items.is_empty().then(|| {
        let key = if props.loading { "panelSlashLoading" } else { "panelSlashNone" };
        html! { <li class="slash-empty">{ message(key, &[]) }</li> }
    });
    html! {
        <ul class="slash-menu" role="listbox" ref={list} id="slash-menu" data-testid="slash-menu"
            aria-label={message("panelSlashMenu", &[])}>
            { for rows }
            { for empty }
        </ul>
    }
}
