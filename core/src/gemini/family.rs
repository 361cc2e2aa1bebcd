//! What a model takes, decided by its family (the version and variant in its id), never by one
//! id: how thinking is set, whether sampling parameters are still accepted, whether function
//! responses may carry media, whether signatures are validated, whether it can chat and call
//! functions at all. Each row cites the page it comes from; the first matching row wins.
//!
//! A routed id is judged by the model that serves it (`routing::served_by`): a request for
//! `gemini-3.7-flash` runs under 3.8 Flash's rules. The model list's own `thinking` field, when
//! it says `false`, turns thinking off whatever the family says.

use super::models::model_id;
use super::routing::served_by;

/// A `thinkingLevel` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Minimal,
    Low,
    Medium,
    High,
}

impl Level {
    /// As the REST examples of the thinking page write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Minimal => "minimal",
            Level::Low => "low",
            Level::Medium => "medium",
            Level::High => "high",
        }
    }
}

/// The knob a family's thinking is set with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Thinking {
    /// No `thinkingConfig` is sent (the model does not think, or GemiPanel does not know how
    /// it is set).
    None,
    /// `thinkingLevel`, one of `levels` (ascending); the model uses `default` when none is sent.
    Levels { levels: &'static [Level], default: Level },
    /// `thinkingBudget` in tokens between `min` and `max`; `off`: 0 turns thinking off.
    Budget { min: i32, max: i32, off: bool },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Family {
    /// A name for tests and logs ("gemini 3.7+ flash").
    pub name: &'static str,
    pub thinking: Thinking,
    /// `temperature`, `topP`, `topK` and the penalties are still taken (not deprecated).
    pub sampling: bool,
    /// Media may travel inside `functionResponse.parts` (Gemini 3 and later).
    pub media_in_function_responses: bool,
    /// The API refuses a current turn whose function calls lack their signatures.
    pub signatures_required: bool,
    /// Usable for a text chat (not a speech, image, live or embedding model).
    pub chat: bool,
    /// Takes `tools` with function declarations.
    pub function_calling: bool,
    /// Takes Google Search and function declarations in one request, with
    /// `toolConfig.includeServerSideToolInvocations`
    /// (https://ai.google.dev/gemini-api/docs/generate-content/tool-combination: Gemini 3 and
    /// later); older models refuse the combination.
    pub search_with_functions: bool,
}

const LOW_MEDIUM_HIGH: &[Level] = &[Level::Low, Level::Medium, Level::High];
const ALL_LEVELS: &[Level] = &[Level::Minimal, Level::Low, Level::Medium, Level::High];

const GEMINI_3: Family = Family {
    name: "gemini 3",
    thinking: Thinking::Levels { levels: LOW_MEDIUM_HIGH, default: Level::High },
    sampling: true,
    media_in_function_responses: true,
    signatures_required: true,
    chat: true,
    function_calling: true,
    search_with_functions: true,
};

const GEMINI_2: Family = Family {
    name: "gemini 2",
    thinking: Thinking::None,
    sampling: true,
    media_in_function_responses: false,
    signatures_required: false,
    chat: true,
    function_calling: true,
    search_with_functions: false,
};

/// Which ids a row covers.
#[derive(Debug, Clone, Copy)]
struct Matcher {
    /// Inclusive bounds on (major, minor); `gemini-4-argon` is 4.0.
    from: (u32, u32),
    to: (u32, u32),
    variant: Variant,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Variant {
    Flash,
    FlashLite,
    Pro,
    Any,
}

struct Row {
    matcher: Matcher,
    family: Family,
    source: &'static str,
}

const fn versions(from: (u32, u32), to: (u32, u32), variant: Variant) -> Matcher {
    Matcher { from, to, variant }
}

const MAX: u32 = u32::MAX;

/// First match wins.
const ROWS: &[Row] = &[
    Row {
        matcher: versions((4, 0), (MAX, MAX), Variant::Any),
        family: Family {
            name: "gemini 4",
            thinking: Thinking::Levels { levels: LOW_MEDIUM_HIGH, default: Level::Medium },
            sampling: false,
            ..GEMINI_3
        },
        source: "https://docs.cloud.google.com/gemini-enterprise-agent-platform/models/guides/gemini-4-argon \
                 (levels low/medium/high, default medium, no level turns thinking off; \
                 \"sampling parameters are ignored\"); thinking budget refused: \"Thinking budget \
                 is not supported for this model. Use thinking level instead.\"",
    },
    Row {
        matcher: versions((3, 7), (3, MAX), Variant::Flash),
        family: Family {
            name: "gemini 3.7+ flash",
            thinking: Thinking::Levels { levels: LOW_MEDIUM_HIGH, default: Level::Medium },
            sampling: false,
            ..GEMINI_3
        },
        source: "https://ai.google.dev/gemini-api/docs/models/gemini-3.7-flash (\"minimal is not \
                 supported and returns an error\"); Vertex 3-8-flash page (MINIMAL \"will return an \
                 API validation error\"); https://ai.google.dev/gemini-api/docs/latest-model \
                 (sampling deprecated for later releases)",
    },
    Row {
        matcher: versions((3, 6), (3, 6), Variant::Flash),
        family: Family {
            name: "gemini 3.6 flash",
            thinking: Thinking::Levels { levels: LOW_MEDIUM_HIGH, default: Level::Medium },
            sampling: false,
            ..GEMINI_3
        },
        source: "https://ai.google.dev/gemini-api/docs/generate-content/whats-new-gemini-3.6 \
                 (default medium; sampling deprecated, changelog 2026-07-21)",
    },
    Row {
        matcher: versions((3, 5), (3, MAX), Variant::FlashLite),
        family: Family {
            name: "gemini 3.5+ flash-lite",
            thinking: Thinking::Levels { levels: ALL_LEVELS, default: Level::Minimal },
            sampling: false,
            ..GEMINI_3
        },
        source: "https://ai.google.dev/gemini-api/docs/generate-content/whats-new-gemini-3.6 \
                 (3.5 Flash-Lite: default minimal); Vertex 3-5-flash-lite page (sampling deprecated, \
                 penalties throw an error)",
    },
    Row {
        matcher: versions((3, 0), (3, 4), Variant::FlashLite),
        family: Family {
            name: "gemini 3.1 flash-lite",
            thinking: Thinking::Levels { levels: ALL_LEVELS, default: Level::Minimal },
            ..GEMINI_3
        },
        source: "https://docs.cloud.google.com/gemini-enterprise-agent-platform/models/thinking \
                 (thinking level table: 3.1 Flash-Lite minimal..high, default minimal)",
    },
    Row {
        matcher: versions((3, 0), (3, 0), Variant::Flash),
        family: Family {
            name: "gemini 3 flash",
            thinking: Thinking::Levels { levels: ALL_LEVELS, default: Level::High },
            ..GEMINI_3
        },
        source: "https://ai.google.dev/gemini-api/docs/gemini-3 (Gemini 3 Flash: minimal, low, \
                 medium, high; default high)",
    },
    Row {
        matcher: versions((3, 6), (3, MAX), Variant::Any),
        family: Family {
            name: "gemini 3.6+",
            thinking: Thinking::Levels { levels: LOW_MEDIUM_HIGH, default: Level::Medium },
            sampling: false,
            ..GEMINI_3
        },
        source: "https://ai.google.dev/gemini-api/docs/latest-model (\"the same API contract \
                 applies to future model releases\"): the levels every 3.6+ model takes",
    },
    Row {
        matcher: versions((3, 0), (3, 5), Variant::Any),
        family: GEMINI_3,
        source: "https://ai.google.dev/gemini-api/docs/gemini-3 (3.1 Pro: low, medium, high; \
                 default high); thought signatures: https://ai.google.dev/gemini-api/docs/thought-signatures",
    },
    Row {
        matcher: versions((2, 5), (2, MAX), Variant::FlashLite),
        family: Family {
            name: "gemini 2.5 flash-lite",
            thinking: Thinking::Budget { min: 512, max: 24_576, off: true },
            ..GEMINI_2
        },
        source: "https://ai.google.dev/gemini-api/docs/thinking (budgets: 2.5 Flash-Lite \
                 512-24576, 0 turns it off)",
    },
    Row {
        matcher: versions((2, 5), (2, MAX), Variant::Flash),
        family: Family {
            name: "gemini 2.5 flash",
            thinking: Thinking::Budget { min: 1, max: 24_576, off: true },
            ..GEMINI_2
        },
        source: "https://ai.google.dev/gemini-api/docs/thinking (budgets: 2.5 Flash 0-24576, \
                 0 turns it off)",
    },
    Row {
        matcher: versions((2, 5), (2, MAX), Variant::Pro),
        family: Family {
            name: "gemini 2.5 pro",
            thinking: Thinking::Budget { min: 128, max: 32_768, off: false },
            ..GEMINI_2
        },
        source: "https://ai.google.dev/gemini-api/docs/thinking (budgets: 2.5 Pro 128-32768, \
                 cannot be turned off)",
    },
    Row {
        matcher: versions((0, 0), (2, MAX), Variant::Any),
        family: GEMINI_2,
        source: "https://ai.google.dev/gemini-api/docs/thinking (thinking models are 2.5 and \
                 later); https://ai.google.dev/gemini-api/docs/thought-signatures (validated on \
                 Gemini 3 and later)",
    },
];

/// An id whose version GemiPanel cannot read (`gemini-flash-latest`, a new naming): nothing
/// it might refuse is sent (no thinking configuration), media go beside function responses as
/// every model takes them, and signatures are kept as if it validated them.
const UNKNOWN: Family = Family {
    name: "unknown gemini",
    thinking: Thinking::None,
    sampling: false,
    media_in_function_responses: false,
    signatures_required: true,
    chat: true,
    function_calling: true,
    search_with_functions: false,
};

/// Gemma models served by the Gemini API reject `tools` (and `systemInstruction`).
const GEMMA: Family = Family {
    name: "gemma",
    thinking: Thinking::None,
    sampling: true,
    media_in_function_responses: false,
    signatures_required: false,
    chat: true,
    function_calling: false,
    search_with_functions: false,
};

/// Words in an id that mark a model made for something else than a text chat.
const NOT_FOR_CHAT: &[&str] =
    &["tts", "image", "live", "embedding", "transcribe", "native-audio", "veo", "imagen"];

impl Family {
    /// The family of the model that serves requests for `id`.
    pub fn of(id: &str) -> Family {
        let id = served_by(id).to_ascii_lowercase();
        if id.starts_with("gemma") {
            return GEMMA;
        }
        let mut family = match parse(&id) {
            Some((version, variant)) => ROWS
                .iter()
                .find(|row| row.matcher.covers(version, variant))
                .map_or(UNKNOWN, |row| row.family),
            None => UNKNOWN,
        };
        if NOT_FOR_CHAT.iter().any(|word| id.split('-').any(|part| part == *word)) {
            family.chat = false;
            family.function_calling = false;
            family.search_with_functions = false;
            family.thinking = Thinking::None;
        }
        family
    }

    /// The family, corrected by what the model list says of the model (`thinking: false`).
    pub fn of_listed(id: &str, thinking: Option<bool>) -> Family {
        let mut family = Family::of(id);
        if thinking == Some(false) {
            family.thinking = Thinking::None;
        }
        family
    }
}

impl Matcher {
    fn covers(&self, version: (u32, u32), variant: Variant) -> bool {
        self.from <= version
            && version <= self.to
            && (self.variant == Variant::Any || self.variant == variant)
    }
}

/// `gemini-3.8-flash` → ((3, 8), Flash); `gemini-4-argon` → ((4, 0), Any).
fn parse(id: &str) -> Option<((u32, u32), Variant)> {
    let rest = model_id(id).strip_prefix("gemini-")?;
    let (version, variant) = rest.split_once('-').unwrap_or((rest, ""));
    let (major, minor) = version.split_once('.').unwrap_or((version, "0"));
    let version = (major.parse().ok()?, minor.parse().ok()?);
    let variant = if variant.starts_with("flash-lite") {
        Variant::FlashLite
    } else if variant.starts_with("flash") {
        Variant::Flash
    } else if variant.starts_with("pro") {
        Variant::Pro
    } else {
        Variant::Any
    };
    Some((version, variant))
}

/// The major and minor version of a Gemini id, when it has one (`gemini-3.8-flash` → 3.8).
pub fn version_of(id: &str) -> Option<(u32, u32)> {
    parse(&id.to_ascii_lowercase()).map(|(version, _)| version)
}

/// Every row's family and source, for the tests that check the table.
pub fn rows() -> impl Iterator<Item = (&'static str, &'static str)> {
    ROWS.iter().map(|row| (row.family.name, row.source))
}
