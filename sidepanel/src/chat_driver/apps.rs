//! The chat's side of MCP Apps: a card for a tool that declares an app, its resource read
//! through the worker, and what apps ask to add to the next model request.

use indexmap::IndexMap;
use std::rc::Rc;

use gemipanel_core::apps::model_context;
use gemipanel_core::gemini::{Part, ToolCall};
use gemipanel_core::tools::ToolRoute;
use serde_json::Value;

use super::Driver;
use crate::app_read::read_app;
use crate::state::Action;
use crate::transcript::{AppCard, AppContextSent, Entry};

impl Driver {
    /// The app card of a call whose tool declares an app.
    pub(super) fn app_card(&self, route: &ToolRoute, call: &ToolCall) -> Option<AppCard> {
        let inner = self.0.borrow();
        let (uri, tool) = inner.servers.get(&route.server_id)?.apps.get(&route.tool_name)?;
        Some(AppCard::unread(route.server_id.clone(), uri.clone(), tool.clone(), call.args.clone()))
    }

    /// Reads the app's resource while the call runs.
    /// `tool` is the tool's definition, whose `_meta.ui` completes the resource's.
    pub(super) fn load_app(&self, call_id: &str, server_id: &str, uri: String, tool: Rc<Value>) {
        let (port, held) = {
            let inner = self.0.borrow();
            (inner.port.clone(), inner.held_apps.get(server_id, &uri))
        };
        let (this, call_id, server_id) = (self.clone(), call_id.to_owned(), server_id.to_owned());
        wasm_bindgen_futures::spawn_local(async move {
            let action = match read_app(&port, &server_id, &uri, &tool, held).await {
                Ok(resource) => {
                    this.0.borrow_mut().held_apps.hold(&server_id, &resource);
                    Action::AppLoaded { call_id, resource }
                }
                Err(error) => Action::AppFailed { call_id, error },
            };
            this.dispatch(action);
        });
    }

    /// A reopened chat's apps whose resource never arrived (the panel closed first) are read
    /// again; the others come from the saved chat as they were, and are held for when they
    /// are shown again.
    pub fn load_missing_apps(&self, entries: &[Entry]) {
        for entry in entries {
            let Entry::Tool(card) = entry else { continue };
            let Some(app) = card.app.as_ref().filter(|a| a.error.is_none()) else { continue };
            match &app.resource {
                Some(resource) => self.0.borrow_mut().held_apps.hold(&app.server_id, resource),
                None => {
                    self.load_app(&card.call_id, &app.server_id, app.uri.clone(), app.tool.clone())
                }
            }
        }
    }

    /// Content from a web page is in this chat: an app's calls of tools that may write ask
    /// again, as the model's do.
    pub fn page_content_seen(&self) -> bool {
        gemipanel_core::page::context::page_content_in(self.0.borrow().chat.history())
    }

    /// An app's `ui/update-model-context` (within core's cap, checked by the app's session):
    /// replaces what it asked before.
    pub fn set_app_context(&self, call_id: &str, sent: AppContextSent) {
        self.0.borrow_mut().app_contexts.insert(call_id.to_owned(), sent);
    }
}

/// The parts of a user message: what apps asked to add since the last one, quoted as the
/// apps' data (`core::apps::model_context`), then the person's words; and what was added, for
/// the transcript.
pub(super) fn with_app_context(
    contexts: &mut IndexMap<String, AppContextSent>,
    text: String,
) -> (Vec<Part>, Vec<AppContextSent>) {
    let sent: Vec<AppContextSent> = contexts.drain(..).map(|(_, sent)| sent).collect();
    let mut parts: Vec<Part> = sent
        .iter()
        .map(|s| Part::text(model_context::quote(&s.tool, &s.server, &s.text)))
        .collect();
    parts.push(Part::text(text));
    (parts, sent)
}
