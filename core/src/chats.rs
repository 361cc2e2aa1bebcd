//! Saved chats: their stored form (`saved`, with `doc` for a reply's markdown), and what a
//! person does with them beyond the panel: files to take them out and bring them back
//! (`archive`, versioned JSON; `markdown`, readable) and search over them (`search`).

pub mod activity;
pub mod archive;
pub mod doc;
pub mod markdown;
pub mod saved;
pub mod search;
