//! A chat's thinking choice mapped to what each model family takes, and the `generationConfig`
//! a request carries: only what the chosen model documents.

use gemipanel_core::gemini::thinking::{choices, generation_config, honoured, thinking_config};
use gemipanel_core::gemini::{Action, Chat, ChatConfig, Family, GenerationConfig, ThinkingChoice};
use serde_json::{json, Value};

use ThinkingChoice::*;

fn config_json(model: &str, choice: ThinkingChoice) -> Value {
    serde_json::to_value(thinking_config(&Family::of(model), choice)).unwrap()
}

#[test]
fn level_families_get_a_level_and_never_one_they_refuse() {
    assert_eq!(config_json("gemini-3.8-flash", Default), json!({"includeThoughts": true}));
    assert_eq!(
        config_json("gemini-3.8-flash", High),
        json!({"includeThoughts": true, "thinkingLevel": "high"})
    );
    // 3.7/3.8 Flash and Gemini 4 refuse `minimal`: their lowest level instead.
    for model in ["gemini-3.8-flash", "gemini-3.7-flash", "gemini-4-argon", "gemini-3.6-flash"] {
        assert_eq!(
            config_json(model, Minimal),
            json!({"includeThoughts": true, "thinkingLevel": "low"}),
            "{model}"
        );
    }
    assert_eq!(
        config_json("gemini-3.5-flash-lite", Minimal),
        json!({"includeThoughts": true, "thinkingLevel": "minimal"})
    );
    assert_eq!(
        config_json("gemini-3-flash-preview", Medium),
        json!({"includeThoughts": true, "thinkingLevel": "medium"})
    );
}

#[test]
fn budget_families_get_a_budget_in_their_range() {
    assert_eq!(config_json("gemini-2.5-flash", Default), json!({"includeThoughts": true}));
    assert_eq!(config_json("gemini-2.5-flash", Minimal), json!({"thinkingBudget": 0}));
    assert_eq!(
        config_json("gemini-2.5-flash", Low),
        json!({"includeThoughts": true, "thinkingBudget": 1024})
    );
    assert_eq!(
        config_json("gemini-2.5-flash", High),
        json!({"includeThoughts": true, "thinkingBudget": 24576})
    );
    // 2.5 Pro cannot turn thinking off: a chat that chose it elsewhere thinks low, never 0.
    assert_eq!(
        config_json("gemini-2.5-pro", Minimal),
        json!({"includeThoughts": true, "thinkingBudget": 1024})
    );
    assert_eq!(
        config_json("gemini-2.5-flash-lite", Low),
        json!({"includeThoughts": true, "thinkingBudget": 1024})
    );
    assert_eq!(
        config_json("gemini-2.5-pro", High),
        json!({"includeThoughts": true, "thinkingBudget": 32768})
    );
}

#[test]
fn models_without_a_known_knob_get_no_thinking_config() {
    for model in ["gemini-2.0-flash", "gemma-3-27b-it", "gemini-flash-latest"] {
        assert_eq!(config_json(model, High), Value::Null, "{model}");
        assert!(choices(&Family::of(model)).is_empty(), "{model}");
    }
}

#[test]
fn the_control_offers_what_the_family_takes() {
    assert_eq!(choices(&Family::of("gemini-3.8-flash")), [Default, Low, Medium, High]);
    assert_eq!(
        choices(&Family::of("gemini-3.5-flash-lite")),
        [Default, Minimal, Low, Medium, High]
    );
    assert_eq!(choices(&Family::of("gemini-2.5-flash")), [Default, Minimal, Low, Medium, High]);
    assert_eq!(choices(&Family::of("gemini-2.5-pro")), [Default, Low, Medium, High]);
    let budget = Family::of("gemini-2.5-flash");
    assert_eq!(Minimal.label_key(&budget), "thinkingOff");
    assert_eq!(Minimal.label_key(&Family::of("gemini-3.5-flash-lite")), "thinkingMinimal");
    // A chat's choice moved to a model without it.
    assert_eq!(honoured(&Family::of("gemini-3.8-flash"), Minimal), Low);
    assert_eq!(honoured(&Family::of("gemini-2.5-pro"), Minimal), Low);
    assert_eq!(honoured(&Family::of("gemma-3-27b-it"), High), Default);
    for choice in ThinkingChoice::ALL {
        assert_eq!(ThinkingChoice::parse(choice.as_str()), Some(choice));
    }
}

#[test]
fn sampling_parameters_go_only_to_models_that_still_take_them() {
    let wanted: GenerationConfig = serde_json::from_value(json!({
        "temperature": 0.2, "topP": 0.9, "topK": 20, "presencePenalty": 0.5,
        "frequencyPenalty": 0.1, "candidateCount": 2, "maxOutputTokens": 4096
    }))
    .unwrap();
    let sent = |model: &str| {
        serde_json::to_value(generation_config(&Family::of(model), Some(&wanted), High)).unwrap()
    };
    for model in ["gemini-3.8-flash", "gemini-4-argon", "gemini-3.6-flash", "gemini-3.5-flash-lite"]
    {
        assert_eq!(
            sent(model),
            json!({"maxOutputTokens": 4096,
                   "thinkingConfig": {"includeThoughts": true, "thinkingLevel": "high"}}),
            "{model}"
        );
    }
    assert_eq!(
        sent("gemini-2.5-flash"),
        json!({"temperature": 0.2, "topP": 0.9, "topK": 20, "presencePenalty": 0.5,
               "frequencyPenalty": 0.1, "maxOutputTokens": 4096,
               "thinkingConfig": {"includeThoughts": true, "thinkingBudget": 24576}})
    );
    // Nothing wanted, nothing the model takes: no generationConfig at all.
    assert_eq!(generation_config(&Family::of("gemma-3-27b-it"), None, High), None);
}

#[test]
fn a_chat_sends_its_thinking_choice_mapped_for_its_model() {
    let body = |model: &str, thinking| {
        let mut config = ChatConfig::new(model);
        config.thinking = thinking;
        let mut chat = Chat::new(config, Vec::new());
        chat.send_text("Hi").unwrap();
        let Some(Action::Send(request)) = chat.poll_action() else { panic!() };
        serde_json::to_value(&request.body).unwrap()
    };
    assert_eq!(
        body("gemini-3.8-flash", Minimal)["generationConfig"],
        json!({"thinkingConfig": {"includeThoughts": true, "thinkingLevel": "low"}})
    );
    assert_eq!(
        body("gemini-2.5-flash", Medium)["generationConfig"],
        json!({"thinkingConfig": {"includeThoughts": true, "thinkingBudget": 8192}})
    );
    assert!(body("gemma-3-27b-it", High).get("generationConfig").is_none());
    // The list's word: a model that does not think gets no thinking configuration.
    let mut config = ChatConfig::new("gemini-3.8-flash");
    config.model_thinks = Some(false);
    let mut chat = Chat::new(config, Vec::new());
    chat.send_text("Hi").unwrap();
    let Some(Action::Send(request)) = chat.poll_action() else { panic!() };
    assert_eq!(request.body.generation_config, None);
}
