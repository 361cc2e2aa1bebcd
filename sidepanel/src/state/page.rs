//! The page beside the chat (its tab, the chip, its selection and tools) and what goes with the
//! next message besides its words (attached context, files, the resources it follows).

use std::rc::Rc;

use gemipanel_core::page::context::ContextPart;
use gemipanel_core::page::tab::Tab;
use gemipanel_core::resource_updates::FollowedResource;

use super::{Action, State};

/// The page chip: the tab beside the chat, and whether turns carry its page.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PageView {
    /// The active tab; without the `tabs` permission, the last one GemiPanel may see (the one
    /// it was invoked on), as the active tab's address is hidden from it.
    pub tab: Option<Tab>,
    pub on: bool,
    /// GemiPanel holds `tabs`: the chip follows every tab.
    pub follows_tabs: bool,
    /// GemiPanel asked for `tabs` once already.
    pub tabs_asked: bool,
}

pub(super) fn on_page(next: &mut State, action: Action) {
    let page = &mut next.page;
    match action {
        Action::TabSeen(tab) => {
            // Without `tabs`, a tab GemiPanel may not see keeps the chip on the last one it saw.
            let same = page.tab.as_ref().is_some_and(|t| t.id == tab.id);
            if tab.active && (tab.is_visible() || page.follows_tabs || page.tab.is_none()) || same {
                page.tab = Some(tab);
            }
        }
        Action::TabsPermission(granted) => page.follows_tabs = granted,
        Action::TabsAsked => page.tabs_asked = true,
        Action::SetPageChip(on) => page.on = on,
        Action::PinTab(tab) => {
            page.tab = Some(tab);
            page.on = true;
        }
        Action::PageToolsListed(tools) => next.page_tools = tools,
        Action::SelectionOffered(offer) => next.selection = offer,
        _ => {} // another part's action (`reduce` sends none here)
    }
}

pub(super) fn on_attachment(state: &State, next: &mut State, action: Action) {
    match action {
        Action::AttachSelection => {
            if let Some(selection) = next.selection.take() {
                if !next.attachments.contains(&selection) {
                    next.attachments.push(selection);
                }
            }
        }
        Action::PromptsChanged => next.prompts_epoch = next.prompts_epoch.wrapping_add(1),
        Action::Attach(part) => {
            if let Some(resource) = FollowedResource::of(&part.label) {
                next.resource_marks.refreshed(&resource);
                let same = |p: &Rc<ContextPart>| {
                    FollowedResource::of(&p.label).as_ref() == Some(&resource)
                };
                next.attachments.retain(|p| !same(p));
            }
            if !next.attachments.contains(&part) {
                next.attachments.push(part);
            }
        }
        Action::ResourceUpdated(resource) => {
            let follows = state.followed_resources();
            next.resource_marks.updated(&state.chat.id, &follows, resource);
        }
        Action::Detach(index) if index < next.attachments.len() => {
            next.attachments.remove(index);
        }
        Action::AttachFiles(files, refused) => {
            next.files.extend(files);
            next.file_note = (!refused.is_empty()).then(|| refused.join(" "));
        }
        Action::DetachFile(id) => next.files.retain(|f| f.id != id),
        Action::Uploading(progress) => next.upload = progress,
        _ => {}
    }
}
