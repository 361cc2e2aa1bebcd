//! `cargo xtask run`: build, then open Chromium with the extension and its side panel page.

use crate::util::{self, Cmd, Result};
use crate::{dist, setup};

pub fn run() -> Result {
    if !setup::is_complete() {
        setup::run()?;
    }
    dist::run()?;
    let headless =
        std::env::var_os("DISPLAY").is_none() && std::env::var_os("WAYLAND_DISPLAY").is_none();
    Cmd::new("node")
        .arg(util::tests_dir().join("e2e/launch.mjs"))
        .env("GEMIPANEL_DIST", util::dist_dir())
        .env("GEMIPANEL_EXTENSION_ID", util::extension_id()?)
        .env("GEMIPANEL_HEADLESS", if headless { "1" } else { "0" })
        .env("GEMIPANEL_OUT", util::target_dir().join("run"))
        .run()
}
