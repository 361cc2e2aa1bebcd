use std::rc::Rc;

use gemipanel_browser::chrome::{message, word};
use gemipanel_core::apps::composer_with_message;
use gemipanel_core::mcp::CompletionRef;
use gemipanel_core::mentions::{self, MediaIcon, MentionItem};
use gemipanel_core::menu::MenuEntry;
use gemipanel_core::messages::{Request, Response};
use gemipanel_core::page::context::ContextPart;
use gemipanel_core::slash::{self, PanelCommand, SlashItem};
use serde_json::{Map, Value};
use wasm_bindgen::JsCast;
use web_sys::{ClipboardEvent, HtmlInputElement, HtmlTextAreaElement};
use yew::prelude::*;

use super::composer_menu::{ComposerMenu, MenuRow};
use super::file_chips::{FileChips, UploadProgress};
use super::mention_catalog;
use super::prompt_arguments::{ArgumentForm, PromptArguments};
use crate::app_host::AppServices;
use crate::files::{from_list, PickedFile, UploadView};

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

/// The `@` being typed: its byte range in the input (to the caret) and the text after it.
#[derive(Clone, PartialEq)]
struct Mention {
    start: usize,
    end: usize,
    text: String,
}

/// The mention the caret ends, if any.
fn mention_at_caret(area: &HtmlTextAreaElement) -> Option<Mention> {
    let value = area.value();
    // The caret is counted in UTF-16 units.
    let caret = area.selection_start().ok().flatten().unwrap_or(u32::MAX) as usize;
    let mut end = value.len();
    let mut units = 0;
    for (at, c) in value.char_indices() {
        if units >= caret {
            end = at;
            break;
        }
        units += c.len_utf16();
    }
    let found = mentions::query(&value[..end])?;
    Some(Mention { start: found.start, end, text: found.text.to_owned() })
}

fn glyph(icon: MediaIcon) -> &'static str {
    match icon {
        MediaIcon::Text => "≡",
        MediaIcon::Data => "{}",
        MediaIcon::Image => "▨",
        MediaIcon::Audio => "♪",
        MediaIcon::Video => "▶",
        MediaIcon::Pdf => "❐",
        MediaIcon::Other => "◇",
        MediaIcon::Template => "✎",
    }
}

fn failure(answer: Result<Response, impl ToString>) -> String {
    match answer {
        Ok(Response::Error { error } | Response::SignInNeeded { error, .. }) => word(&error),
        Ok(_) => message("errWorkerUnexpectedAnswer", &[]),
        Err(err) => err.to_string(),
    }
}

