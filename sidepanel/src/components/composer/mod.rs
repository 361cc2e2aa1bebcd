//! The message input: Enter sends, Shift+Enter is a newline; Stop while Gemini answers. A `/`
//! at the start opens the menu of panel commands and server prompts (`slash`), an `@` starting
//! a word the menu of resources and templates (`mention`); the keys are `keys`, files picked,
//! pasted or dropped `files`. `Composer` holds the state they share (`Ctx`) and draws them.

mod files;
mod keys;
mod mention;
mod slash;

use std::rc::Rc;

use gemipanel_browser::chrome::{message, word};
use gemipanel_core::apps::composer_with_message;
use gemipanel_core::mcp::CompletionRef;
use gemipanel_core::mentions;
use gemipanel_core::menu::MenuEntry;
use gemipanel_core::messages::Response;
use gemipanel_core::page::context::ContextPart;
use gemipanel_core::slash::{self as slash_core, PanelCommand, SlashItem};
use serde_json::{Map, Value};
use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

use super::file_chips::{FileChips, UploadProgress};
use super::mention_catalog;
use super::prompt_arguments::{ArgumentForm, PromptArguments};
use crate::app_host::AppServices;
use crate::files::{PickedFile, UploadView};
use keys::OpenMenu;
use mention::{Mention, ReadResource};

#[derive(Properties, PartialEq)]
pub struct Props {
    pub busy: bool,
    pub on_send: Callback<String>,
    pub on_stop: Callback<()>,
    /// The tools menu and toggles, shown above the input.
    #[prop_or_default]
    pub children: Html,
    /// A message an app offered; put in the input (for the person to edit or send), after
    /// what they were typing, each time `draft_epoch` changes.
    #[prop_or_default]
    pub draft: Option<String>,
    #[prop_or_default]
    pub draft_epoch: u32,
    /// The input got focus (the person is about to write: a selection on the page is offered).
    #[prop_or_default]
    pub on_focus: Callback<()>,
    /// The enabled MCP servers (id, name), whose prompts the `/` menu offers.
    #[prop_or_default]
    pub servers: Vec<(String, String)>,
    /// A panel command picked from the `/` menu.
    #[prop_or_default]
    pub on_command: Callback<PanelCommand>,
    /// Changes when a server announces that its prompts changed.
    #[prop_or_default]
    pub prompts_epoch: u32,
    /// A resource picked from the `@` menu, read: attach it to the next message.
    #[prop_or_default]
    pub on_attach: Callback<Rc<ContextPart>>,
    /// Files waiting for the next message.
    #[prop_or_default]
    pub files: Vec<Rc<PickedFile>>,
    /// Why picked files were not attached.
    #[prop_or_default]
    pub file_note: Option<String>,
    /// A file of the message being sent, uploading.
    #[prop_or_default]
    pub upload: Option<UploadView>,
    /// Files picked, pasted or dropped.
    #[prop_or_default]
    pub on_files: Callback<Vec<web_sys::File>>,
    /// The file chip with this id was removed.
    #[prop_or_default]
    pub on_remove_file: Callback<u32>,
}

fn failure(answer: Result<Response, impl ToString>) -> String {
    match answer {
        Ok(Response::Error { error } | Response::SignInNeeded { error, .. }) => word(&error),
        Ok(_) => message("errWorkerUnexpectedAnswer", &[]),
        Err(err) => err.to_string(),
    }
}

/// What the composer's parts share between redraws.
#[derive(Clone)]
struct Ctx {
    input: NodeRef,
    services: Option<AppServices>,
    /// The text after `/` while the menu is open.
    query: UseStateHandle<Option<String>>,
    highlighted: UseStateHandle<usize>,
    prompts: UseStateHandle<Rc<Vec<SlashItem>>>,
    /// Servers whose prompts have not come yet.
    loading: UseStateHandle<usize>,
    form: UseStateHandle<Option<ArgumentForm>>,
    note: UseStateHandle<Option<String>>,
    mention: UseStateHandle<Option<Mention>>,
    catalog: mention_catalog::Shared,
    redraw: UseForceUpdateHandle,
}

#[hook]
fn use_ctx() -> Ctx {
    Ctx {
        input: use_node_ref(),
        services: use_context::<AppServices>(),
        query: use_state(|| None::<String>),
        highlighted: use_state(|| 0usize),
        prompts: use_state(|| Rc::new(Vec::<SlashItem>::new())),
        loading: use_state(|| 0usize),
        form: use_state(|| None::<ArgumentForm>),
        note: use_state(|| None::<String>),
        mention: use_state(|| None::<Mention>),
        catalog: use_mut_ref(mention_catalog::Catalog::default),
        redraw: use_force_update(),
    }
}

