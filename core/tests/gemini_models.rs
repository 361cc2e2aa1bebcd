//! The model rule over the recorded model list: which model is the automatic default, how the
//! pickers group and label models, what a saved model that is no longer offered is replaced with,
//! and what each family takes.

use std::path::PathBuf;

use gemipanel_core::gemini::family::{rows, Level, Thinking};
use gemipanel_core::gemini::routing::{served_by, ROUTES};
use gemipanel_core::gemini::{
    automatic_model, availability, chat_models, default_model, token_count_label, Availability,
    Family, KnownModels, ListModelsResponse, Model, ModelInfo, Stage, FALLBACK_MODEL,
};
use serde_json::Value;

fn data(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/gemini").join(file)
}

fn recorded() -> Vec<Model> {
    let list: ListModelsResponse =
        serde_json::from_str(&std::fs::read_to_string(data("models.json")).unwrap()).unwrap();
    list.models
}

fn infos(models: &[Model]) -> Vec<ModelInfo> {
    chat_models(models).map(ModelInfo::from).collect()
}

fn info(id: &str, stage: Stage) -> ModelInfo {
    ModelInfo {
        id: id.into(),
        display_name: id.into(),
        stage,
        input_token_limit: None,
        thinking: None,
    }
}

#[test]
fn the_automatic_default_is_the_newest_stable_flash_of_the_recorded_list() {
    let models = infos(&recorded());
    assert_eq!(default_model(&models).map(|m| m.id.as_str()), Some("gemini-3.8-flash"));
    // The fallback used before a list arrives is what the rule picks from the recorded list.
    assert_eq!(FALLBACK_MODEL, "gemini-3.8-flash");
    assert_eq!(automatic_model(Some(&models)), FALLBACK_MODEL);
    assert_eq!(automatic_model(None), FALLBACK_MODEL);
}

#[test]
fn the_rule_passes_over_previews_variants_aliases_routed_and_pinned_ids() {
    let list = vec![
        info("gemini-9-flash-preview", Stage::Preview),
        info("gemini-flash-latest", Stage::Preview),
        info("gemini-4.2-flash-lite", Stage::Stable),
        info("gemini-4.2-flash-tts", Stage::Stable),
        info("gemini-4.2-flash-001", Stage::Stable),
        info("gemini-3.7-flash", Stage::Stable), // routed to 3.8
        info("gemini-4-argon", Stage::Stable),
        info("gemini-3.6-flash", Stage::Stable),
        info("gemini-4.1-flash", Stage::Stable),
        info("gemini-4-flash", Stage::Stable),
    ];
    assert_eq!(default_model(&list).map(|m| m.id.as_str()), Some("gemini-4.1-flash"));
    // A newer stable Flash arriving replaces it at once.
    let mut newer = list.clone();
    newer.push(info("gemini-5-flash", Stage::Stable));
    assert_eq!(automatic_model(Some(&newer)), "gemini-5-flash");
    // No Flash at all: the fallback stands.
    assert_eq!(default_model(&[info("gemini-4-argon", Stage::Stable)]), None);
    assert_eq!(automatic_model(Some(&[info("gemma-3-27b-it", Stage::Stable)])), FALLBACK_MODEL);
}

#[test]
fn stages_come_from_the_id_version_and_display_name_as_the_api_gives_them() {
    let stage = |name: &str, version: &str, display: &str| {
        Stage::of(&Model {
            name: format!("models/{name}"),
            version: version.into(),
            display_name: display.into(),
            ..Model::default()
        })
    };
    assert_eq!(stage("gemini-3.8-flash", "001", "Gemini 3.8 Flash"), Stage::Stable);
    assert_eq!(stage("gemini-2.0-flash-001", "001", "Gemini 2.0 Flash 001"), Stage::Stable);
    assert_eq!(stage("gemini-3-flash-preview", "3-flash-preview-12-2025", ""), Stage::Preview);
    assert_eq!(stage("gemini-x", "001", "Gemini X Experimental"), Stage::Preview);
    assert_eq!(stage("gemini-y", "y-preview", "Gemini Y"), Stage::Preview);
    assert_eq!(stage("gemini-2.0-flash-exp", "2.0", ""), Stage::Preview);
    assert_eq!(stage("gemini-exp-1206", "", ""), Stage::Preview);
    assert_eq!(stage("gemini-2.5-flash-image-09-2025", "", ""), Stage::Preview);
    assert_eq!(stage("gemini-flash-latest", "latest", "Gemini Flash Latest"), Stage::Preview);
}

