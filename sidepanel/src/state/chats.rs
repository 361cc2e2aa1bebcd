//! The list of saved chats, and which chat is open.

use std::rc::Rc;

use super::{Action, ChatView, State, View};

pub(super) fn on_chats(next: &mut State, action: Action) {
    match action {
        Action::NewChat { id, now_ms } => {
            next.chat = ChatView::new(id, now_ms);
            next.view = View::Chat;
        }
        Action::OpenChatDeleted { id, now_ms } => next.chat = ChatView::new(id, now_ms),
        Action::ChatOpened(saved) => {
            next.chat = ChatView::from_saved(*saved);
            next.view = View::Chat;
        }
        Action::ChatsListed(saved) => next.saved = Rc::new(saved),
        Action::ChatRenamed { id, title, revision } if id == next.chat.id => {
            next.chat.title = title;
            next.chat.revision = next.chat.revision.max(revision);
        }
        Action::ChatStored { chat, merged } if chat.id == next.chat.id => {
            next.chat.take_stored(*chat, merged)
        }
        _ => {} // another part's action (`reduce` sends none here)
    }
}