/// The message input: Enter sends, Shift+Enter is a newline; Stop while Gemini answers. A `/`
/// at the start opens the menu of panel commands and server prompts, an `@` starting a word
/// the menu of resources and templates (in both, arrows move, Enter picks, Tab completes the
/// name, Escape closes).
#[function_component]
pub fn Composer(props: &Props) -> Html {
    let ctx = use_ctx();
    use_shell_input(&ctx.input);
    use_draft(&ctx.input, props);
    let fetch_prompts = slash::prompt_fetcher(&ctx, props);
    slash::use_prompts_refresh(fetch_prompts.clone(), props.prompts_epoch, ctx.query.is_some());
    let items = slash::items(&ctx);
    let found = mention::found(&ctx);
    let more_mentions = mention::more(&ctx);
    mention::use_more_when_few(&ctx, &found, &more_mentions);
    let read_resource = mention::read_resource(&ctx, props);
    let get_prompt = slash::get_prompt(&ctx);
    let submit_form = submit_form(&ctx, &get_prompt, &read_resource);
    let pick = slash::pick(&ctx, props, &items, &get_prompt);
    let pick_mention = mention::pick(&ctx, &found, &read_resource);
    let send = send(&ctx, props);
    let oninput = oninput(&ctx, props, fetch_prompts);
    // The open menu's names and actions, for the keys.
    let (query, mention) = (ctx.query.is_some(), ctx.mention.is_some());
    let open_menu = if query {
        let names = items.iter().map(|i| i.name().to_owned()).collect();
        OpenMenu { sigil: Some('/'), names, pick: pick.clone(), more: more_mentions.clone() }
    } else if mention {
        let names = found.iter().map(|i| i.name().to_owned()).collect();
        OpenMenu {
            sigil: Some('@'),
            names,
            pick: pick_mention.clone(),
            more: more_mentions.clone(),
        }
    } else {
        OpenMenu { sigil: None, names: Vec::new(), pick: pick.clone(), more: more_mentions.clone() }
    };
    let onkeydown = keys::onkeydown(&ctx, open_menu, &send);
    let menu = if query {
        Some(slash::menu(&ctx, &items, pick))
    } else if mention {
        Some(mention::menu(&ctx, &found, pick_mention, more_mentions))
    } else {
        None
    };
    let arguments = arguments(&ctx, submit_form);
    let note = (*ctx.note).clone().map(|text| {
        html! {
            <p class="slash-note" role="status" data-testid="slash-note">{ text }</p>
        }
    });
    let files = files::use_file_inputs(props, &ctx.input);
    let file_note = props.file_note.clone().map(|text| {
        html! { <p class="file-note" role="alert" data-testid="file-note">{ text }</p> }
    });
    let upload = props.upload.clone().map(|progress| {
        html! { <UploadProgress {progress} on_cancel={props.on_stop.clone()} /> }
    });
    html! {
        <footer class={classes!("composer", files.dropping.then_some("dropping"))}
            ondragover={files.ondragover.clone()} ondragleave={files.ondragleave.clone()}
            ondrop={files.ondrop.clone()} data-drop-label={message("panelDropFiles", &[])}>
            { props.children.clone() }
            <FileChips files={props.files.clone()} on_remove={files.on_remove_file.clone()} />
            { for file_note }
            { for upload }
            { for menu }
            { for arguments }
            { for note }
            { input_row(&ctx, props, &files, onkeydown, oninput, send) }
        </footer>
    }
}

/// Typed into the static shell before the module ran: kept, caret and focus too.
#[hook]
fn use_shell_input(input: &NodeRef) {
    let input = input.clone();
    use_effect_with((), move |_| {
        let (Some(area), Some(shell)) =
            (input.cast::<HtmlTextAreaElement>(), gemipanel_browser::early::adopt_shell_input())
        else {
            return;
        };
        area.set_value(&shell.text);
        let _ = area.set_selection_range(shell.selection.0, shell.selection.1);
        if shell.focused {
            let _ = area.focus();
        }
    });
}

/// A message an app offered goes in after what the person was typing.
#[hook]
fn use_draft(input: &NodeRef, props: &Props) {
    let (input, draft) = (input.clone(), props.draft.clone());
    use_effect_with(props.draft_epoch, move |_| {
        if let (Some(area), Some(text)) = (input.cast::<HtmlTextAreaElement>(), draft) {
            area.set_value(&composer_with_message(&area.value(), &text));
            let _ = area.focus();
        }
    });
}

/// The form filled: a prompt is asked for, a template's URI made and read.
fn submit_form(
    ctx: &Ctx,
    get_prompt: &Callback<(String, String, Map<String, Value>)>,
    read_resource: &ReadResource,
) -> Callback<(ArgumentForm, Map<String, Value>)> {
    let (get_prompt, read_resource, form, input) =
        (get_prompt.clone(), read_resource.clone(), ctx.form.clone(), ctx.input.clone());
    Callback::from(move |(filled, arguments): (ArgumentForm, Map<String, Value>)| {
        match filled.target {
            CompletionRef::Prompt { name } => get_prompt.emit((filled.server_id, name, arguments)),
            CompletionRef::Resource { uri: template } => {
                let uri = mentions::expand(&template, |n| arguments.get(n).and_then(Value::as_str));
                let values: Vec<&str> = arguments.values().filter_map(Value::as_str).collect();
                let name = format!("{} ({})", filled.label, values.join(", "));
                form.set(None);
                if let Some(area) = input.cast::<HtmlTextAreaElement>() {
                    let _ = area.focus();
                }
                read_resource.emit((filled.server_id, filled.server_name, name, uri));
            }
        }
    })
}

