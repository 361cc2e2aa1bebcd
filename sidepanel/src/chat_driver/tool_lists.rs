//! The servers' tool lists a turn is sent with: asked of every enabled server at once (first
//! when the panel opens, so that the person's first message usually finds them), the turn
//! leaving when `core::tools::gathering` says so (a dead or hanging server does not hold it),
//! late lists joining the turn's next round, and a failing server told once and asked again
//! after its backoff.

use std::collections::HashMap;
use std::rc::Rc;

use gemipanel_core::mcp::Tool;
use gemipanel_core::messages::{Request, Response};
use gemipanel_core::settings::{Server, Settings};
use gemipanel_core::tools::gathering::{Gathering, ListingHealth, Settled, Wait};
use gemipanel_core::tools::{ExposedTools, ToolDescriptor, ToolFilter};
use indexmap::{IndexMap, IndexSet};
use serde_json::Value;

use super::{now_ms, Driver, ServerFacts, TurnSetup};
use crate::state::Action;
use gemipanel_browser::chrome::{self, word};

/// What this page knows of the servers' tool lists, across turns.
#[derive(Default)]
pub(super) struct ToolLists {
    /// The last list each server gave.
    known: IndexMap<String, Rc<Vec<Tool>>>,
    /// Listings asked for and not answered yet.
    in_flight: IndexMap<String, InFlight>,
    health: ListingHealth,
    /// When the last listing answered from the network.
    last_fetched_ms: Option<u64>,
    /// A turn waiting for its listings.
    waiting: Option<Waiting>,
    /// Only the newest wait timer acts.
    timer_generation: u64,
    /// The servers whose last listing failed for want of a sign-in: their notice offers one.
    need_sign_in: IndexSet<String>,
}

/// Why a server's tools could not be listed.
struct Unlisted {
    why: String,
    /// The server waits for the person to sign in.
    needs_sign_in: bool,
}

impl Unlisted {
    fn because(why: String) -> Self {
        Self { why, needs_sign_in: false }
    }
}

struct InFlight {
    started_ms: u64,
    /// A turn left without it: the next turns do not wait for it either.
    given_up: bool,
}

/// A turn that is ready to go but for the tools.
pub(super) struct WaitingTurn {
    pub ask: super::Ask,
    pub setup: TurnSetup,
    pub key: String,
    pub settings: Rc<Settings>,
    /// The servers whose tools this turn declares.
    pub servers: IndexSet<String>,
    pub declares_tools: bool,
    /// The tools the page beside the chat offers (WebMCP), read before the turn waits.
    pub page: Option<Rc<super::page_tools::PageOffer>>,
    /// The page, selection and attachments the turn carries.
    pub context: super::context::TurnContext,
}

struct Waiting {
    turn: WaitingTurn,
    gathering: Gathering,
}

impl Driver {
    /// Asks the turn's servers for their tools (those not already being asked and not waiting
    /// out a backoff) and sends the turn once `gathering` lets it go.
    pub(super) fn gather_tools(&self, turn: WaitingTurn) {
        let now = now_ms();
        let (asked, gathering, failures) = {
            let mut inner = self.0.borrow_mut();
            let lists = &mut inner.lists;
            let mut asked = Vec::new();
            let mut waited = Vec::new();
            let mut failures = Vec::new();
            for server in turn.settings.servers.iter() {
                let id = server.id.as_str();
                if !turn.servers.contains(id) {
                    continue;
                }
                match lists.in_flight.get(id) {
                    Some(listing) if !listing.given_up => waited.push((id, listing.started_ms)),
                    Some(_) => {}
                    None if lists.health.may_ask(id, now) => {
                        asked.push(server.clone());
                        waited.push((id, now));
                    }
                    None => failures
                        .extend(lists.health.tell_failure(id).map(|why| (server.clone(), why))),
                }
            }
            let started = waited.iter().map(|(_, at)| *at).min().unwrap_or(now);
            let waited: Vec<String> = waited.into_iter().map(|(id, _)| id.to_owned()).collect();
            let mut gathering = Gathering::new(started, waited);
            if let Some(at) = lists.last_fetched_ms {
                gathering.fetched_earlier(at);
            }
            (asked, gathering, failures)
        };
        for (server, why) in failures {
            self.tell_unavailable(&server, &why);
        }
        self.0.borrow_mut().lists.waiting = Some(Waiting { turn, gathering });
        for server in asked {
            self.start_listing(server);
        }
        self.try_leave();
    }

