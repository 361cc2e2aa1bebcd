//! `gemipanel-bridge`: started by the browser as a native-messaging host, it runs the local
//! stdio MCP servers the extension asks for (see [`host`]); started by a person, it installs,
//! removes or checks its host manifest (see [`install`], [`doctor`]).
//!
//! Nothing but native-messaging frames may ever go to stdout while it is a host: logs go to
//! stderr, which Chrome keeps in its own log.

mod browsers;
mod config;
mod doctor;
mod frames;
mod host;
mod install;
mod origin;
mod process_group;
mod server;
#[cfg(windows)]
mod windows_registry;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use crate::browsers::Browser;

#[derive(Parser)]
#[command(
    name = "gemipanel-bridge",
    version,
    about = "Runs local MCP servers (stdio) for the GemiPanel extension.",
    long_about = "Runs local MCP servers (stdio) for the GemiPanel extension.\n\n\
        Install it once with `gemipanel-bridge install`; the browser then starts it when the \
        extension needs a local server.",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// The calling extension's origin (`chrome-extension://<id>/`), given by the browser.
    origin: Option<String>,
    /// Given by Chrome on Windows; not used.
    #[arg(long, hide = true)]
    parent_window: Option<String>,
}

#[derive(Subcommand)]
enum Command {
    /// Writes the host manifest so the browser can start the bridge.
    Install {
        #[command(flatten)]
        target: Target,
        /// Also allow this extension id (an unpacked copy with another id, say).
        #[arg(long, value_name = "ID")]
        extension_id: Option<String>,
    },
    /// Removes the host manifest.
    Uninstall {
        #[command(flatten)]
        target: Target,
    },
    /// Says what keeps the browser from starting the bridge, and how to fix it.
    Doctor {
        #[command(flatten)]
        target: Target,
    },
}

/// Which browser's manifest: every installed browser when neither is given.
#[derive(Args, Clone)]
pub struct Target {
    #[arg(long, value_enum)]
    browser: Option<Browser>,
    /// A browser profile started with `--user-data-dir=DIR` (its manifests are in
    /// `DIR/NativeMessagingHosts/`).
    #[arg(long, value_name = "DIR", conflicts_with = "browser")]
    user_data_dir: Option<PathBuf>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match (cli.command, cli.origin) {
        (Some(Command::Install { target, extension_id }), _) => {
            install::install(&target, extension_id.as_deref())
        }
        (Some(Command::Uninstall { target }), _) => install::uninstall(&target),
        (Some(Command::Doctor { target }), _) => doctor::run(&target),
        (None, Some(origin)) => host::run(&origin),
        (None, None) => {
            Err("this program is started by the browser. To set it up, run `gemipanel-bridge \
             install`; `gemipanel-bridge --help` lists everything it does."
                .into())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("gemipanel-bridge: {message}");
            ExitCode::FAILURE
        }
    }
}