/// Sends what was typed (or only files), unless a turn runs.
fn send(ctx: &Ctx, props: &Props) -> Callback<()> {
    let (input, on_send, busy) = (ctx.input.clone(), props.on_send.clone(), props.busy);
    let (query, mention) = (ctx.query.clone(), ctx.mention.clone());
    let has_files = !props.files.is_empty();
    Callback::from(move |_: ()| {
        let Some(area) = input.cast::<HtmlTextAreaElement>() else { return };
        let text = area.value();
        if busy || (text.trim().is_empty() && !has_files) {
            return;
        }
        area.set_value("");
        query.set(None);
        mention.set(None);
        on_send.emit(text);
    })
}

/// Typing opens, follows and closes the menus.
fn oninput(ctx: &Ctx, props: &Props, fetch_prompts: Callback<()>) -> Callback<InputEvent> {
    let (ctx, servers) = (ctx.clone(), props.servers.clone());
    Callback::from(move |e: InputEvent| {
        let Some(area) = e.target_dyn_into::<HtmlTextAreaElement>() else { return };
        let now = slash_core::query(&area.value()).map(str::to_owned);
        if now.is_some() && ctx.query.is_none() {
            fetch_prompts.emit(());
            ctx.note.set(None);
        }
        let at = if now.is_none() { mention::mention_at_caret(&area) } else { None };
        if at.is_some() && ctx.mention.is_none() {
            // Every enabled server is asked each time the menu opens.
            if let Some(services) = &ctx.services {
                mention_catalog::open(&ctx.catalog, services, &servers, &ctx.redraw);
            }
            ctx.note.set(None);
        }
        ctx.highlighted.set(0);
        ctx.query.set(now);
        ctx.mention.set(at);
    })
}

/// The argument form of a prompt or a template, while one is open.
fn arguments(ctx: &Ctx, submit_form: Callback<(ArgumentForm, Map<String, Value>)>) -> Option<Html> {
    let form = (*ctx.form).clone()?;
    let on_change = {
        let (form, input) = (ctx.form.clone(), ctx.input.clone());
        Callback::from(move |next: Option<ArgumentForm>| {
            if next.is_none() {
                if let Some(area) = input.cast::<HtmlTextAreaElement>() {
                    let _ = area.focus();
                }
            }
            form.set(next)
        })
    };
    Some(html! { <PromptArguments {form} {on_change} on_submit={submit_form} /> })
}

/// The paper clip, the input and Send (or Stop).
fn input_row(
    ctx: &Ctx,
    props: &Props,
    files: &files::FileInputs,
    onkeydown: Callback<KeyboardEvent>,
    oninput: Callback<InputEvent>,
    send: Callback<()>,
) -> Html {
    let button = if props.busy {
        let onclick = props.on_stop.reform(|_: MouseEvent| ());
        html! { <button type="button" class="stop" {onclick} data-testid="stop">{ message("panelStop", &[]) }</button> }
    } else {
        let onclick = send.reform(|_: MouseEvent| ());
        html! { <button type="button" class="primary send" {onclick} data-testid="send">{ message("panelSend", &[]) }</button> }
    };
    let (query, mention) = (ctx.query.is_some(), ctx.mention.is_some());
    let expanded = (query || mention).to_string();
    let controls = if mention && !query { "mention-menu" } else { "slash-menu" };
    let attach_label = message("panelAttachFiles", &[]);
    html! {
        <div class="input-row">
            <button type="button" class="attach" onclick={files.on_attach_click.clone()} data-testid="attach"
                title={attach_label.clone()} aria-label={attach_label}>
                // A paper clip drawn here: no emoji font is certain to be installed.
                <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
                    <path d="M16 7v9a4 4 0 0 1-8 0V6a2.5 2.5 0 0 1 5 0v9.5a1 1 0 0 1-2 0V8"
                        fill="none" stroke="currentColor" stroke-width="1.8"
                        stroke-linecap="round" stroke-linejoin="round" />
                </svg>
            </button>
            <input type="file" multiple=true class="file-input" ref={files.picker.clone()} onchange={files.on_picked.clone()}
                tabindex="-1" aria-hidden="true" data-testid="file-input"
                accept="image/png,image/jpeg,image/webp,image/heic,image/heif,application/pdf,audio/*,text/*,.md,.json,.csv,.yaml,.yml,.toml,.xml,.rs,.py,.js,.ts,.go,.java,.c,.h,.cpp,.sh,.log,.ini" />
            <textarea ref={ctx.input.clone()} rows="2" {onkeydown} {oninput} onpaste={files.onpaste.clone()} data-testid="input"
                onfocus={props.on_focus.reform(|_: FocusEvent| ())}
                role="combobox" aria-expanded={expanded} aria-controls={controls}
                aria-autocomplete="list"
                placeholder={message("panelInputPlaceholder", &[])}
                aria-label={message("panelInputPlaceholder", &[])} />
            { button }
        </div>
    }
}
