//! What a turn carries besides the person's words: the page of the page chip, read when the
//! message is sent, and what was attached (a selection, an item of the context menu). Each
//! becomes core's quoted context parts; a page that cannot be read is named to the model
//! with the reason, and the person reads why in their language.

use std::rc::Rc;

use gemipanel_browser::chrome::word;
use gemipanel_browser::page;
use gemipanel_core::gemini::{Content, Part};
use gemipanel_core::page::browser_tools::{page_context, unreadable_page};
use gemipanel_core::page::context::{ContextLabel, ContextPart};
use gemipanel_core::page::tab::Tab;

/// The turn's context, read.
pub(super) struct TurnContext {
    parts: Vec<ContextPart>,
    /// Pages that could not be read, in words for the model.
    unread: Vec<String>,
    /// The parts of the files the person attached, read or uploaded.
    pub files: Vec<Part>,
    /// What the transcript shows under the message.
    pub labels: Vec<ContextLabel>,
    /// Why a page could not be read, for the person.
    pub notices: Vec<String>,
}

impl TurnContext {
    /// The parts of the user message, before its text.
    pub fn parts(&self, history: &[Content]) -> Vec<Part> {
        let mut parts: Vec<Part> = self.parts.iter().flat_map(|p| p.to_parts(history)).collect();
        parts.extend(self.unread.iter().map(|text| Part::text(text.clone())));
        parts.extend(self.files.iter().cloned());
        parts
    }
}

/// Reads the chip's page (when on) and gathers the attachments.
pub(super) async fn read(tab: Option<&Tab>, attachments: &[Rc<ContextPart>]) -> TurnContext {
    let mut context = TurnContext {
        parts: Vec::new(),
        unread: Vec::new(),
        files: Vec::new(),
        labels: Vec::new(),
        notices: Vec::new(),
    };
    if let Some(tab) = tab {
        match page::read_page(Some(tab.id)).await {
            Ok(answer) => {
                let part = page_context(&answer.read.unwrap_or_default());
                context.labels.push(part.label.clone());
                context.parts.push(part);
            }
            Err(problem) => {
                let title = tab.title.clone().unwrap_or_default();
                let url = tab.url.clone().unwrap_or_default();
                context.unread.push(unreadable_page(&title, &url, &problem.text().to_string()));
                context.notices.push(word(&problem.text()));
            }
        }
    }
    for part in attachments {
        context.labels.push(part.label.clone());
        context.parts.push((**part).clone());
    }
    context
}
