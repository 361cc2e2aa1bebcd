use std::rc::Rc;

use gemipanel_browser::chrome::message;
use gemipanel_core::page::context::{ContextKind, ContextPart};
use gemipanel_core::resource_updates::FollowedResource;
use yew::prelude::*;

use super::changed_mark::ChangedMark;
use crate::state::PageView;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub page: PageView,
    pub selection: Option<Rc<ContextPart>>,
    pub attachments: Vec<Rc<ContextPart>>,
    /// The page chip was clicked: turn it on or off.
    pub on_page: Callback<bool>,
    pub on_attach_selection: Callback<()>,
    pub on_detach: Callback<usize>,
    /// The chat's resources that changed on their server since they were read.
    #[prop_or_default]
    pub changed: Vec<FollowedResource>,
    /// A changed resource's Refresh: (resource, its title).
    #[prop_or_default]
    pub on_refresh: Callback<(FollowedResource, String)>,
}

/// What goes with the next message besides the words: the page beside the chat (a toggle
/// showing the tab's icon and title), an offered selection, and what was attached.
#[function_component]
pub fn ContextChips(props: &Props) -> Html {
    let page = &props.page;
    let title = page.tab.as_ref().and_then(|t| t.title.clone().or_else(|| t.url.clone()));
    let title = title.unwrap_or_else(|| message("panelPageChipNoTab", &[]));
    let favicon = page
        .tab
        .as_ref()
        .and_then(|t| t.favicon.clone())
        .filter(|f| ["https:", "http:", "data:image/"].iter().any(|p| f.starts_with(p)));
    let on = page.on;
    let onclick = props.on_page.reform(move |_: MouseEvent| !on);
    let tip = if on {
        message("panelPageChipOn", &[&title])
    } else {
        message("panelPageChipOff", &[&title])
    };
    let page_chip = html! {
        <button type="button" class={classes!("chip", "page-chip", on.then_some("on"))} {onclick}
            aria-pressed={on.to_string()} title={tip.clone()} aria-label={tip}
            data-testid="page-chip" data-state={if on { "on" } else { "off" }}
            disabled={page.tab.is_none()}>
            if let Some(icon) = favicon {
                <img class="favicon" src={icon} alt="" width="14" height="14" />
            } else {
                <span class="favicon" aria-hidden="true">{ "▤" }</span>
            }
            <span class="chip-title">{ title }</span>
        </button>
    };
    let selection = props.selection.as_ref().map(|part| {
        let onclick = props.on_attach_selection.reform(|_: MouseEvent| ());
        let preview = preview(part);
        html! {
            <button type="button" class="chip offer" {onclick} data-testid="selection-chip"
                title={message("panelSelectionOffer", &[&preview])}>
                <span aria-hidden="true">{ "+ " }</span>
                <span class="chip-title">{ message("panelSelectionChip", &[&preview]) }</span>
            </button>
        }
    });
    let attached = props.attachments.iter().enumerate().map(|(i, part)| {
        let onclick = props.on_detach.reform(move |_: MouseEvent| i);
        let label = match part.label.kind {
            ContextKind::Selection => message("panelSelectionChip", &[&preview(part)]),
            ContextKind::Image => message("panelImageChip", &[&part.label.title]),
            ContextKind::Link => message("panelLinkChip", &[&part.label.url]),
            ContextKind::Page => message("panelPageChipOn", &[&part.label.title]),
            ContextKind::Resource => message("panelResourceChip", &[&part.label.title]),
            ContextKind::File => part.label.title.clone(),
        };
        let mark = FollowedResource::of(&part.label).filter(|r| props.changed.contains(r)).map(
            |resource| {
                let (title, on_refresh) = (part.label.title.clone(), props.on_refresh.clone());
                html! { <ChangedMark {resource} {title} {on_refresh} /> }
            },
        );
        html! {
            <span class={classes!("chip", "attached", mark.is_some().then_some("changed"))}
                data-testid="attachment" data-kind={kind_name(part.label.kind)}>
                <span class="chip-title" title={label.clone()}>{ label }</span>
                { for mark }
                <button type="button" class="remove" {onclick}
                    aria-label={message("panelDetach", &[])} title={message("panelDetach", &[])}>{ "×" }</button>
            </span>
        }
    });
    html! {
        <div class="context-chips" data-testid="context-chips">
            { page_chip }
            { for selection }
            { for attached }
        </div>
    }
}

pub fn kind_name(kind: ContextKind) -> &'static str {
    match kind {
        ContextKind::Page => "page",
        ContextKind::Selection => "selection",
        ContextKind::Image => "image",
        ContextKind::Link => "link",
        ContextKind::Resource => "resource",
        ContextKind::File => "file",
    }
}

/// The first words of a text part, for a chip.
fn preview(part: &ContextPart) -> String {
    let text = match &part.body {
        gemipanel_core::page::context::Body::Text(text) => text.as_str(),
        _ => part.label.title.as_str(),
    };
    let words: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut short: String = words.chars().take(40).collect();
    if words.chars().count() > 40 {
        short.push('…');
    }
    short
}
