//! The `@` menu: the enabled servers' resources and templates (`mention_catalog`), ranked for
//! what follows the `@`; a resource picked is read and attached, a template's form filled
//! first.

use std::rc::Rc;

use gemipanel_browser::chrome::{message, word};
use gemipanel_core::mcp::CompletionRef;
use gemipanel_core::mentions::{self, MediaIcon, MentionItem};
use gemipanel_core::menu::MenuEntry;
use gemipanel_core::messages::{Request, Response};
use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

use super::{failure, Ctx, Props};
use crate::components::composer_menu::{ComposerMenu, MenuRow};
use crate::components::mention_catalog;
use crate::components::prompt_arguments::ArgumentForm;

/// The `@` being typed: its byte range in the input (to the caret) and the text after it.
#[derive(Clone, PartialEq)]
pub(super) struct Mention {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

/// (server id, server name, name shown, URI) of a resource to read and attach.
pub(super) type ReadResource = Callback<(String, String, String, String)>;

/// The mention the caret ends, if any.
pub(super) fn mention_at_caret(area: &HtmlTextAreaElement) -> Option<Mention> {
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

/// What the menu lists for the text after `@`, best first (nothing while the `/` menu is open).
pub(super) fn found(ctx: &Ctx) -> Vec<MentionItem> {
    match &*ctx.mention {
        Some(m) if ctx.query.is_none() => {
            mentions::ranked(&ctx.catalog.borrow().items, &m.text).into_iter().cloned().collect()
        }
        _ => Vec::new(),
    }
}

/// Asks for the servers' next pages of resources.
pub(super) fn more(ctx: &Ctx) -> Callback<()> {
    let (catalog, services, redraw) =
        (ctx.catalog.clone(), ctx.services.clone(), ctx.redraw.clone());
    Callback::from(move |()| {
        if let Some(services) = &services {
            mention_catalog::more(&catalog, services, &redraw);
        }
    })
}

/// Too few matches for what is typed: the next pages are asked for while any are left.
#[hook]
pub(super) fn use_more_when_few(ctx: &Ctx, found: &[MentionItem], more: &Callback<()>) {
    let wants_more = ctx.mention.as_ref().is_some_and(|m| !m.text.is_empty())
        && found.len() < mentions::MAX_SHOWN
        && ctx.catalog.borrow().has_more();
    let more = more.clone();
    use_effect(move || {
        if wants_more {
            more.emit(());
        }
    });
}

/// A resource read, attached to the next message; what was cut or left out said below.
pub(super) fn read_resource(ctx: &Ctx, props: &Props) -> ReadResource {
    let (services, note, on_attach) =
        (ctx.services.clone(), ctx.note.clone(), props.on_attach.clone());
    Callback::from(move |(server_id, server_name, name, uri): (String, String, String, String)| {
        let Some(services) = services.clone() else { return };
        let (note, on_attach) = (note.clone(), on_attach.clone());
        note.set(Some(message("panelMentionReading", &[&name])));
        wasm_bindgen_futures::spawn_local(async move {
            let server_id = crate::chat_driver::server_id(&server_id);
            let request = Request::ReadResource { server_id: server_id.clone(), uri: uri.clone() };
            match services.port.request(request).await {
                Ok(Response::Resource { result }) => {
                    let attached = mentions::attach(&server_id, &server_name, &name, &uri, &result);
                    let notices: Vec<String> = attached.notices.iter().map(word).collect();
                    note.set((!notices.is_empty()).then(|| notices.join(" ")));
                    on_attach.emit(Rc::new(attached.part));
                }
                other => note.set(Some(failure(other))),
            }
        });
    })
}

/// Row `n` picked: the `@…` typed gives way to a resource's chip, or a template's form.
pub(super) fn pick(
    ctx: &Ctx,
    found: &[MentionItem],
    read_resource: &ReadResource,
) -> Callback<usize> {
    let (found, input, mention, form, note) = (
        found.to_vec(),
        ctx.input.clone(),
        ctx.mention.clone(),
        ctx.form.clone(),
        ctx.note.clone(),
    );
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
}

pub(super) fn menu(
    ctx: &Ctx,
    found: &[MentionItem],
    pick: Callback<usize>,
    more: Callback<()>,
) -> Html {
    let rows: Vec<MenuRow> = found.iter().map(row).collect();
    let catalog = ctx.catalog.borrow();
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
    html! {
        <ComposerMenu kind="mention" {rows} highlighted={*ctx.highlighted} loading={catalog.pending > 0}
            label_key="panelMentionMenu" loading_key="panelMentionLoading" none_key="panelMentionNone"
            footer={Some(footer)} on_pick={pick} on_end={more} />
    }
}

fn row(item: &MentionItem) -> MenuRow {
    let (title, detail) = match item {
        MentionItem::Resource { resource, .. } => (
            resource.title.clone().filter(|t| t != &resource.name).unwrap_or_default(),
            resource.uri.clone(),
        ),
        MentionItem::Template { template, .. } => (
            template.title.clone().filter(|t| t != &template.name).unwrap_or_default(),
            format!("{} · {}", message("panelMentionTemplate", &[]), template.uri_template),
        ),
    };
    MenuRow {
        icon: Some(glyph(item.icon())),
        name: format!("@{}", item.name()),
        title,
        source: item.server_name().to_owned(),
        detail,
    }
}
