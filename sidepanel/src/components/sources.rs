//! Under a reply grounded with Google Search: its sources, numbered, each with the sentences of
//! the reply it supports, and the searches the model ran. Links were checked by core
//! (`url_policy::link`) and open in a new tab without the panel as their opener.

use gemipanel_browser::chrome::message;
use gemipanel_core::gemini::Sources;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub sources: Sources,
}

#[function_component]
pub fn SourcesView(props: &Props) -> Html {
    let sources = &props.sources;
    let items = sources.sources.iter().enumerate().map(|(i, source)| {
        let title = match &source.href {
            Some(href) => html! {
                <a href={href.clone()} target="_blank" rel="noopener noreferrer"
                    referrerpolicy="no-referrer">{ source.title.clone() }</a>
            },
            None => html! { <span class="title">{ source.title.clone() }</span> },
        };
        let supports = source.supports.iter().map(|text| {
            html! { <li>{ message("panelQuoted", &[text]) }</li> }
        });
        html! {
            <li data-testid="source">
                <span class="number" aria-hidden="true">{ i + 1 }</span>
                <div>
                    { title }
                    if !source.supports.is_empty() {
                        <ul class="supports" aria-label={message("panelSupports", &[])}>
                            { for supports }
                        </ul>
                    }
                </div>
            </li>
        }
    });
    let queries = sources.queries.iter().map(|query| {
        html! {
            <a href={query.href.clone()} target="_blank" rel="noopener noreferrer"
                referrerpolicy="no-referrer">{ query.text.clone() }</a>
        }
    });
    html! {
        <section class="sources" data-testid="sources">
            if !sources.sources.is_empty() {
                <h4>{ message("panelSources", &[]) }</h4>
                <ol>{ for items }</ol>
            }
            if !sources.queries.is_empty() {
                <p class="searched" data-testid="searched">
                    <span>{ message("panelSearched", &[]) }</span>{ for queries }
                </p>
            }
        </section>
    }
}
