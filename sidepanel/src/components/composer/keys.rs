//! The input's keys: with a menu open, arrows move, Enter picks, Tab completes the name and
//! Escape closes; otherwise Enter sends and Shift+Enter is a newline.

use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

use super::mention::Mention;
use super::Ctx;

/// The open menu: its sigil, the names of its rows, what picks a row, what asks for more.
pub(super) struct OpenMenu {
    pub sigil: Option<char>,
    pub names: Vec<String>,
    pub pick: Callback<usize>,
    pub more: Callback<()>,
}

pub(super) fn onkeydown(ctx: &Ctx, menu: OpenMenu, send: &Callback<()>) -> Callback<KeyboardEvent> {
    let (ctx, send) = (ctx.clone(), send.clone());
    Callback::from(move |e: KeyboardEvent| {
        // While an IME composes (Japanese input), Enter confirms the composition.
        if e.is_composing() {
            return;
        }
        if let Some(sigil) = menu.sigil {
            if menu_key(&ctx, &menu, sigil, &e) {
                e.prevent_default();
                return;
            }
        }
        if e.key() == "Enter" && !e.shift_key() {
            e.prevent_default();
            send.emit(());
        }
    })
}

/// A key for the open menu; false when it is not the menu's (Enter with nothing matching sends
/// what was typed, as without the menu).
fn menu_key(ctx: &Ctx, menu: &OpenMenu, sigil: char, e: &KeyboardEvent) -> bool {
    let (at, shown, highlighted) = (*ctx.highlighted, menu.names.len(), &ctx.highlighted);
    match e.key().as_str() {
        "ArrowDown" if shown > 0 => {
            highlighted.set((at + 1) % shown);
            // At the last row of the `@` menu: the next pages.
            if sigil == '@' && at + 2 >= shown {
                menu.more.emit(());
            }
            true
        }
        "ArrowUp" if shown > 0 => {
            highlighted.set((at + shown - 1) % shown);
            true
        }
        "Enter" if shown > 0 && !e.shift_key() => {
            menu.pick.emit(at);
            true
        }
        "Tab" if shown > 0 && !e.shift_key() => {
            complete(ctx, sigil, menu.names.get(at));
            true
        }
        "Escape" => {
            ctx.query.set(None);
            ctx.mention.set(None);
            true
        }
        _ => false,
    }
}

/// Completes the name; the menu stays open on the entries it matches.
fn complete(ctx: &Ctx, sigil: char, name: Option<&String>) {
    let (Some(area), Some(name)) = (ctx.input.cast::<HtmlTextAreaElement>(), name) else {
        return;
    };
    match &*ctx.mention {
        Some(m) if sigil == '@' => {
            let value = area.value();
            let head = &value[..m.start];
            let tail = &value[m.end..];
            area.set_value(&format!("{head}@{name}{tail}"));
            let caret = format!("{head}@{name}").encode_utf16().count() as u32;
            let _ = area.set_selection_range(caret, caret);
            let end = m.start + 1 + name.len();
            ctx.mention.set(Some(Mention { start: m.start, end, text: name.clone() }));
        }
        _ => {
            area.set_value(&format!("/{name}"));
            ctx.query.set(Some(name.clone()));
        }
    }
    ctx.highlighted.set(0);
}
