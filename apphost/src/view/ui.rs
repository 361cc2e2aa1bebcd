//! The elements of one app's place, built once, and its log.

use gemipanel_browser::chrome::message;
use gemipanel_core::apps::AppSetup;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement, HtmlIFrameElement};

use super::{View, MAX_LOG};
use crate::dom::{element, icon_button, icons, toggle_attribute};

/// The elements the view changes after building them.
pub(super) struct Ui {
    pub(super) root: HtmlElement,
    pub(super) body: Element,
    pub(super) iframe: Option<HtmlIFrameElement>,
    pub(super) fullscreen: HtmlElement,
    pub(super) collapse: HtmlElement,
    pub(super) reload: HtmlElement,
    pub(super) prompt: HtmlElement,
    pub(super) permissions: HtmlElement,
    pub(super) log: Element,
    pub(super) log_list: Element,
    pub(super) log_summary: Element,
}

impl Ui {
    pub(super) fn build(container: &HtmlElement, setup: &AppSetup) -> Ui {
        let border =
            if setup.resource.meta.prefers_border == Some(false) { "" } else { " bordered" };
        let root: HtmlElement =
            element("section", &format!("app-frame inline{border}")).unchecked_into();
        for (name, value) in [
            ("data-testid", "app-frame"),
            ("data-state", "starting"),
            ("data-mode", "inline"),
            ("tabindex", "-1"),
        ] {
            let _ = root.set_attribute(name, value);
        }
        let bar = element("header", "app-bar");
        let title = element("span", "app-title");
        title.set_text_content(Some(&setup.tool_name));
        let collapse = icon_button(&icons::expanded(), &message("panelAppCollapse", &[]));
        let _ = collapse.set_attribute("data-testid", "app-collapse");
        let _ = collapse.set_attribute("aria-expanded", "true");
        let fullscreen = icon_button(&icons::fullscreen(), &message("panelAppFullscreen", &[]));
        let _ = fullscreen.set_attribute("data-testid", "app-fullscreen");
        let reload = icon_button(&icons::reload(), &message("panelAppReload", &[]));
        let _ = reload.set_attribute("data-testid", "app-reload");
        for child in [&title, collapse.as_ref(), fullscreen.as_ref(), reload.as_ref()] {
            let _ = bar.append_child(child);
        }
        let prompt: HtmlElement = element("div", "app-link").unchecked_into();
        let _ = prompt.set_attribute("role", "alertdialog");
        let _ = prompt.set_attribute("data-testid", "app-link");
        toggle_attribute(&prompt, "hidden", true);
        let permissions: HtmlElement = element("div", "app-link").unchecked_into();
        let _ = permissions.set_attribute("role", "alertdialog");
        let _ = permissions.set_attribute("data-testid", "app-permissions");
        toggle_attribute(&permissions, "hidden", true);
        let body = element("div", "app-body");
        let log = element("details", "app-log");
        let _ = log.set_attribute("data-testid", "app-log");
        toggle_attribute(&log, "hidden", true);
        let log_summary = element("summary", "");
        let log_list = element("ol", "");
        let _ = log.append_child(&log_summary);
        let _ = log.append_child(&log_list);
        for child in [&bar, permissions.as_ref(), prompt.as_ref(), &body, &log] {
            let _ = root.append_child(child);
        }
        let _ = container.append_child(&root);
        Ui {
            root,
            body,
            iframe: None,
            fullscreen,
            collapse,
            reload,
            prompt,
            permissions,
            log,
            log_list,
            log_summary,
        }
    }
}

impl View {
    pub(super) fn log(&mut self, level: &str, text: &str) {
        if self.log_count == MAX_LOG {
            if let Some(first) = self.ui.log_list.first_element_child() {
                first.remove();
            }
        } else {
            self.log_count += 1;
        }
        let entry = element("li", level);
        entry.set_text_content(Some(text));
        let _ = self.ui.log_list.append_child(&entry);
        self.ui
            .log_summary
            .set_text_content(Some(&message("panelAppLog", &[&self.log_count.to_string()])));
        toggle_attribute(&self.ui.log, "hidden", false);
    }
}
