//! The composer's menus as shown (`/` for commands and prompts, `@` for resources): one row per
//! entry (an icon, the name, a title, the server's name, a detail line), the highlighted row
//! marked for screen readers too (`aria-selected`), and a word when nothing matches or more is
//! on its way. Scrolling near the end asks for more (the `@` menu's next pages).

use gemipanel_browser::chrome::message;
use yew::prelude::*;

/// One row of a menu.
#[derive(Clone, Debug, PartialEq)]
pub struct MenuRow {
    pub icon: Option<&'static str>,
    /// What is typed: `/name` or `@name`.
    pub name: String,
    pub title: String,
    pub source: String,
    pub detail: String,
}

#[derive(Properties, PartialEq)]
pub struct Props {
    /// `slash` or `mention`: the element ids and test ids (`slash-menu`, `mention-item`, …).
    pub kind: &'static str,
    pub rows: Vec<MenuRow>,
    pub highlighted: usize,
    /// Still asking servers for their entries.
    pub loading: bool,
    /// The locale keys of the list's label and of "nothing matches".
    pub label_key: &'static str,
    pub loading_key: &'static str,
    pub none_key: &'static str,
    /// A line under the rows (what an attachment may hold, that more is coming).
    #[prop_or_default]
    pub footer: Option<String>,
    pub on_pick: Callback<usize>,
    /// The list was scrolled near its end.
    #[prop_or_default]
    pub on_end: Callback<()>,
}

#[function_component]
pub fn ComposerMenu(props: &Props) -> Html {
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
    let kind = props.kind;
    let rows = props.rows.iter().enumerate().map(|(n, row)| {
        let selected = n == props.highlighted;
        // A mouse press would take the focus from the input first.
        let onmousedown = props.on_pick.reform(move |e: MouseEvent| {
            e.prevent_default();
            n
        });
        html! {
            <li role="option" aria-selected={selected.to_string()} class={classes!("slash-item", selected.then_some("selected"))}
                {onmousedown} data-testid={format!("{kind}-item")}>
                <span class="slash-name">
                    if let Some(icon) = row.icon { <span class="slash-icon" aria-hidden="true">{ icon }</span> }
                    { row.name.clone() }
                </span>
                if !row.title.is_empty() { <span class="slash-title">{ row.title.clone() }</span> }
                <span class="slash-source">{ row.source.clone() }</span>
                if !row.detail.is_empty() { <span class="slash-detail">{ row.detail.clone() }</span> }
            </li>
        }
    });
    let empty = props.rows.is_empty().then(|| {
        let key = if props.loading { props.loading_key } else { props.none_key };
        html! { <li class="slash-empty">{ message(key, &[]) }</li> }
    });
    let footer = props.footer.clone().map(|text| {
        html! { <li class="slash-footer" aria-hidden="true" data-testid={format!("{kind}-footer")}>{ text }</li> }
    });
    let onscroll = {
        let on_end = props.on_end.clone();
        Callback::from(move |e: Event| {
            let Some(list) = e.target_dyn_into::<web_sys::Element>() else { return };
            if list.scroll_top() + list.client_height() + 40 >= list.scroll_height() {
                on_end.emit(());
            }
        })
    };
    html! {
        <ul class="slash-menu" role="listbox" ref={list} id={format!("{kind}-menu")}
            data-testid={format!("{kind}-menu")} {onscroll}
            aria-label={message(props.label_key, &[])}>
            { for rows }
            { for empty }
            { for footer }
        </ul>
    }
}
