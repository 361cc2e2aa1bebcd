//! `cargo xtask run`: build, start the demo MCP server (`demo/`), then open Chromium with the
//! extension and its side panel, the demo already configured, so there is something to try
//! without a Gemini key: the side panel's tool browser runs the demo's tools and shows its app.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use crate::util::{self, cargo, Cmd, Result};
use crate::{dist, setup};

pub fn run() -> Result {
    if !setup::is_complete() {
        setup::run()?;
    }
    dist::run()?;
    // Local (stdio) servers run through the bridge, installed into the profile launch.mjs makes.
    cargo().args(["build", "-p", "gemipanel-bridge"]).run()?;
    let (mut demo, demo_url) = start_demo()?;
    let headless =
        std::env::var_os("DISPLAY").is_none() && std::env::var_os("WAYLAND_DISPLAY").is_none();
    let launched = Cmd::new("node")
        .arg(util::tests_dir().join("e2e/launch.mjs"))
        .env("GEMIPANEL_DIST", util::dist_dir())
        .env("GEMIPANEL_EXTENSION_ID", util::extension_id()?)
        .env("GEMIPANEL_HEADLESS", if headless { "1" } else { "0" })
        .env("GEMIPANEL_OUT", util::target_dir().join("run"))
        .env("GEMIPANEL_DEMO_URL", &demo_url)
        .env("GEMIPANEL_BRIDGE", util::target_dir().join("debug").join("gemipanel-bridge"))
        .run();
    let _ = demo.kill();
    let _ = demo.wait();
    launched
}

/// Bundles the demo's app, builds the demo and starts it on a free loopback port; its URL.
pub fn start_demo() -> Result<(Child, String)> {
    let app = util::target_dir().join("demo").join("colour-picker.html");
    Cmd::new("node").arg(util::root().join("demo/app/build.mjs")).arg(&app).run()?;
    cargo().args(["build", "-p", "gemipanel-demo"]).run()?;
    let binary = util::target_dir().join("debug").join("gemipanel-demo");
    let mut child = Command::new(&binary)
        .arg("--app")
        .arg(&app)
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("starting {}: {e}", binary.display()))?;
    let mut line = String::new();
    if let Some(stdout) = child.stdout.take() {
        let _ = BufReader::new(stdout).read_line(&mut line);
    }
    match line.trim().strip_prefix("gemipanel-demo: listening on ") {
        Some(url) => Ok((child, url.to_owned())),
        None => {
            let _ = child.kill();
            Err(format!("the demo server did not start (it said: {:?})", line.trim()))
        }
    }
}
