//! What the `@` menu ranks: the resource templates and the resources of every enabled server,
//! asked for when the menu opens, a server's next page of resources only when the menu wants
//! more (scrolled to its end, or too few matches for what is typed). Kept in one `RefCell`
//! and appended to as pages arrive: copying ten thousand entries per page would cost more than
//! ranking them.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use gemipanel_core::mentions::{self, MentionItem};
use gemipanel_core::messages::{Request, Response};
use yew::prelude::*;

use crate::app_host::AppServices;

#[derive(Default)]
pub struct Catalog {
    pub items: Vec<MentionItem>,
    /// The next page of each server that has one and is not being asked for.
    cursors: HashMap<String, (String, String)>,
    /// Requests not answered yet.
    pub pending: usize,
    /// Which opening of the menu the answers belong to (those of an earlier one are dropped).
    opening: u32,
}

impl Catalog {
    /// Whether a server has more resources to page.
    pub fn has_more(&self) -> bool {
        !self.cursors.is_empty()
    }
}

pub type Shared = Rc<RefCell<Catalog>>;

/// Starts afresh: every server's templates and first page of resources.
pub fn open(
    catalog: &Shared,
    services: &AppServices,
    servers: &[(String, String)],
    redraw: &UseForceUpdateHandle,
) {
    let opening = {
        let mut c = catalog.borrow_mut();
        c.items.clear();
        c.cursors.clear();
        c.pending = 0;
        c.opening = c.opening.wrapping_add(1);
        c.opening
    };
    for (id, name) in servers {
        templates(catalog, services, id, name, opening, redraw);
        page(catalog, services, id, name, None, opening, redraw);
    }
}

/// The next page of every server that has one.
pub fn more(catalog: &Shared, services: &AppServices, redraw: &UseForceUpdateHandle) {
    let (waiting, opening) = {
        let mut c = catalog.borrow_mut();
        (c.cursors.drain().collect::<Vec<_>>(), c.opening)
    };
    for (id, (name, cursor)) in waiting {
        page(catalog, services, &id, &name, Some(cursor), opening, redraw);
    }
}

fn templates(
    catalog: &Shared,
    services: &AppServices,
    id: &str,
    name: &str,
    opening: u32,
    redraw: &UseForceUpdateHandle,
) {
    let request = Request::ListResourceTemplates { server_id: crate::chat_driver::server_id(id) };
    let (id, name) = (id.to_owned(), name.to_owned());
    ask(catalog, services, request, opening, redraw, move |c, response| {
        // A server that cannot list its templates just has none in the menu.
        if let Response::ResourceTemplates { templates, .. } = response {
            c.items.extend(templates.into_iter().map(|template| MentionItem::Template {
                server_id: id.clone(),
                server_name: name.clone(),
                template: Box::new(template),
            }));
        }
    });
}

fn page(
    catalog: &Shared,
    services: &AppServices,
    id: &str,
    name: &str,
    cursor: Option<String>,
    opening: u32,
    redraw: &UseForceUpdateHandle,
) {
    let request =
        Request::ListResourcePage { server_id: crate::chat_driver::server_id(id), cursor };
    let (id, name) = (id.to_owned(), name.to_owned());
    ask(catalog, services, request, opening, redraw, move |c, response| {
        if let Response::ResourcePage { page, .. } = response {
            c.items.extend(page.resources.into_iter().filter(mentions::offered).map(|resource| {
                MentionItem::Resource {
                    server_id: id.clone(),
                    server_name: name.clone(),
                    resource: Box::new(resource),
                }
            }));
            if let Some(next) = page.next_cursor {
                c.cursors.insert(id, (name, next));
            }
        }
    });
}

fn ask(
    catalog: &Shared,
    services: &AppServices,
    request: Request,
    opening: u32,
    redraw: &UseForceUpdateHandle,
    take: impl FnOnce(&mut Catalog, Response) + 'static,
) {
    catalog.borrow_mut().pending += 1;
    let (catalog, port, redraw) = (catalog.clone(), services.port.clone(), redraw.clone());
    wasm_bindgen_futures::spawn_local(async move {
        let answer = port.request(request).await;
        let mut c = catalog.borrow_mut();
        if c.opening != opening {
            return;
        }
        c.pending = c.pending.saturating_sub(1);
        if let Ok(response) = answer {
            take(&mut c, response);
        }
        drop(c);
        redraw.force_update();
    });
}
