//! The popup's pieces: each takes data and callbacks, and keeps only UI-only state.

pub mod api_key_field;
pub mod delete_everything;
pub mod field;
pub mod first_run_card;
pub mod gemini_card;
pub mod import_export;
pub mod import_form;
pub mod import_preview;
pub mod model_field;
pub mod run_line;
pub mod server_form;
pub mod server_list;
pub mod server_log;
pub mod server_row;
pub mod settings_problem;
pub mod sync_card;
pub mod test_result;
pub mod vault_card;
