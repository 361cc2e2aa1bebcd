//! The mark of a sent or attached resource that changed on its server since it was read, with
//! the Refresh that reads it again for the next message.

use gemipanel_browser::chrome::message;
use gemipanel_core::resource_updates::FollowedResource;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub resource: FollowedResource,
    /// The resource's name as the chat shows it.
    pub title: AttrValue,
    pub on_refresh: Callback<(FollowedResource, String)>,
}

#[function_component]
pub fn ChangedMark(props: &Props) -> Html {
    let onclick = {
        let (resource, title) = (props.resource.clone(), props.title.to_string());
        props.on_refresh.reform(move |_: MouseEvent| (resource.clone(), title.clone()))
    };
    let tip = message("panelResourceChangedTip", &[&props.title]);
    let label = message("panelResourceRefreshLabel", &[&props.title]);
    html! {
        <span class="changed-mark" data-testid="resource-changed" data-uri={props.resource.uri.clone()}>
            <span class="badge" title={tip.clone()}>
                <span aria-hidden="true">{ "● " }</span>{ message("panelResourceChanged", &[]) }
                <span class="visually-hidden">{ format!(" — {tip}") }</span>
            </span>
            <button type="button" class="refresh" {onclick} data-testid="resource-refresh"
                title={label}>
                <span aria-hidden="true">{ "↻ " }</span>{ message("panelResourceRefresh", &[]) }
            </button>
        </span>
    }
}