    /// Asks the enabled servers for their tools ahead of the person's first message.
    pub fn prefetch_tools(&self, settings: &Settings, servers: &IndexSet<String>) {
        let now = now_ms();
        let asked: Vec<Server> = {
            let inner = self.0.borrow();
            let lists = &inner.lists;
            let wanted = |id: &str| {
                servers.contains(id)
                    && !lists.known.contains_key(id)
                    && !lists.in_flight.contains_key(id)
                    && lists.health.may_ask(id, now)
            };
            settings.servers.iter().filter(|s| wanted(s.id.as_str())).cloned().collect()
        };
        for server in asked {
            self.start_listing(server);
        }
    }

    /// Tells that a server's tools are missing from the turn; a server that waits for a
    /// sign-in gets a notice that offers it (it has no tools, so no card would).
    fn tell_unavailable(&self, server: &Server, why: &str) {
        let needs_sign_in = self.0.borrow().lists.need_sign_in.contains(server.id.as_str());
        if !needs_sign_in {
            let text = chrome::message("panelToolsUnavailable", &[&server.name, why]);
            return self.dispatch(Action::Notice(text));
        }
        self.dispatch(Action::SignInNotice {
            text: chrome::message("panelToolsNeedSignIn", &[&server.name]),
            server_id: server.id.as_str().to_owned(),
            server_name: server.name.clone(),
        });
    }

    /// The person signed in to `server_id` from a notice: its tools are asked for again at
    /// once instead of after the failure's backoff.
    pub(super) fn signed_in_from_notice(&self, server_id: &str) {
        let mut inner = self.0.borrow_mut();
        inner.lists.need_sign_in.swap_remove(server_id);
        inner.lists.health.answered(server_id);
    }

    fn start_listing(&self, server: Server) {
        let id = server.id.as_str().to_owned();
        let (port, this) = {
            let mut inner = self.0.borrow_mut();
            inner
                .lists
                .in_flight
                .insert(id.clone(), InFlight { started_ms: now_ms(), given_up: false });
            (inner.port.clone(), self.clone())
        };
        wasm_bindgen_futures::spawn_local(async move {
            let request = Request::ListTools { server_id: server.id.clone(), refresh: false };
            let outcome = match port.request(request).await {
                Ok(Response::Tools { tools, fetched, .. }) => Ok((tools, fetched)),
                Ok(Response::SignInNeeded { error, .. }) => {
                    Err(Unlisted { why: word(&error), needs_sign_in: true })
                }
                Ok(Response::Error { error }) => Err(Unlisted::because(word(&error))),
                Ok(_) => Err(Unlisted::because(chrome::message("errWorkerUnexpectedAnswer", &[]))),
                Err(err) => Err(Unlisted::because(err.message().to_owned())),
            };
            this.listing_settled(&server, outcome);
        });
    }

    fn listing_settled(&self, server: &Server, outcome: Result<(Vec<Tool>, bool), Unlisted>) {
        let id = server.id.as_str();
        let now = now_ms();
        let (how, told, waited_for) = {
            let mut inner = self.0.borrow_mut();
            let lists = &mut inner.lists;
            lists.in_flight.swap_remove(id);
            let how = match outcome {
                Ok((tools, fetched)) => {
                    lists.known.insert(id.to_owned(), Rc::new(tools));
                    lists.health.answered(id);
                    if fetched {
                        lists.last_fetched_ms = Some(now);
                        Settled::Fetched
                    } else {
                        Settled::Known
                    }
                }
                Err(Unlisted { why, needs_sign_in }) => {
                    lists.known.swap_remove(id);
                    lists.health.failed(id, now, why);
                    if needs_sign_in {
                        lists.need_sign_in.insert(id.to_owned());
                    } else {
                        lists.need_sign_in.swap_remove(id);
                    }
                    Settled::Failed
                }
            };
            let waited_for =
                lists.waiting.as_mut().is_some_and(|w| w.gathering.settled(id, how, now));
            // A failure is told when a turn meets it: now, or at the next message.
            let told = if waited_for { lists.health.tell_failure(id) } else { None };
            (how, told, waited_for)
        };
        if let Some(why) = told {
            self.tell_unavailable(server, &why);
        }
        if waited_for {
            self.try_leave();
        } else if how != Settled::Failed {
            // A late list: the running turn's next round declares it.
            self.redeclare_tools();
        }
    }