#[test]
fn the_picker_offers_chat_models_grouped_and_with_their_context_window() {
    let models = infos(&recorded());
    let stable: Vec<&str> =
        models.iter().filter(|m| m.stage == Stage::Stable).map(|m| m.id.as_str()).collect();
    let preview: Vec<&str> =
        models.iter().filter(|m| m.stage == Stage::Preview).map(|m| m.id.as_str()).collect();
    // Speech, image, live and embedding models take other requests than a chat's.
    assert_eq!(
        stable,
        [
            "gemini-4-argon",
            "gemini-3.8-flash",
            "gemini-3.6-flash",
            "gemini-3.5-flash-lite",
            "gemini-3.1-flash-lite",
            "gemma-3-27b-it"
        ]
    );
    assert_eq!(preview, ["gemini-3-flash-preview", "gemini-flash-latest"]);
    let flash = models.iter().find(|m| m.id == "gemini-3.8-flash").unwrap();
    assert_eq!(flash.display_name, "Gemini 3.8 Flash");
    assert_eq!(flash.input_token_limit.map(token_count_label).as_deref(), Some("1M"));
    assert_eq!(token_count_label(131_072), "128K");
    assert_eq!(token_count_label(1_572_864), "1.5M");
    assert_eq!(token_count_label(500), "500");
    let gemma = models.iter().find(|m| m.id == "gemma-3-27b-it").unwrap();
    assert!(!gemma.supports_function_calling());
    assert!(flash.supports_function_calling());
}

#[test]
fn the_last_list_is_kept_for_the_address_and_the_key_it_came_from() {
    let known = KnownModels::new("http://127.0.0.1:9", "AIza-one", 5, infos(&recorded()));
    let stored = serde_json::to_string(&known).unwrap();
    assert!(!stored.contains("AIza-one"), "the key itself is not kept: {stored}");
    let back: KnownModels = serde_json::from_str(&stored).unwrap();
    assert_eq!(back, known);
    let google = "https://generativelanguage.googleapis.com";
    assert!(back.clone().for_source(google, Some("AIza-one")).is_none(), "another address");
    assert!(
        back.clone().for_source("http://127.0.0.1:9", Some("AIza-two")).is_none(),
        "another key"
    );
    assert!(back.clone().for_source("http://127.0.0.1:9", None).is_none(), "no key");
    assert_eq!(back.for_source("http://127.0.0.1:9", Some("AIza-one")).map(|m| m.len()), Some(8));
    // Kept before lists had a key: good for no key; the next listing replaces it.
    let older: KnownModels = serde_json::from_value(serde_json::json!({
        "api_base": "http://127.0.0.1:9", "listed_ms": 5, "models": []
    }))
    .unwrap();
    assert!(older.for_source("http://127.0.0.1:9", Some("AIza-one")).is_none());
}

#[test]
fn a_saved_model_no_longer_offered_is_shown_with_its_replacement() {
    let models = infos(&recorded());
    let list = Some(models.as_slice());
    assert_eq!(availability("gemini-3.6-flash", list), Availability::Offered);
    assert_eq!(availability("models/gemini-3.8-flash", list), Availability::Offered);
    // Routed ids, listed or not, online or not: the model that serves them.
    let routed = Availability::Routed { to: "gemini-3.8-flash".into() };
    assert_eq!(availability("gemini-3.7-flash", list), routed);
    assert_eq!(availability("gemini-3.7-flash", None), routed);
    assert_eq!(
        availability("gemini-3.5-flash", list),
        Availability::Routed { to: "gemini-3.6-flash".into() }
    );
    // Shut down with a named replacement the list offers.
    assert_eq!(
        availability("gemini-3.1-flash-lite-preview", list),
        Availability::Gone { replacement: Some("gemini-3.1-flash-lite".into()) }
    );
    // Shut down, or closed to new users, or simply gone: the automatic default.
    let default = Availability::Gone { replacement: Some("gemini-3.8-flash".into()) };
    assert_eq!(availability("gemini-2.5-flash", list), default);
    assert_eq!(availability("gemini-2.0-flash", list), default);
    assert_eq!(availability("gemini-unheard-of", list), default);
    // A named replacement the list no longer has is not offered.
    assert_eq!(availability("gemini-3-pro-preview", list), default);
    // Offline without a list: what is known to be retired is still said.
    assert_eq!(availability("gemini-2.5-flash", None), default);
    assert_eq!(availability("gemini-unheard-of", None), Availability::Offered);
    // Nothing to offer.
    assert_eq!(
        availability("gemini-old", Some(&[info("gemini-4-argon", Stage::Stable)])),
        Availability::Gone { replacement: None }
    );
}

