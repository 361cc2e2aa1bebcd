//! What the API does with model ids it retired: routes them to another model, or refuses them.
//!
//! Data, each row with the page that says so. `core/tests/data/gemini/routes.json` holds the
//! same rows for the fake Gemini API (a test keeps the two equal).

use serde::Serialize;

/// What happens to a request for a retired id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Fate {
    /// Served by `to`, under `to`'s rules ("All requests to … are automatically routed").
    Routed,
    /// Answered 404 "This model models/… is no longer available."; `to` is the replacement
    /// the deprecations page names.
    ShutDown,
    /// Answered 404 "… is no longer available to new users." (keys that used it before still
    /// reach it).
    ClosedToNewUsers,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Route {
    pub from: &'static str,
    /// The model that serves it (routed) or the named replacement (shut down).
    pub to: Option<&'static str>,
    pub fate: Fate,
    /// Where the API's documentation (or its observed answer) says so.
    pub source: &'static str,
}

const DEPRECATIONS: &str = "https://ai.google.dev/gemini-api/docs/deprecations";

/// Every retired id GemiPanel knows of.
pub const ROUTES: &[Route] = &[
    Route {
        from: "gemini-3.7-flash",
        to: Some("gemini-3.8-flash"),
        fate: Fate::Routed,
        source:
            "https://ai.google.dev/gemini-api/docs/models/gemini-3.7-flash (2026-10-09: \
                 \"All requests to gemini-3.7-flash are automatically routed to gemini-3.8-flash\")",
    },
    Route {
        from: "gemini-3.5-flash",
        to: Some("gemini-3.6-flash"),
        fate: Fate::Routed,
        source: "https://ai.google.dev/gemini-api/docs/whats-new-gemini-3.5 and \
                 https://ai.google.dev/gemini-api/docs/changelog (2026-10-08)",
    },
    Route {
        from: "gemini-3-pro-preview",
        to: Some("gemini-3.1-pro-preview"),
        fate: Fate::ShutDown,
        source: DEPRECATIONS,
    },
    Route {
        from: "gemini-3.1-flash-lite-preview",
        to: Some("gemini-3.1-flash-lite"),
        fate: Fate::ShutDown,
        source: DEPRECATIONS,
    },
    Route {
        from: "gemini-3.1-flash-image-preview",
        to: Some("gemini-3.1-flash-image"),
        fate: Fate::ShutDown,
        source: DEPRECATIONS,
    },
    Route {
        from: "gemini-3-pro-image-preview",
        to: Some("gemini-3-pro-image"),
        fate: Fate::ShutDown,
        source: DEPRECATIONS,
    },
    Route { from: "gemini-2.0-flash", to: None, fate: Fate::ShutDown, source: DEPRECATIONS },
    Route { from: "gemini-2.0-flash-001", to: None, fate: Fate::ShutDown, source: DEPRECATIONS },
    Route { from: "gemini-2.0-flash-lite", to: None, fate: Fate::ShutDown, source: DEPRECATIONS },
    Route {
        from: "gemini-2.0-flash-lite-001",
        to: None,
        fate: Fate::ShutDown,
        source: DEPRECATIONS,
    },
    Route {
        from: "gemini-2.5-flash-preview-09-2025",
        to: None,
        fate: Fate::ShutDown,
        source: "https://ai.google.dev/gemini-api/docs/deprecations (observed 404 wording: \
                 9router issue 1496)",
    },
    Route {
        from: "gemini-2.5-flash",
        to: None,
        fate: Fate::ClosedToNewUsers,
        source: "https://ai.google.dev/gemini-api/docs/deprecations (observed 404 wording: \
                 github.com/kestra-io/docs/issues/5168)",
    },
    Route {
        from: "gemini-2.5-pro",
        to: None,
        fate: Fate::ClosedToNewUsers,
        source: "https://ai.google.dev/gemini-api/docs/deprecations (observed 404 wording: \
                 github.com/kestra-io/docs/issues/5168)",
    },
];

/// The row for `id` (with or without `models/`), if it was retired.
pub fn route_of(id: &str) -> Option<&'static Route> {
    let id = super::models::model_id(id);
    ROUTES.iter().find(|r| r.from.eq_ignore_ascii_case(id))
}

/// The model that actually answers a request for `id`: the routing target, else `id` itself.
pub fn served_by(id: &str) -> &str {
    match route_of(id) {
        Some(Route { fate: Fate::Routed, to: Some(to), .. }) => to,
        _ => super::models::model_id(id),
    }
}
