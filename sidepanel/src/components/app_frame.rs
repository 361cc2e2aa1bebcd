//! A tool's MCP App in the chat: a place the app host module (`apphost/`, loaded the first time
//! a chat shows an app) fills, and the callbacks it reaches the worker and the chat through.

use std::cell::RefCell;
use std::rc::Rc;

use gemipanel_browser::app_frame::{MountedApp, NearnessWatch, ViewToolCaller};
use gemipanel_browser::chrome::message;
use gemipanel_browser::messaging::{from_js, from_object, to_js};
use gemipanel_core::apps::frame_wire::HostWork;
use gemipanel_core::apps::AppSetup;
use wasm_bindgen::prelude::*;
use yew::prelude::*;

use super::app_call_ask::{AppAsks, AppCallAsk};
use crate::app_host::{AppOrigin, AppServices};
use crate::transcript::{AppCard, AppContextSent};

#[derive(Properties, Clone)]
pub struct Props {
    pub call_id: AttrValue,
    pub server_name: AttrValue,
    pub tool_name: AttrValue,
    pub app: AppCard,
}

impl PartialEq for Props {
    // The HTML is large: what changes is compared by identity.
    fn eq(&self, other: &Self) -> bool {
        self.call_id == other.call_id
            && same(&self.app.resource, &other.app.resource)
            && same(&self.app.result, &other.app.result)
            && self.app.cancelled == other.app.cancelled
            && self.app.error == other.app.error
    }
}

fn same<T>(a: &Option<Rc<T>>, b: &Option<Rc<T>>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => Rc::ptr_eq(a, b),
        (None, None) => true,
        _ => false,
    }
}

/// How far out of view an app may be before it is suspended: its frames go (a chat with many
/// apps stays light) and come back, from the saved HTML, input and result, when it comes near.
const SUSPEND_BEYOND_PX: u32 = 1200;

/// What a mounted app holds on to: the view and the callbacks it calls.
struct Mounted {
    app: MountedApp,
    _callbacks: Callbacks,
}

#[function_component]
pub fn AppFrame(props: &Props) -> Html {
    let slot = use_node_ref();
    let mounted = use_mut_ref(|| None::<Mounted>);
    // The latest props, read when the module has loaded (a result may arrive meanwhile).
    let latest = use_mut_ref(|| props.clone());
    *latest.borrow_mut() = props.clone();
    let services = use_context::<AppServices>();
    let resource = props.app.resource.clone();
    let outer = use_node_ref();
    let near = use_state(|| true);
    // Why the app host could not show the app (its module did not load, say).
    let mount_error = use_state(|| None::<String>);
    // The height it had, kept by its placeholder while suspended.
    let height = use_mut_ref(|| 0);
    // The app's tool calls the person is asked about in its card.
    let update = use_force_update();
    let asks = use_memo((), move |_| AppAsks::new(Callback::from(move |()| update.force_update())));
    {
        let (outer, slot, near, height) =
            (outer.clone(), slot.clone(), near.clone(), height.clone());
        use_effect_with((), move |_| {
            // The app host and a sandbox process get ready while the resource is read.
            gemipanel_browser::app_frame::warm_up();
            let watch = outer.cast::<web_sys::Element>().map(|element| {
                NearnessWatch::new(&element, SUSPEND_BEYOND_PX, move |is_near| {
                    if !is_near {
                        if let Some(slot) = slot.cast::<web_sys::Element>() {
                            *height.borrow_mut() = slot.client_height();
                        }
                    }
                    near.set(is_near);
                })
            });
            move || drop(watch)
        });
    }

    {
        let (slot, mounted, latest) = (slot.clone(), mounted.clone(), latest.clone());
        let (mount_error, asks) = (mount_error.clone(), (*asks).clone());
        let key = resource.as_ref().map(|r| Rc::as_ptr(r) as usize);
        use_effect_with((key, *near), move |(key, near)| {
            let cleanup = mounted.clone();
            // Cleared when the place goes away, maybe before the module has loaded.
            let alive = Rc::new(std::cell::Cell::new(true));
            let still = alive.clone();
            if let (Some(_), Some(services), true) = (key, services, *near) {
                wasm_bindgen_futures::spawn_local(async move {
                    let Some(element) = slot.cast::<web_sys::Element>() else { return };
                    let props = latest.borrow().clone();
                    let Some(setup) = setup_of(&props) else { return };
                    let callbacks = Callbacks::new(&services, &props, &asks);
                    match MountedApp::mount(&element, &setup, &callbacks.object).await {
                        // Dropping a view destroys it.
                        Ok(app) if !still.get() => drop(app),
                        Ok(app) => {
                            // What arrived while the module loaded.
                            let now = latest.borrow().app.clone();
                            if setup.result.is_none() {
                                match (&now.result, now.cancelled) {
                                    (Some(result), _) => app.set_result(result),
                                    (None, true) if !setup.cancelled => app.cancel(),
                                    _ => {}
                                }
                            }
                            *mounted.borrow_mut() = Some(Mounted { app, _callbacks: callbacks });
                        }
                        Err(err) if still.get() => mount_error.set(Some(err.to_string())),
                        Err(_) => {}
                    }
                });
            }
            move || {
                alive.set(false);
                drop(cleanup.borrow_mut().take());
            }
        });
    }
    use_result_follows(&mounted, &props.app);

    let status = status(props, mount_error.as_ref(), !*near, *height.borrow());
    let ask = asks.current().map(|ask| {
        html! {
            <AppCallAsk asks={(*asks).clone()} {ask} app_tool={props.tool_name.clone()}
                server_name={props.server_name.clone()} />
        }
    });
    html! {
        <div class="app-slot" ref={outer}>
            { status }
            { for ask }
            <div ref={slot}></div>
        </div>
    }
}

