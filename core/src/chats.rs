//! Saved chats: their stored form (`saved`, with `doc` for a reply's markdown).

pub mod doc;
pub mod saved;
