//! Each server runs in its own process group, so a signal reaches what it started too (`npx`
//! starts `node`, `uv` starts `python`).

#[cfg(unix)]
pub use unix::*;

#[cfg(unix)]
mod unix {
    use nix::sys::signal::{killpg, Signal};
    use nix::unistd::Pid;

    /// Asks the group to end.
    pub fn terminate(group: u32) {
        signal(group, Signal::SIGTERM);
    }

    /// Ends the group.
    pub fn kill(group: u32) {
        signal(group, Signal::SIGKILL);
    }

    fn signal(group: u32, signal: Signal) {
        // A group that is already gone is what we wanted.
        if let Ok(group) = i32::try_from(group) {
            let _ = killpg(Pid::from_raw(group), signal);
        }
    }

    /// Puts the child in a group of its own and, on Linux, has the kernel kill it if the
    /// bridge dies without cleaning up.
    pub fn configure(command: &mut tokio::process::Command) {
        command.process_group(0);
        #[cfg(target_os = "linux")]
        // SAFETY: the closure only makes one async-signal-safe system call (prctl).
        unsafe {
            command.pre_exec(|| {
                nix::sys::prctl::set_pdeathsig(Some(nix::sys::signal::Signal::SIGKILL))
                    .map_err(std::io::Error::from)
            });
        }
    }
}

/// Windows has no process groups to signal: the child itself is killed (`kill_on_drop`).
#[cfg(not(unix))]
mod other {
    pub fn terminate(_group: u32) {}
    pub fn kill(_group: u32) {}
    pub fn configure(_command: &mut tokio::process::Command) {}
}

#[cfg(not(unix))]
pub use other::*;
