//! The `/` menu: panel commands and the enabled servers' prompts, asked for when it opens; a
//! prompt picked is got (through its argument form when it has arguments) into the input.

use std::rc::Rc;

use gemipanel_browser::chrome::message;
use gemipanel_core::mcp::CompletionRef;
use gemipanel_core::messages::{Request, Response};
use gemipanel_core::slash::{self, PanelCommand, SlashItem};
use serde_json::{Map, Value};
use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

use super::{failure, Ctx, Props};
use crate::components::composer_menu::{ComposerMenu, MenuRow};
use crate::components::prompt_arguments::ArgumentForm;

/// Every enabled server is asked when the menu opens, so a changed list shows next time.
pub(super) fn prompt_fetcher(ctx: &Ctx, props: &Props) -> Callback<()> {
    let (services, servers) = (ctx.services.clone(), props.servers.clone());
    let (prompts, loading) = (ctx.prompts.clone(), ctx.loading.clone());
    Callback::from(move |()| {
        let Some(services) = services.clone() else { return };
        prompts.set(Rc::new(Vec::new()));
        loading.set(servers.len());
        let collected = Rc::new(std::cell::RefCell::new(Vec::<(usize, Vec<SlashItem>)>::new()));
        for (n, (id, name)) in servers.iter().cloned().enumerate() {
            let (services, prompts, loading) = (services.clone(), prompts.clone(), loading.clone());
            let (collected, total) = (collected.clone(), servers.len());
            wasm_bindgen_futures::spawn_local(async move {
                let request =
                    Request::ListPrompts { server_id: crate::chat_driver::server_id(&id) };
                let found = match services.port.request(request).await {
                    Ok(Response::Prompts { prompts, .. }) => prompts
                        .into_iter()
                        .map(|prompt| SlashItem::Prompt {
                            server_id: id.clone(),
                            server_name: name.clone(),
                            prompt: Box::new(prompt),
                        })
                        .collect(),
                    // A server that cannot list its prompts just has none in the menu.
                    _ => Vec::new(),
                };
                let mut collected = collected.borrow_mut();
                collected.push((n, found));
                // The servers' order, whichever answers first.
                collected.sort_by_key(|(n, _)| *n);
                let all: Vec<SlashItem> =
                    collected.iter().flat_map(|(_, items)| items.iter().cloned()).collect();
                prompts.set(Rc::new(all));
                loading.set(total - collected.len());
            });
        }
    })
}

/// A server's prompts changed while the menu is open: it lists them again.
#[hook]
pub(super) fn use_prompts_refresh(fetch: Callback<()>, epoch: u32, open: bool) {
    use_effect_with(epoch, move |_| {
        if open {
            fetch.emit(());
        }
    });
}

/// What the menu lists for the text after `/`, best first.
pub(super) fn items(ctx: &Ctx) -> Vec<SlashItem> {
    match &*ctx.query {
        Some(q) => {
            let all: Vec<SlashItem> = PanelCommand::ALL
                .into_iter()
                .map(SlashItem::Command)
                .chain(ctx.prompts.iter().cloned())
                .collect();
            slash::ranked(&all, q).into_iter().cloned().collect()
        }
        None => Vec::new(),
    }
}

/// (server id, prompt name, arguments): the prompt's messages become the input's text.
pub(super) fn get_prompt(ctx: &Ctx) -> Callback<(String, String, Map<String, Value>)> {
    let (services, input, note, form) =
        (ctx.services.clone(), ctx.input.clone(), ctx.note.clone(), ctx.form.clone());
    Callback::from(move |(server_id, name, arguments): (String, String, Map<String, Value>)| {
        let Some(services) = services.clone() else { return };
        let (input, note, form) = (input.clone(), note.clone(), form.clone());
        note.set(Some(message("panelSlashGetting", &[&name])));
        wasm_bindgen_futures::spawn_local(async move {
            let request = Request::GetPrompt {
                server_id: crate::chat_driver::server_id(&server_id),
                name,
                arguments,
            };
            match services.port.request(request).await {
                Ok(Response::Prompt { result }) => {
                    form.set(None);
                    let draft = slash::draft(&result);
                    note.set(
                        (draft.left_out > 0)
                            .then(|| message("panelSlashLeftOut", &[&draft.left_out.to_string()])),
                    );
                    if let Some(area) = input.cast::<HtmlTextAreaElement>() {
                        area.set_value(&draft.text);
                        let _ = area.focus();
                    }
                }
                other => note.set(Some(failure(other))),
            }
        });
    })
}

/// Row `n` picked: a command runs, a prompt is got or its argument form opens.
pub(super) fn pick(
    ctx: &Ctx,
    props: &Props,
    items: &[SlashItem],
    get_prompt: &Callback<(String, String, Map<String, Value>)>,
) -> Callback<usize> {
    let (items, input, query, form, note) =
        (items.to_vec(), ctx.input.clone(), ctx.query.clone(), ctx.form.clone(), ctx.note.clone());
    let (on_command, get_prompt) = (props.on_command.clone(), get_prompt.clone());
    Callback::from(move |n: usize| {
        let Some(item) = items.get(n).cloned() else { return };
        query.set(None);
        note.set(None);
        if let Some(area) = input.cast::<HtmlTextAreaElement>() {
            area.set_value("");
        }
        match item {
            SlashItem::Command(command) => on_command.emit(command),
            SlashItem::Prompt { server_id, prompt, .. } if prompt.arguments.is_empty() => {
                get_prompt.emit((server_id, prompt.name, Map::new()))
            }
            SlashItem::Prompt { server_id, server_name, prompt } => {
                let values = vec![String::new(); prompt.arguments.len()];
                form.set(Some(ArgumentForm {
                    server_id,
                    server_name,
                    target: CompletionRef::Prompt { name: prompt.name.clone() },
                    heading: format!("/{}", prompt.name),
                    label: prompt.label().to_owned(),
                    arguments: prompt.arguments,
                    submit_key: "panelSlashUse",
                    values,
                    missing: None,
                }));
            }
        }
    })
}

pub(super) fn menu(ctx: &Ctx, items: &[SlashItem], pick: Callback<usize>) -> Html {
    let rows: Vec<MenuRow> = items
        .iter()
        .map(|item| match item {
            SlashItem::Command(command) => MenuRow {
                icon: None,
                name: format!("/{}", command.name()),
                title: String::new(),
                source: message("panelSlashPanel", &[]),
                detail: message(command.description_key(), &[]),
            },
            SlashItem::Prompt { server_name, prompt, .. } => MenuRow {
                icon: None,
                name: format!("/{}", prompt.name),
                title: prompt.title.clone().filter(|t| t != &prompt.name).unwrap_or_default(),
                source: server_name.clone(),
                detail: prompt.description.clone().unwrap_or_default(),
            },
        })
        .collect();
    html! {
        <ComposerMenu kind="slash" {rows} highlighted={*ctx.highlighted} loading={*ctx.loading > 0}
            label_key="panelSlashMenu" loading_key="panelSlashLoading" none_key="panelSlashNone"
            on_pick={pick} />
    }
}