    /// Sends the waiting turn if its listings are in (or given up on); otherwise looks again
    /// when the wait runs out.
    fn try_leave(&self) {
        let wait = {
            let inner = self.0.borrow();
            match &inner.lists.waiting {
                Some(waiting) => waiting.gathering.poll(now_ms()),
                None => return,
            }
        };
        match wait {
            Wait::Leave => {
                let waiting = self.0.borrow_mut().lists.waiting.take();
                if let Some(waiting) = waiting {
                    self.leave(waiting);
                }
            }
            Wait::Until(at) => self.look_again_at(at),
        }
    }

    fn look_again_at(&self, at: u64) {
        let generation = {
            let mut inner = self.0.borrow_mut();
            inner.lists.timer_generation += 1;
            inner.lists.timer_generation
        };
        let delay = at.saturating_sub(now_ms()).min(u32::MAX as u64) as u32;
        let this = self.clone();
        gloo_timers::callback::Timeout::new(delay, move || {
            if this.0.borrow().lists.timer_generation == generation {
                this.try_leave();
            }
        })
        .forget();
    }

    /// The turn goes with the tools known now; the person hears once of a server left out.
    fn leave(&self, Waiting { turn, gathering }: Waiting) {
        let behind: Vec<&str> = {
            let mut inner = self.0.borrow_mut();
            let lists = &mut inner.lists;
            for id in gathering.pending() {
                if let Some(listing) = lists.in_flight.get_mut(id) {
                    listing.given_up = true;
                }
            }
            gathering.pending().filter(|id| lists.health.tell_left_behind(id)).collect()
        };
        for id in behind {
            let server = turn.settings.servers.iter().find(|s| s.id.as_str() == id);
            let name = server.map_or(id, |s| s.name.as_str());
            self.dispatch(Action::Notice(chrome::message("panelToolsLate", &[name])));
        }
        self.send_turn(turn);
    }

    /// Stop pressed while the turn waits for its tools: it does not go.
    pub(super) fn drop_waiting_turn(&self) -> bool {
        self.0.borrow_mut().lists.waiting.take().is_some()
    }

    /// The tools of `servers` as known now, with what the chat needs to know of each server.
    pub(super) fn known_tools(
        &self,
        settings: &Settings,
        servers: &IndexSet<String>,
    ) -> (ExposedTools, HashMap<String, ServerFacts>) {
        let inner = self.0.borrow();
        let mut descriptors = Vec::new();
        let mut filters = IndexMap::new();
        let mut facts = HashMap::new();
        for server in settings.servers.iter().filter(|s| servers.contains(s.id.as_str())) {
            let id = server.id.as_str();
            let Some(tools) = inner.lists.known.get(id) else { continue };
            let mut read_only = HashMap::new();
            let mut apps = HashMap::new();
            for tool in tools.iter() {
                read_only.insert(tool.name.clone(), tool.read_only());
                if let Some(uri) = tool.ui_resource_uri() {
                    let definition = serde_json::to_value(tool).unwrap_or(Value::Null);
                    apps.insert(tool.name.clone(), (uri.to_owned(), Rc::new(definition)));
                }
                descriptors.push(ToolDescriptor::from_mcp(id, &server.name, tool));
            }
            let filter = ToolFilter {
                include: server.include_tools.clone(),
                exclude: server.exclude_tools.clone(),
            };
            filters.insert(id.to_owned(), filter);
            let server_facts = ServerFacts {
                name: server.name.clone(),
                trust: server.trust,
                allowed: server.allowed_tools.clone(),
                read_only,
                apps,
            };
            facts.insert(id.to_owned(), server_facts);
        }
        (ExposedTools::build(&descriptors, &filters), facts)
    }
}