#[test]
fn each_family_takes_what_its_page_documents() {
    let levels = |id: &str| match Family::of(id).thinking {
        Thinking::Levels { levels, default } => (levels.to_vec(), default),
        other => panic!("{id}: {other:?}"),
    };
    use Level::*;
    assert_eq!(levels("gemini-4-argon"), (vec![Low, Medium, High], Medium));
    assert_eq!(levels("gemini-3.8-flash"), (vec![Low, Medium, High], Medium));
    assert_eq!(levels("gemini-3.7-flash"), (vec![Low, Medium, High], Medium));
    assert_eq!(levels("gemini-3.6-flash"), (vec![Low, Medium, High], Medium));
    // 3.5 Flash is routed to 3.6 Flash and runs under its rules.
    assert_eq!(levels("gemini-3.5-flash"), (vec![Low, Medium, High], Medium));
    assert_eq!(levels("gemini-3.5-flash-lite"), (vec![Minimal, Low, Medium, High], Minimal));
    assert_eq!(levels("gemini-3.1-flash-lite"), (vec![Minimal, Low, Medium, High], Minimal));
    assert_eq!(levels("gemini-3-flash-preview"), (vec![Minimal, Low, Medium, High], High));
    assert_eq!(levels("gemini-3.1-pro-preview"), (vec![Low, Medium, High], High));
    assert_eq!(
        Family::of("gemini-2.5-flash").thinking,
        Thinking::Budget { min: 1, max: 24_576, off: true }
    );
    assert_eq!(
        Family::of("gemini-2.5-pro").thinking,
        Thinking::Budget { min: 128, max: 32_768, off: false }
    );
    assert_eq!(
        Family::of("gemini-2.5-flash-lite").thinking,
        Thinking::Budget { min: 512, max: 24_576, off: true }
    );
    assert_eq!(Family::of("gemini-2.0-flash").thinking, Thinking::None);
    // An id without a readable version, or a list that says the model does not think.
    assert_eq!(Family::of("gemini-flash-latest").thinking, Thinking::None);
    assert_eq!(Family::of_listed("gemini-3.8-flash", Some(false)).thinking, Thinking::None);

    for (id, sampling) in [
        ("gemini-4-argon", false),
        ("gemini-3.8-flash", false),
        ("gemini-3.6-flash", false),
        ("gemini-3.5-flash-lite", false),
        ("gemini-3.1-flash-lite", true),
        ("gemini-3-flash-preview", true),
        ("gemini-2.5-flash", true),
    ] {
        assert_eq!(Family::of(id).sampling, sampling, "{id}");
    }
    for (id, media_inside, signatures) in [
        ("gemini-4-argon", true, true),
        ("gemini-3.8-flash", true, true),
        ("gemini-3-flash-preview", true, true),
        ("gemini-2.5-flash", false, false),
        ("gemma-3-27b-it", false, false),
    ] {
        let family = Family::of(id);
        assert_eq!(
            (family.media_in_function_responses, family.signatures_required),
            (media_inside, signatures),
            "{id}"
        );
    }
    assert!(!Family::of("gemini-3.8-flash-tts").chat);
    assert!(!Family::of("gemini-3.1-flash-image").chat);
    assert!(!Family::of("gemma-3-27b-it").function_calling);
    for (name, source) in rows() {
        assert!(source.contains("https://"), "{name} cites no page");
    }
}

#[test]
fn the_routing_table_is_the_one_the_fake_api_serves() {
    let actual = serde_json::to_value(ROUTES).unwrap();
    let path = data("routes.json");
    if std::env::var_os("UPDATE_FIXTURES").is_some() {
        std::fs::write(&path, serde_json::to_string_pretty(&actual).unwrap() + "\n").unwrap();
    }
    let expected: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(actual, expected, "run with UPDATE_FIXTURES=1 to regenerate after a change");
    assert_eq!(served_by("models/gemini-3.7-flash"), "gemini-3.8-flash");
    assert_eq!(served_by("gemini-3.8-flash"), "gemini-3.8-flash");
}
