pub mod empty_chat;
pub mod status_bar;
