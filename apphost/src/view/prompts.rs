//! The two questions the view asks the person: open a link the app asked for, and allow the
//! permissions (camera, microphone, …) it declared.

use std::cell::RefCell;
use std::rc::Rc;

use gemipanel_browser::chrome::message;
use gemipanel_core::apps::session::Reply;
use gemipanel_core::url_policy::Link;
use serde_json::json;

use super::View;
use crate::dom::{button, element, toggle_attribute};

impl View {
    pub(super) fn ask_link(view: &Rc<RefCell<View>>, reply: Reply, link: Link) {
        // A link while one waits for the person is refused: the one they are reading is never
        // swapped for another under their click.
        if view.borrow().link.is_some() {
            let refused =
                format!("ui/open-link refused: another link waits for the person ({})", link.host);
            view.borrow_mut().log("warning", &refused);
            return View::answer(view, reply, Ok(json!({ "isError": true })));
        }
        {
            let mut this = view.borrow_mut();
            let prompt = &this.ui.prompt;
            prompt.set_inner_html("");
            let question = message("panelAppOpenLink", &[&link.host]);
            // The dialog is named by its question (a screen reader says it on focus).
            let _ = prompt.set_attribute("aria-label", &question);
            let text = element("p", "");
            text.set_text_content(Some(&question));
            let href = element("p", "href");
            href.set_text_content(Some(&link.href));
            let open = button(&message("panelAppOpen", &[]), "", "primary");
            let _ = open.set_attribute("data-answer", "open");
            let cancel = button(&message("panelCancel", &[]), "", "");
            let _ = cancel.set_attribute("data-answer", "cancel");
            for child in [&text, &href, open.as_ref(), cancel.as_ref()] {
                let _ = prompt.append_child(child);
            }
            toggle_attribute(prompt, "hidden", false);
            this.link = Some((reply, link));
        }
    }

    /// The features the app asked for, as an `allow` attribute, once the person allowed them.
    pub(super) fn allow(&self) -> String {
        match (self.permitted, &self.setup.resource.meta.permissions) {
            // `*`: both frames have opaque origins, which the default allowlist ('src') misses.
            (Some(true), Some(asked)) => {
                asked.features().iter().map(|f| format!("{f} *")).collect::<Vec<_>>().join("; ")
            }
            _ => String::new(),
        }
    }

    /// Asks once whether the app may have the browser features it declared.
    pub(super) fn ask_permissions(view: &Rc<RefCell<View>>) {
        let this = view.borrow();
        let asked = this.setup.resource.meta.permissions.as_ref().map(|p| p.features());
        let Some(features) = asked.filter(|f| !f.is_empty() && this.permitted.is_none()) else {
            return;
        };
        let names: Vec<String> = features.iter().map(|f| feature_name(f)).collect();
        let prompt = &this.ui.permissions;
        prompt.set_inner_html("");
        let question = message("panelAppPermissions", &[&names.join(", ")]);
        let _ = prompt.set_attribute("aria-label", &question);
        let text = element("p", "");
        text.set_text_content(Some(&question));
        let allow = button(&message("panelAppAllow", &[]), "", "primary");
        let _ = allow.set_attribute("data-answer", "allow");
        let deny = button(&message("panelAppDeny", &[]), "", "");
        let _ = deny.set_attribute("data-answer", "deny");
        for child in [&text, allow.as_ref(), deny.as_ref()] {
            let _ = prompt.append_child(child);
        }
        toggle_attribute(prompt, "hidden", false);
    }

    /// Allowed: the app starts again with the features (a frame's `allow` is fixed at load).
    pub(super) fn permissions_answered(view: &Rc<RefCell<View>>, allowed: bool) {
        {
            let mut this = view.borrow_mut();
            this.permitted = Some(allowed);
            toggle_attribute(&this.ui.permissions, "hidden", true);
        }
        if allowed {
            View::reload(view);
        }
    }

    pub(super) fn link_answered(view: &Rc<RefCell<View>>, open: bool) {
        let pending = {
            let mut this = view.borrow_mut();
            toggle_attribute(&this.ui.prompt, "hidden", true);
            this.link.take()
        };
        let Some((reply, link)) = pending else { return };
        if open {
            if let Some(window) = web_sys::window() {
                let _ = window.open_with_url_and_target_and_features(
                    &link.href,
                    "_blank",
                    "noopener,noreferrer",
                );
            }
        }
        let result = if open { json!({}) } else { json!({ "isError": true }) };
        View::answer(view, reply, Ok(result));
    }
}

/// A permission's name for the person.
fn feature_name(feature: &str) -> String {
    let key = match feature {
        "camera" => "panelPermCamera",
        "microphone" => "panelPermMicrophone",
        "geolocation" => "panelPermGeolocation",
        "clipboard-write" => "panelPermClipboard",
        other => return other.to_owned(),
    };
    message(key, &[])
}
