//! Display modes (inline, fullscreen, picture in picture) and collapsing.

use std::cell::RefCell;
use std::rc::Rc;

use gemipanel_browser::chrome::message;
use gemipanel_core::apps::protocol::{DisplayMode, HostContext};

use super::View;
use crate::dom::{icons, toggle_attribute};

impl View {
    pub(super) fn set_mode(view: &Rc<RefCell<View>>, mode: DisplayMode) {
        let actions = {
            let mut this = view.borrow_mut();
            if this.mode == mode {
                return;
            }
            this.mode = mode;
            let name = mode_name(mode);
            this.ui.root.set_class_name(&format!("app-frame {name}{}", this.border_class()));
            let _ = this.ui.root.set_attribute("data-mode", name);
            let (icon, title) = if mode == DisplayMode::Fullscreen {
                (icons::exit(), message("panelAppExitFullscreen", &[]))
            } else {
                (icons::fullscreen(), message("panelAppFullscreen", &[]))
            };
            this.ui.fullscreen.set_inner_html(&icon);
            let _ = this.ui.fullscreen.set_attribute("title", &title);
            let _ = this.ui.fullscreen.set_attribute("aria-label", &title);
            if mode == DisplayMode::Fullscreen {
                let _ = this.ui.root.focus();
            }
            let change = HostContext {
                display_mode: Some(mode),
                container_dimensions: Some(this.dimensions()),
                ..HostContext::default()
            };
            this.session.context_changed(change)
        };
        View::run(view, actions);
    }

    pub(super) fn toggle_collapsed(&mut self) {
        let collapsed = !self.ui.body.has_attribute("hidden");
        toggle_attribute(&self.ui.body, "hidden", collapsed);
        let (icon, title) = if collapsed {
            (icons::collapsed(), message("panelAppExpand", &[]))
        } else {
            (icons::expanded(), message("panelAppCollapse", &[]))
        };
        self.ui.collapse.set_inner_html(&icon);
        let _ = self.ui.collapse.set_attribute("title", &title);
        let _ = self.ui.collapse.set_attribute("aria-label", &title);
        let _ = self
            .ui
            .collapse
            .set_attribute("aria-expanded", if collapsed { "false" } else { "true" });
    }

    pub(super) fn border_class(&self) -> &'static str {
        if self.setup.resource.meta.prefers_border == Some(false) {
            ""
        } else {
            " bordered"
        }
    }
}

pub(super) fn mode_name(mode: DisplayMode) -> &'static str {
    match mode {
        DisplayMode::Inline => "inline",
        DisplayMode::Fullscreen => "fullscreen",
        DisplayMode::Pip => "pip",
    }
}
