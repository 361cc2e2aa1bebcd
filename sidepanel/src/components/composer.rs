use std::rc::Rc;

use gemipanel_browser::chrome::{message, word};
use gemipanel_core::apps::composer_with_message;
use gemipanel_core::messages::{Request, Response};
use gemipanel_core::slash::{self, PanelCommand, SlashItem};
use serde_json::{Map, Value};
use wasm_bindgen::JsCast;
use web_sys::{ClipboardEvent, HtmlInputElement, HtmlTextAreaElement};
use yew::prelude::*;

use super::file_chips::{FileChips, UploadProgress};
use super::prompt_arguments::{ArgumentForm, PromptArguments};
use super::slash_menu::SlashMenu;
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

/// The message input: Enter sends, Shift+Enter is a newline; Stop while Gemini answers. A `/`
/// at the start opens the menu of panel commands and server prompts (arrows move, Enter picks,
/// Tab completes the name, Escape closes).
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
                SlashItem::Prompt { server_id, prompt, .. } => {
                    let values = vec![String::new(); prompt.arguments.len()];
                    form.set(Some(ArgumentForm {
                        server_id,
                        prompt: *prompt,
                        values,
                        missing: None,
                    }));
                }
            }
        })
    };
    let send = {
        let (input, on_send, busy) = (input.clone(), props.on_send.clone(), props.busy);
        let query = query.clone();
        let has_files = !props.files.is_empty();
        Callback::from(move |_: ()| {
            let Some(area) = input.cast::<HtmlTextAreaElement>() else { return };
            let text = area.value();
            if busy || (text.trim().is_empty() && !has_files) {
                return;
            }
            area.set_value("");
            query.set(None);
            on_send.emit(text);
        })
    };
    let oninput = {
        let (query, highlighted, note) = (query.clone(), highlighted.clone(), note.clone());
        Callback::from(move |e: InputEvent| {
            let Some(area) = e.target_dyn_into::<HtmlTextAreaElement>() else { return };
            let now = slash::query(&area.value()).map(str::to_owned);
            if now.is_some() && query.is_none() {
                fetch_prompts();
                note.set(None);
            }
            highlighted.set(0);
            query.set(now);
        })
    };
    let onkeydown = {
        let (send, query, highlighted, pick, input) =
            (send.clone(), query.clone(), highlighted.clone(), pick.clone(), input.clone());
        let names: Vec<String> = items.iter().map(|i| i.name().to_owned()).collect();
        let shown = names.len();
        Callback::from(move |e: KeyboardEvent| {
            // While an IME composes (Japanese input), Enter confirms the composition.
            if e.is_composing() {
                return;
            }
            if query.is_some() {
                let at = *highlighted;
                let handled = match e.key().as_str() {
                    "ArrowDown" if shown > 0 => {
                        highlighted.set((at + 1) % shown);
                        true
                    }
                    "ArrowUp" if shown > 0 => {
                        highlighted.set((at + shown - 1) % shown);
                        true
                    }
                    "Enter" if shown > 0 && !e.shift_key() => {
                        pick.emit(at);
                        true
                    }
                    "Tab" if shown > 0 && !e.shift_key() => {
                        // Completes the name; the menu stays open on that one entry.
                        if let (Some(area), Some(name)) =
                            (input.cast::<HtmlTextAreaElement>(), names.get(at))
                        {
                            area.set_value(&format!("/{name}"));
                            query.set(Some(name.clone()));
                            highlighted.set(0);
                        }
                        true
                    }
                    "Escape" => {
                        query.set(None);
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
    let menu = query.is_some().then(|| {
        html! { <SlashMenu items={items.clone()} highlighted={*highlighted} loading={*loading > 0} on_pick={pick.clone()} /> }
    });
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
        html! { <PromptArguments form={f} {on_change} on_submit={get_prompt.clone()} /> }
    });
    let note = (*note).clone().map(|text| {
        html! {
            <p class="slash-note" role="status" data-testid="slash-note">{ text }</p>
        }
    });
    let expanded = query.is_some().to_string();
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
                    role="combobox" aria-expanded={expanded} aria-controls="slash-menu"
                    aria-autocomplete="list"
                    placeholder={message("panelInputPlaceholder", &[])}
                    aria-label={message("panelInputPlaceholder", &[])} />
                { button }
            </div>
        </footer>
    }
}
