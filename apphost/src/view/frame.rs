//! The frame's life: a fresh sandbox and session with the app's document, its height and
//! width, and its end (left, hung, reloaded, closed).

use std::cell::RefCell;
use std::rc::Rc;

use gemipanel_browser::app_frame::{adopt_spare_sandbox, environment, Sandbox};
use gemipanel_browser::chrome::{extension_version, message, ui_language};
use gemipanel_core::apps::protocol::{
    ContainerDimensions, DeviceCapabilities, DisplayMode, HostCapabilities, HostContext, HostInfo,
    HostStyles, SandboxGrant, Theme, ToolInfo,
};
use gemipanel_core::apps::session::{Action, AppSession, MAX_HEIGHT};
use gemipanel_core::apps::{csp, document, AppSetup};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlIFrameElement};

use super::{View, INITIAL_HEIGHT, TEARDOWN_GRACE_MS};
use crate::dom::{element, toggle_attribute};

impl View {
    /// The side panel was resized: the app hears of a new container width.
    pub(super) fn width_changed(view: &Rc<RefCell<View>>) {
        let actions = {
            let mut this = view.borrow_mut();
            let width = environment(Some(&this.ui.root)).width;
            if width == this.width {
                return;
            }
            this.width = width;
            let change = HostContext {
                container_dimensions: Some(this.dimensions()),
                ..HostContext::default()
            };
            this.session.context_changed(change)
        };
        View::run(view, actions);
    }

    /// A fresh frame and session with the app's document; what the call produced is replayed.
    pub(super) fn load(view: &Rc<RefCell<View>>) {
        // Permissions pass through both frames, and only once the person allowed them. A frame's
        // `allow` counts from its next navigation, so only an app asking for none can have the
        // spare sandbox page, which is loaded already.
        let allow = view.borrow().allow();
        View::ask_permissions(view);
        let body = view.borrow().ui.body.clone();
        body.set_inner_html("");
        let spare = if allow.is_empty() { adopt_spare_sandbox(&body) } else { None };
        let loaded = spare.is_some();
        let iframe = spare.unwrap_or_else(|| {
            let iframe: HtmlIFrameElement = element("iframe", "").unchecked_into();
            let _ = iframe.set_attribute("src", "sandbox.html");
            if !allow.is_empty() {
                let _ = iframe.set_attribute("allow", &allow);
            }
            iframe
        });
        iframe.set_class_name("app-sandbox");
        let _ = iframe.set_attribute("data-testid", "app-iframe");
        iframe.set_title(&view.borrow().setup.tool_name);
        let _ = iframe.style().set_property("height", &format!("{INITIAL_HEIGHT}px"));
        view.borrow_mut().ui.iframe = Some(iframe.clone());
        if loaded {
            return View::connect(view);
        }
        let me = view.borrow().me.clone();
        let onload = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
            if let Some(view) = me.upgrade() {
                View::connect(&view);
            }
        });
        let _ = iframe.add_event_listener_with_callback("load", onload.as_ref().unchecked_ref());
        view.borrow_mut().listeners.push(onload);
        let _ = body.append_child(&iframe);
    }

    /// The sandbox page has loaded: hand it the app's document.
    pub(super) fn connect(view: &Rc<RefCell<View>>) {
        let mut this = view.borrow_mut();
        // The sandbox page loads once per frame; a second load event is not ours to act on.
        if this.sandbox.is_some() {
            return;
        }
        let Some(iframe) = this.ui.iframe.clone() else { return };
        let me = this.me.clone();
        let sandbox = Sandbox::connect(&iframe, move |event| {
            if let Some(view) = me.upgrade() {
                View::on_sandbox(&view, event);
            }
        });
        let sandbox = match sandbox {
            Ok(sandbox) => sandbox,
            Err(err) => return this.log("error", &err.to_string()),
        };
        let policy = csp::policy(this.setup.resource.meta.csp.as_ref());
        for refused in &policy.refused {
            let text =
                format!("CSP {}: {} is not an origin; left out", refused.field, refused.source);
            this.log("warning", &text);
        }
        let allow = this.allow();
        sandbox.load(&document::prepared_parts(&this.setup.resource.html, &policy.header), &allow);
        this.sandbox = Some(sandbox);
        let input = this.setup.input.clone();
        let mut actions = this.session.tool_input(input);
        if let Some(result) = this.setup.result.clone() {
            actions.extend(this.session.tool_result(result));
        } else if this.setup.cancelled {
            actions.extend(this.session.tool_cancelled("user action"));
        }
        drop(this);
        View::run(view, actions);
    }

    pub(super) fn reload(view: &Rc<RefCell<View>>) {
        {
            let mut this = view.borrow_mut();
            this.release_frame();
            let permitted = this.permitted == Some(true);
            this.session = new_session(&this.setup, this.mode, permitted, &this.ui.root);
            let _ = this.ui.root.set_attribute("data-state", "starting");
            this.ui.log_list.set_inner_html("");
            this.log_count = 0;
            toggle_attribute(&this.ui.log, "hidden", true);
        }
        View::load(view);
    }

    /// The room the app has in its display mode, as laid out now: inline it grows, fullscreen
    /// and pip it fills a box of the panel's making.
    pub(super) fn dimensions(&self) -> ContainerDimensions {
        let body = &self.ui.body;
        match self.mode {
            DisplayMode::Inline => ContainerDimensions::growing(self.width, MAX_HEIGHT),
            _ => {
                ContainerDimensions::fixed(body.client_width() as u32, body.client_height() as u32)
            }
        }
    }

    pub(super) fn resize(&self, height: u32) {
        if let Some(iframe) = &self.ui.iframe {
            let _ = iframe.style().set_property("height", &format!("{}px", height.max(40)));
        }
    }

    /// The app's frame goes (its place in the chat goes, or it reloads): the app is asked to
    /// clean up (`ui/resource-teardown`), and its frame, out of the layout, waits for the answer
    /// a moment. An app not yet running has nothing to clean up: its frame goes at once.
    pub(super) fn release_frame(&mut self) {
        let teardown = self.session.teardown().into_iter().find_map(|action| match action {
            Action::Post(message) => Some(message),
            _ => None,
        });
        self.view_tools_gone();
        let sandbox = self.sandbox.take();
        if let (Some(sandbox), Some(iframe), Some(message)) =
            (sandbox, self.ui.iframe.take(), teardown)
        {
            sandbox.depart(&iframe, &message, TEARDOWN_GRACE_MS);
        }
    }

    /// The app tried to load another page in its frame (where nothing may load): it is gone,
    /// and the person is told why; Reload starts it again.
    pub(super) fn stop_for_leaving(&mut self) {
        self.close();
        let notice = element("p", "app-error");
        let _ = notice.set_attribute("role", "alert");
        let _ = notice.set_attribute("data-testid", "app-error");
        notice.set_text_content(Some(&message("panelAppLeft", &[])));
        let _ = self.ui.body.append_child(&notice);
        let _ = self.ui.root.set_attribute("data-state", "stopped");
    }

    /// The sandbox process stopped answering while this app was the one in use: it is taken to
    /// be stuck in a loop and stays stopped (its frame is gone already) until the person
    /// reloads it.
    pub(super) fn stop_for_hanging(view: &Rc<RefCell<View>>) {
        let mut this = view.borrow_mut();
        this.forget_frame();
        this.close();
        let notice = element("div", "app-error app-hung");
        let _ = notice.set_attribute("role", "alert");
        let _ = notice.set_attribute("data-testid", "app-hung");
        let text = element("p", "");
        text.set_text_content(Some(&message("panelAppHung", &[])));
        let button = element("button", "");
        let _ = button.set_attribute("type", "button");
        let _ = button.set_attribute("data-testid", "app-hung-reload");
        button.set_text_content(Some(&message("panelAppHungReload", &[])));
        let me = this.me.clone();
        let reload = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
            if let Some(view) = me.upgrade() {
                View::reload(&view);
            }
        });
        let _ = button.add_event_listener_with_callback("click", reload.as_ref().unchecked_ref());
        this.listeners.push(reload);
        let _ = notice.append_child(&text);
        let _ = notice.append_child(&button);
        let _ = this.ui.body.append_child(&notice);
        let _ = this.ui.root.set_attribute("data-state", "hung");
    }

    /// The app's frame was removed under it (see `SandboxEvent::Hung`): nothing to ask it.
    pub(super) fn forget_frame(&mut self) {
        self.view_tools_gone();
        self.sandbox = None;
        self.ui.iframe = None;
    }

    pub(super) fn close(&mut self) {
        self.view_tools_gone();
        self.sandbox = None;
        self.ui.body.set_inner_html("");
        self.ui.iframe = None;
        let _ = self.ui.root.set_attribute("data-state", "closed");
    }
}

