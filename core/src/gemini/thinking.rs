//! A chat's thinking choice, and the `generationConfig` a model is sent: only what its family
//! documents (https://ai.google.dev/gemini-api/docs/thinking): `thinkingLevel` for the families
//! set by level, `thinkingBudget` where that is the knob, never both, never a level the family
//! refuses, and no sampling parameters where they are deprecated
//! (https://ai.google.dev/gemini-api/docs/changelog, 2026-07-21).

use serde::{Deserialize, Serialize};

use super::family::{Family, Level, Thinking};
use super::wire::{GenerationConfig, ThinkingConfig};

/// How hard a chat asks the model to think. Saved with the chat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThinkingChoice {
    /// Whatever the model does when not told (no level or budget is sent).
    #[default]
    Default,
    /// As little as the model allows (off, for the budget models that can turn it off).
    Minimal,
    Low,
    Medium,
    High,
}

impl ThinkingChoice {
    pub const ALL: [ThinkingChoice; 5] = [
        ThinkingChoice::Default,
        ThinkingChoice::Minimal,
        ThinkingChoice::Low,
        ThinkingChoice::Medium,
        ThinkingChoice::High,
    ];

    /// The name the UI keeps in an `<option value>`.
    pub fn as_str(self) -> &'static str {
        match self {
            ThinkingChoice::Default => "default",
            ThinkingChoice::Minimal => "minimal",
            ThinkingChoice::Low => "low",
            ThinkingChoice::Medium => "medium",
            ThinkingChoice::High => "high",
        }
    }

    pub fn parse(text: &str) -> Option<ThinkingChoice> {
        ThinkingChoice::ALL.into_iter().find(|c| c.as_str() == text)
    }

    fn level(self) -> Option<Level> {
        match self {
            ThinkingChoice::Default => None,
            ThinkingChoice::Minimal => Some(Level::Minimal),
            ThinkingChoice::Low => Some(Level::Low),
            ThinkingChoice::Medium => Some(Level::Medium),
            ThinkingChoice::High => Some(Level::High),
        }
    }

    /// The `_locales` key of its label for `family` (the lowest choice of a budget model that
    /// can turn thinking off is "Off").
    pub fn label_key(self, family: &Family) -> &'static str {
        match (self, family.thinking) {
            (ThinkingChoice::Minimal, Thinking::Budget { off: true, .. }) => "thinkingOff",
            (ThinkingChoice::Default, _) => "thinkingDefault",
            (ThinkingChoice::Minimal, _) => "thinkingMinimal",
            (ThinkingChoice::Low, _) => "thinkingLow",
            (ThinkingChoice::Medium, _) => "thinkingMedium",
            (ThinkingChoice::High, _) => "thinkingHigh",
        }
    }
}

/// The choices a family offers, `Default` first; empty when thinking cannot be set.
pub fn choices(family: &Family) -> Vec<ThinkingChoice> {
    match family.thinking {
        Thinking::None => Vec::new(),
        Thinking::Levels { levels, .. } => std::iter::once(ThinkingChoice::Default)
            .chain(
                ThinkingChoice::ALL
                    .into_iter()
                    .filter(|c| c.level().is_some_and(|l| levels.contains(&l))),
            )
            .collect(),
        Thinking::Budget { off, .. } => {
            let mut all = vec![ThinkingChoice::Default];
            if off {
                all.push(ThinkingChoice::Minimal);
            }
            all.extend([ThinkingChoice::Low, ThinkingChoice::Medium, ThinkingChoice::High]);
            all
        }
    }
}

/// The choice `family` can honour for `choice`: itself when offered, else the nearest level it
/// has (a chat moved to a model without `minimal` thinks at its lowest level instead).
pub fn honoured(family: &Family, choice: ThinkingChoice) -> ThinkingChoice {
    let offered = choices(family);
    if offered.is_empty() {
        return ThinkingChoice::Default;
    }
    if offered.contains(&choice) {
        return choice;
    }
    let Some(wanted) = choice.level() else { return ThinkingChoice::Default };
    offered
        .into_iter()
        .filter_map(|c| Some((c.level()?, c)))
        .min_by_key(|(level, _)| {
            ((*level as i32) - (wanted as i32)).abs() * 2 + i32::from(*level < wanted)
        })
        .map_or(ThinkingChoice::Default, |(_, c)| c)
}

/// Budgets in tokens for the budget models, clamped to their range.
const LOW_BUDGET: i32 = 1_024;
const MEDIUM_BUDGET: i32 = 8_192;

/// The `thinkingConfig` for `family` and `choice`: thought summaries always asked for
/// (`includeThoughts`, shown folded above the reply), plus the level or budget chosen.
pub fn thinking_config(family: &Family, choice: ThinkingChoice) -> Option<ThinkingConfig> {
    let choice = honoured(family, choice);
    let summaries = ThinkingConfig { include_thoughts: Some(true), ..ThinkingConfig::default() };
    match family.thinking {
        Thinking::None => None,
        Thinking::Levels { .. } => Some(ThinkingConfig {
            thinking_level: choice.level().map(|l| l.as_str().to_owned()),
            ..summaries
        }),
        Thinking::Budget { min, max, off } => {
            let budget = match choice {
                ThinkingChoice::Default => None,
                ThinkingChoice::Minimal if off => Some(0),
                ThinkingChoice::Minimal => Some(min),
                ThinkingChoice::Low => Some(LOW_BUDGET.clamp(min, max)),
                ThinkingChoice::Medium => Some(MEDIUM_BUDGET.clamp(min, max)),
                ThinkingChoice::High => Some(max),
            };
            // Thinking turned off has nothing to summarise.
            let include_thoughts = (budget != Some(0)).then_some(true);
            Some(ThinkingConfig { thinking_budget: budget, include_thoughts, ..summaries })
        }
    }
}

/// Sampling fields deprecated for the newer families, as `generationConfig` names them.
const SAMPLING: &[&str] = &["topP", "topK", "frequencyPenalty", "presencePenalty"];

/// What a request to a model of `family` carries in `generationConfig`, from what the chat
/// would like (`wanted`, `None` for nothing) and its thinking choice. `None` when empty.
pub fn generation_config(
    family: &Family,
    wanted: Option<&GenerationConfig>,
    choice: ThinkingChoice,
) -> Option<GenerationConfig> {
    let mut config = wanted.cloned().unwrap_or_default();
    if !family.sampling {
        config.temperature = None;
        config.extra.retain(|key, _| !SAMPLING.contains(&key.as_str()));
    }
    // One candidate is all a chat reads; the newer models take no other count.
    config.extra.remove("candidateCount");
    config.thinking_config = thinking_config(family, choice);
    (config != GenerationConfig::default()).then_some(config)
}
