//! What a lower module of the worker has to tell the modules above it.
//!
//! A module never calls up into one that names it (the tidy test `module_cycles` holds the
//! worker to that): it raises one of these (`worker::raise`), and the one dispatcher
//! (`dispatch::dispatch`, installed by `start`) hands it to the module that acts on it, at once
//! and in the raiser's turn, as the direct call did.

use gemipanel_core::native::link::Problem;
use gemipanel_core::settings::Settings;

pub enum WorkerEvent<'a> {
    /// The clients changed (made, replaced, dropped) or a server's status did: the change
    /// subscriptions and followed resources follow (`listen`, `resource_watch`).
    ClientsChanged,
    /// A local server's process ended on its own (`id` as the bridge names the server): its
    /// status shows the crash now (`registry`).
    ProcessEnded { id: &'a str, problem: &'a Problem },
    /// An edit of this computer's took the stored settings from `before` to `after`, while the
    /// settings' turn is held (`settings_sync` writes what changed).
    SettingsEdited { before: &'a Settings, after: &'a Settings },
}

/// The one function that hands events on.
pub type Dispatcher = fn(WorkerEvent<'_>);