/// `permitted`: the person allowed the permissions the app declared, so the host grants them.
/// `root`: the app's place, whose width is the container's.
pub(super) fn new_session(
    setup: &AppSetup,
    mode: DisplayMode,
    permitted: bool,
    root: &Element,
) -> AppSession {
    let applied = csp::policy(setup.resource.meta.csp.as_ref()).applied;
    let granted = setup.resource.meta.permissions.clone().filter(|_| permitted);
    let capabilities = HostCapabilities {
        sandbox: SandboxGrant { csp: applied, permissions: granted.unwrap_or_default() },
        ..HostCapabilities::default()
    };
    let env = environment(Some(root));
    let context = HostContext {
        tool_info: Some(ToolInfo { id: Some(setup.call_id.clone()), tool: setup.tool.clone() }),
        display_mode: Some(mode),
        available_display_modes: Some(vec![
            DisplayMode::Inline,
            DisplayMode::Fullscreen,
            DisplayMode::Pip,
        ]),
        locale: Some(ui_language()),
        time_zone: Some(env.time_zone.clone()),
        user_agent: Some(format!("GemiPanel/{}", extension_version())),
        platform: Some("web"),
        device_capabilities: Some(DeviceCapabilities { touch: env.touch, hover: env.hover }),
        ..looks_of(&env)
    };
    let info = HostInfo { name: "GemiPanel".into(), version: extension_version() };
    AppSession::new(info, capabilities, context)
}

/// The parts of the context that follow the page's look and the frame's width.
pub(super) fn looks(root: &Element) -> HostContext {
    looks_of(&environment(Some(root)))
}

pub(super) fn looks_of(env: &gemipanel_browser::app_frame::Environment) -> HostContext {
    HostContext {
        theme: Some(if env.dark { Theme::Dark } else { Theme::Light }),
        styles: Some(HostStyles { variables: env.variables.clone() }),
        container_dimensions: Some(ContainerDimensions::growing(env.width, MAX_HEIGHT)),
        ..HostContext::default()
    }
}