/// The message input: Enter sends, Shift+Enter is a newline; Stop while Gemini answers. A `/`
/// at the start opens the menu of panel commands and server prompts, an `@` starting a word
/// the menu of resources and templates (in both, arrows move, Enter picks, Tab completes the
/// name, Escape closes).
#[function_component]
pub fn Composer(props: &Props) -> Html {
    let input = use_node_ref();
    let services = use_context::<AppServices>();
    // The text after `/` while the menu is open.
    let query = use_state(|| None::<String>);
    let highlighted = use_state(|| 0usize);
    let prompts = use_state(|| Rc::new(Vec::<SlashItem>::new()));
    let loading = use_state(|| 0usize);
    let form = use_state(|| None::<ArgumentForm>);
    let note = use_state(|| None::<String>);
    let mention = use_state(|| None::<Mention>);
    let catalog = use_mut_ref(mention_catalog::Catalog::default);
    let redraw = use_force_update();
    {
        // Typed into the static shell before the module ran: kept, caret and focus too.
        let input = input.clone();
        use_effect_with((), move |_| {
            let (Some(area), Some(shell)) = (
                input.cast::<HtmlTextAreaElement>(),
                gemipanel_browser::early::adopt_shell_input(),
            ) else {
                return;
            };
            area.set_value(&shell.text);
            let _ = area.set_selection_range(shell.selection.0, shell.selection.1);
            if shell.focused {
                let _ = area.focus();
            }
        });
    }
    {
        let (input, draft) = (input.clone(), props.draft.clone());
        use_effect_with(props.draft_epoch, move |_| {
            if let (Some(area), Some(text)) = (input.cast::<HtmlTextAreaElement>(), draft) {
                area.set_value(&composer_with_message(&area.value(), &text));
                let _ = area.focus();
            }
        });
    }
    // Every enabled server is asked when the menu opens, so a changed list shows next time.
    let fetch_prompts = {
        let (services, servers) = (services.clone(), props.servers.clone());
        let (prompts, loading) = (prompts.clone(), loading.clone());
        move || {
            let Some(services) = services.clone() else { return };
            prompts.set(Rc::new(Vec::new()));
            loading.set(servers.len());
            let collected = Rc::new(std::cell::RefCell::new(Vec::<(usize, Vec<SlashItem>)>::new()));
            for (n, (id, name)) in servers.iter().cloned().enumerate() {
                let (services, prompts, loading) =
                    (services.clone(), prompts.clone(), loading.clone());
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
        }
    };
    {
        // A server's prompts changed while the menu is open: it lists them again.
        let (fetch, open) = (fetch_prompts.clone(), query.is_some());
        use_effect_with(props.prompts_epoch, move |_| {
            if open {
                fetch();
            }
        });
    }
    let items: Vec<SlashItem> = match &*query {
        Some(q) => {
            let all: Vec<SlashItem> = PanelCommand::ALL
                .into_iter()
                .map(SlashItem::Command)
                .chain(prompts.iter().cloned())
                .collect();
            slash::ranked(&all, q).into_iter().cloned().collect()
        }
        None => Vec::new(),
    };
    let found: Vec<MentionItem> = match &*mention {
        Some(m) if query.is_none() => {
            mentions::ranked(&catalog.borrow().items, &m.text).into_iter().cloned().collect()
        }
        _ => Vec::new(),
    };
    let more_mentions = {
        let (catalog, services, redraw) = (catalog.clone(), services.clone(), redraw.clone());
        Callback::from(move |()| {
            if let Some(services) = &services {
                mention_catalog::more(&catalog, services, &redraw);
            }
        })
    };
    {
        // Too few matches for what is typed: the next pages are asked for while any are left.
        let wants_more = mention.as_ref().is_some_and(|m| !m.text.is_empty())
            && found.len() < mentions::MAX_SHOWN
            && catalog.borrow().has_more();
        let more = more_mentions.clone();
        use_effect(move || {
            if wants_more {
                more.emit(());
            }
        });
    }
    // A resource read, attached to the next message; what was cut or left out said below.
    let read_resource = {
        let (services, note, on_attach) = (services.clone(), note.clone(), props.on_attach.clone());
        Callback::from(
            move |(server_id, server_name, name, uri): (String, String, String, String)| {
                let Some(services) = services.clone() else { return };
                let (note, on_attach) = (note.clone(), on_attach.clone());
                note.set(Some(message("panelMentionReading", &[&name])));
                wasm_bindgen_futures::spawn_local(async move {
                    let server_id = crate::chat_driver::server_id(&server_id);
                    let request =
                        Request::ReadResource { server_id: server_id.clone(), uri: uri.clone() };
                    match services.port.request(request).await {
                        Ok(Response::Resource { result }) => {
                            let attached =
                                mentions::attach(&server_id, &server_name, &name, &uri, &result);
                            let notices: Vec<String> = attached.notices.iter().map(word).collect();
                            note.set((!notices.is_empty()).then(|| notices.join(" ")));
                            on_attach.emit(Rc::new(attached.part));
                        }
                        other => note.set(Some(failure(other))),
                    }
                });
            },
        )
    };
    let get_prompt = {
        let (services, input, note, form) =
            (services.clone(), input.clone(), note.clone(), form.clone());
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
                            (draft.left_out > 0).then(|| {
                                message("panelSlashLeftOut", &[&draft.left_out.to_string()])
                            }),
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
    };
    // The form filled: a prompt is asked for, a template's URI made and read.
    let submit_form = {
        let (get_prompt, read_resource, form, input) =
            (get_prompt.clone(), read_resource.clone(), form.clone(), input.clone());
        Callback::from(move |(filled, arguments): (ArgumentForm, Map<String, Value>)| match filled
            .target
        {
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
        })
    };
    let pick = {
        let (items, input, query, form, note) =
            (items.clone(), input.clone(), query.clone(), form.clone(), note.clone());
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
    };
    let pick_mention = {
        let (found, input, mention, form, note) =
            (found.clone(), input.clone(), mention.clone(), form.clone(), note.clone());
        let read_resource = read_resource.clone();
        Callback::from(move |n: usize| {
            let (Some(item), Some(at)) = (found.get(n).cloned(), (*mention).clone()) else {
                return;
            };
            mention.set(None);
            note.set(None);
            // The `@…` typed gives way to the chip.
            if let Some(area) = input.cast::<HtmlTextAreaElement>() {
                area.set_value(&mentions::without_query(&area.value(), at.start, at.end));
                let caret =
                    area.value()[..at.start.min(area.value().len())].encode_utf16().count() as u32;
                let _ = area.set_selection_range(caret, caret);
            }
            let label = item.label().to_owned();
            match item {
                MentionItem::Resource { server_id, server_name, resource } => {
                    read_resource.emit((server_id, server_name, label, resource.uri))
                }
                MentionItem::Template { server_id, server_name, template } => {
                    let arguments = mentions::variable_fields(&template);
                    if arguments.is_empty() {
                        read_resource.emit((server_id, server_name, label, template.uri_template));
                        return;
                    }
                    form.set(Some(ArgumentForm {
                        server_id,
                        server_name,
                        target: CompletionRef::Resource { uri: template.uri_template.clone() },
                        heading: format!("@{}", template.name),
                        label,
                        values: vec![String::new(); arguments.len()],
                        arguments,
                        submit_key: "panelMentionAttach",
                        missing: None,
                    }));
                }
            }
        })
    };
    let send = {
        let (input, on_send, busy) = (input.clone(), props.on_send.clone(), props.busy);
        let (query, mention) = (query.clone(), mention.clone());
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
    };
    let oninput = {
        let (query, highlighted, note, mention) =
            (query.clone(), highlighted.clone(), note.clone(), mention.clone());
        let (catalog, services, servers, redraw) =
            (catalog.clone(), services.clone(), props.servers.clone(), redraw.clone());
        Callback::from(move |e: InputEvent| {
            let Some(area) = e.target_dyn_into::<HtmlTextAreaElement>() else { return };
            let now = slash::query(&area.value()).map(str::to_owned);
            if now.is_some() && query.is_none() {
                fetch_prompts();
                note.set(None);
            }
            let at = if now.is_none() { mention_at_caret(&area) } else { None };
            if at.is_some() && mention.is_none() {
                // Every enabled server is asked each time the menu opens.
                if let Some(services) = &services {
                    mention_catalog::open(&catalog, services, &servers, &redraw);
                }
                note.set(None);
            }
            highlighted.set(0);
            query.set(now);
            mention.set(at);
        })
    };
    // The open menu's names and actions, for the keys.
    let (names, pick_at, sigil): (Vec<String>, Callback<usize>, Option<char>) = if query.is_some() {
        (items.iter().map(|i| i.name().to_owned()).collect(), pick.clone(), Some('/'))
    } else if mention.is_some() {
        (found.iter().map(|i| i.name().to_owned()).collect(), pick_mention.clone(), Some('@'))
    } else {
        (Vec::new(), pick.clone(), None)
    };
    let onkeydown = {
        let (send, query, highlighted, input) =
            (send.clone(), query.clone(), highlighted.clone(), input.clone());
        let (mention, more) = (mention.clone(), more_mentions.clone());
        let shown = names.len();
        Callback::from(move |e: KeyboardEvent| {
            // While an IME composes (Japanese input), Enter confirms the composition.
            if e.is_composing() {
                return;
            }
            if let Some(sigil) = sigil {
                let at = *highlighted;
                let handled = match e.key().as_str() {
                    "ArrowDown" if shown > 0 => {
                        highlighted.set((at + 1) % shown);
                        // At the last row of the `@` menu: the next pages.
                        if sigil == '@' && at + 2 >= shown {
                            more.emit(());
                        }
                        true
                    }
                    "ArrowUp" if shown > 0 => {
                        highlighted.set((at + shown - 1) % shown);
                        true
                    }
                    "Enter" if shown > 0 && !e.shift_key() => {
                        pick_at.emit(at);
                        true
                    }
                    "Tab" if shown > 0 && !e.shift_key() => {
                        // Completes the name; the menu stays open on the entries it matches.
                        if let (Some(area), Some(name)) =
                            (input.cast::<HtmlTextAreaElement>(), names.get(at))
                        {
                            match &*mention {
                                Some(m) if sigil == '@' => {
                                    let value = area.value();
                                    let head = &value[..m.start];
                                    let tail = &value[m.end..];
                                    area.set_value(&format!("{head}@{name}{tail}"));
                                    let caret =
                                        format!("{head}@{name}").encode_utf16().count() as u32;
                                    let _ = area.set_selection_range(caret, caret);
                                    let end = m.start + 1 + name.len();
                                    mention.set(Some(Mention {
                                        start: m.start,
                                        end,
                                        text: name.clone(),
                                    }));
                                }
                                _ => {
                                    area.set_value(&format!("/{name}"));
                                    query.set(Some(name.clone()));
                                }
                            }
                            highlighted.set(0);
                        }
                        true
                    }
                    "Escape" => {
                        query.set(None);
                        mention.set(None);
                        true
                    }
                    // Nothing matches: Enter sends what was typed, as without the menu.
                    _ => false,
                };
                if handled {
                    e.prevent_default();
                    return;
                }
            }
            if e.key() == "Enter" && !e.shift_key() {
                e.prevent_default();
                send.emit(());
            }
        })
    };
    let button = if props.busy {
        let onclick = props.on_stop.reform(|_: MouseEvent| ());
        html! { <button type="button" class="stop" {onclick} data-testid="stop">{ message("panelStop", &[]) }</button> }
    } else {
        let onclick = send.reform(|_: MouseEvent| ());
        html! { <button type="button" class="primary send" {onclick} data-testid="send">{ message("panelSend", &[]) }</button> }
    };
    let menu = if query.is_some() {
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
        Some(html! {
            <ComposerMenu kind="slash" {rows} highlighted={*highlighted} loading={*loading > 0}
                label_key="panelSlashMenu" loading_key="panelSlashLoading" none_key="panelSlashNone"
                on_pick={pick.clone()} />
        })
    } else if mention.is_some() {
        let rows: Vec<MenuRow> = found
            .iter()
            .map(|item| {
                let (title, detail) = match item {
                    MentionItem::Resource { resource, .. } => (
                        resource.title.clone().filter(|t| t != &resource.name).unwrap_or_default(),
                        resource.uri.clone(),
                    ),
                    MentionItem::Template { template, .. } => (
                        template.title.clone().filter(|t| t != &template.name).unwrap_or_default(),
                        format!(
                            "{} · {}",
                            message("panelMentionTemplate", &[]),
                            template.uri_template
                        ),
                    ),
                };
                MenuRow {
                    icon: Some(glyph(item.icon())),
                    name: format!("@{}", item.name()),
                    title,
                    source: item.server_name().to_owned(),
                    detail,
                }
            })
            .collect();
        let catalog = catalog.borrow();
        let footer = if catalog.pending > 0 && !rows.is_empty() {
            message("panelMentionMore", &[])
        } else {
            let chars = mentions::MAX_TEXT_CHARS.to_string();
            // Thousands grouped, as both languages write them.
            let chars =
                chars.as_bytes().rchunks(3).rev().map(|d| String::from_utf8_lossy(d).into_owned());
            let chars = chars.collect::<Vec<_>>().join(",");
            let megabytes = format!("{} MB", mentions::MAX_MEDIA_BYTES / (1024 * 1024));
            message("panelMentionCap", &[&chars, &megabytes])
        };
        Some(html! {
            <ComposerMenu kind="mention" {rows} highlighted={*highlighted} loading={catalog.pending > 0}
                label_key="panelMentionMenu" loading_key="panelMentionLoading" none_key="panelMentionNone"
                footer={Some(footer)} on_pick={pick_mention.clone()} on_end={more_mentions.clone()} />
        })
    } else {
        None
    };
    let arguments = (*form).clone().map(|f| {
        let on_change = {
            let (form, input) = (form.clone(), input.clone());
            Callback::from(move |next: Option<ArgumentForm>| {
                if next.is_none() {
                    if let Some(area) = input.cast::<HtmlTextAreaElement>() {
                        let _ = area.focus();
                    }
                }
                form.set(next)
            })
        };
        html! { <PromptArguments form={f} {on_change} on_submit={submit_form.clone()} /> }
    });
    let note = (*note).clone().map(|text| {
        html! {
            <p class="slash-note" role="status" data-testid="slash-note">{ text }</p>
        }
    });
    let expanded = (query.is_some() || mention.is_some()).to_string();
    let controls = if mention.is_some() && query.is_none() { "mention-menu" } else { "slash-menu" };
    let picker = use_node_ref();
    let dropping = use_state(|| false);
    let on_attach_click = {
        let picker = picker.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(picker) = picker.cast::<HtmlInputElement>() {
                picker.click();
            }
        })
    };
    let on_picked = props.on_files.reform(|e: Event| {
        let Some(picker) = e.target_dyn_into::<HtmlInputElement>() else { return Vec::new() };
        let files = from_list(picker.files());
        // The same file may be picked again after its chip was removed.
        picker.set_value("");
        files
    });
    let onpaste = {
        let on_files = props.on_files.clone();
        Callback::from(move |e: Event| {
            let Some(e) = e.dyn_ref::<ClipboardEvent>() else { return };
            let files = from_list(e.clipboard_data().and_then(|d| d.files()));
            // Pasted text goes in the input as usual; pasted files become chips.
            if !files.is_empty() {
                e.prevent_default();
                on_files.emit(files);
            }
        })
    };
    let ondragover = {
        let dropping = dropping.clone();
        Callback::from(move |e: DragEvent| {
            let carries_files = e.data_transfer().is_some_and(|d| {
                d.types().iter().any(|t| t.as_string().as_deref() == Some("Files"))
            });
            if carries_files {
                e.prevent_default();
                if !*dropping {
                    dropping.set(true);
                }
            }
        })
    };
    let ondragleave = {
        let dropping = dropping.clone();
        Callback::from(move |_: DragEvent| dropping.set(false))
    };
    let ondrop = {
        let (dropping, on_files) = (dropping.clone(), props.on_files.clone());
        Callback::from(move |e: DragEvent| {
            dropping.set(false);
            let files = from_list(e.data_transfer().and_then(|d| d.files()));
            if !files.is_empty() {
                e.prevent_default();
                on_files.emit(files);
            }
        })
    };
    let on_remove_file = {
        let (input, on_remove) = (input.clone(), props.on_remove_file.clone());
        Callback::from(move |id: u32| {
            on_remove.emit(id);
            // The chip and its button are gone: the keyboard goes on from the input.
            if let Some(area) = input.cast::<HtmlTextAreaElement>() {
                let _ = area.focus();
            }
        })
    };
    let file_note = props.file_note.clone().map(|text| {
        html! { <p class="file-note" role="alert" data-testid="file-note">{ text }</p> }
    });
    let upload = props.upload.clone().map(|progress| {
        html! { <UploadProgress {progress} on_cancel={props.on_stop.clone()} /> }
    });
    let attach_label = message("panelAttachFiles", &[]);
    html! {
        <footer class={classes!("composer", dropping.then_some("dropping"))}
            {ondragover} {ondragleave} {ondrop} data-drop-label={message("panelDropFiles", &[])}>
            { props.children.clone() }
            <FileChips files={props.files.clone()} on_remove={on_remove_file} />
            { for file_note }
            { for upload }
            { for menu }
            { for arguments }
            { for note }
            <div class="input-row">
                <button type="button" class="attach" onclick={on_attach_click} data-testid="attach"
                    title={attach_label.clone()} aria-label={attach_label}>
                    // A paper clip drawn here: no emoji font is certain to be installed.
                    <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
                        <path d="M16 7v9a4 4 0 0 1-8 0V6a2.5 2.5 0 0 1 5 0v9.5a1 1 0 0 1-2 0V8"
                            fill="none" stroke="currentColor" stroke-width="1.8"
                            stroke-linecap="round" stroke-linejoin="round" />
                    </svg>
                </button>
                <input type="file" multiple=true class="file-input" ref={picker} onchange={on_picked}
                    tabindex="-1" aria-hidden="true" data-testid="file-input"
                    accept="image/png,image/jpeg,image/webp,image/heic,image/heif,application/pdf,audio/*,text/*,.md,.json,.csv,.yaml,.yml,.toml,.xml,.rs,.py,.js,.ts,.go,.java,.c,.h,.cpp,.sh,.log,.ini" />
                <textarea ref={input} rows="2" {onkeydown} {oninput} {onpaste} data-testid="input"
                    onfocus={props.on_focus.reform(|_: FocusEvent| ())}
                    role="combobox" aria-expanded={expanded} aria-controls={controls}
                    aria-autocomplete="list"
                    placeholder={message("panelInputPlaceholder", &[])}
                    aria-label={message("panelInputPlaceholder", &[])} />
                { button }
            </div>
        </footer>
    }
}