/// A result or a cancel that arrives once the app is shown goes to it.
#[hook]
fn use_result_follows(mounted: &Rc<RefCell<Option<Mounted>>>, app: &AppCard) {
    let mounted = mounted.clone();
    let key = app.result.as_ref().map(|r| Rc::as_ptr(r) as usize);
    let (result, cancelled) = (app.result.clone(), app.cancelled);
    use_effect_with((key, cancelled), move |_| {
        if let Some(mounted) = mounted.borrow().as_ref() {
            match result {
                Some(result) => mounted.app.set_result(&result),
                None if cancelled => mounted.app.cancel(),
                None => {}
            }
        }
    });
}

/// Why the app is not shown: it failed, it is loading, or it is suspended (its placeholder
/// keeps the `height` it had).
fn status(props: &Props, mount_error: Option<&String>, suspended: bool, height: i32) -> Html {
    if let Some(error) = props.app.error.as_ref().or(mount_error) {
        html! { <p class="app-error" role="alert" data-testid="app-error">{ message("panelAppFailed", &[error]) }</p> }
    } else if props.app.resource.is_none() {
        html! {
            <p class="app-loading hint" data-testid="app-loading">
                <span class="spinner" aria-hidden="true"></span>{ message("panelAppLoading", &[]) }</p>
        }
    } else if suspended {
        let style = format!("min-height: {height}px");
        html! {
            <p class="app-suspended hint" data-testid="app-suspended" {style}>
                { message("panelAppSuspended", &[]) }</p>
        }
    } else {
        Html::default()
    }
}

fn setup_of(props: &Props) -> Option<AppSetup> {
    Some(AppSetup {
        call_id: props.call_id.to_string(),
        server_name: props.server_name.to_string(),
        tool_name: props.tool_name.to_string(),
        tool: (*props.app.tool).clone(),
        input: props.app.input.clone(),
        resource: props.app.resource.clone()?,
        result: props.app.result.as_ref().map(|r| (**r).clone()),
        cancelled: props.app.cancelled,
    })
}

type WorkFn = dyn FnMut(JsValue) -> js_sys::Promise;

/// The object of callbacks the app host calls (see apphost/src/host.rs), and the closures
/// behind it.
struct Callbacks {
    object: JsValue,
    _work: Closure<WorkFn>,
    _offer: Closure<dyn FnMut(String)>,
    _context: Closure<dyn FnMut(String, String)>,
    _tools: Closure<dyn FnMut(JsValue, JsValue)>,
}

impl Callbacks {
    fn new(services: &AppServices, props: &Props, asks: &AppAsks) -> Callbacks {
        let origin = Rc::new(AppOrigin {
            call_id: props.call_id.to_string(),
            server_id: props.app.server_id.clone(),
            server_name: props.server_name.to_string(),
            tool: props.tool_name.to_string(),
        });
        let work = {
            let (services, asks) = (services.clone(), asks.clone());
            Closure::<WorkFn>::new(move |work: JsValue| {
                let work = from_object::<HostWork>(work);
                let (services, origin, asks) = (services.clone(), origin.clone(), asks.clone());
                wasm_bindgen_futures::future_to_promise(async move {
                    let work = work.map_err(|_| "unknown work")?;
                    match services.run(&origin, work, &asks).await {
                        Ok(value) => to_js(&value).map_err(|e| JsValue::from_str(e.message())),
                        Err(error) => Err(JsValue::from_str(&error.message)),
                    }
                })
            })
        };
        let offer = {
            let offer = services.offer.clone();
            Closure::<dyn FnMut(String)>::new(move |text: String| offer.emit(text))
        };
        let context = {
            let (driver, call_id) = (services.driver.clone(), props.call_id.to_string());
            // Which app: the card's own tool and server, not the app host's English label.
            let sent = AppContextSent {
                tool: props.tool_name.to_string(),
                server: props.server_name.to_string(),
                text: String::new(),
            };
            Closure::<dyn FnMut(String, String)>::new(move |_label: String, text: String| {
                driver.set_app_context(&call_id, AppContextSent { text, ..sent.clone() })
            })
        };
        let tools = {
            let driver = services.driver.clone();
            let (call_id, tool) = (props.call_id.to_string(), props.tool_name.to_string());
            let server = props.server_name.to_string();
            Closure::<dyn FnMut(JsValue, JsValue)>::new(move |tools: JsValue, caller: JsValue| {
                // Unreadable as a whole: the app offers nothing (the host checked each tool).
                let tools = from_js(tools).unwrap_or_default();
                let caller = ViewToolCaller::from_js(caller);
                driver.set_view_tools(&call_id, (&tool, &server), tools, caller);
            })
        };
        let object = js_sys::Object::new();
        let set = |name: &str, f: &JsValue| {
            let _ = js_sys::Reflect::set(&object, &name.into(), f);
        };
        set("work", work.as_ref());
        set("offer", offer.as_ref());
        set("context", context.as_ref());
        set("tools", tools.as_ref());
        Callbacks {
            object: object.into(),
            _work: work,
            _offer: offer,
            _context: context,
            _tools: tools,
        }
    }
}
