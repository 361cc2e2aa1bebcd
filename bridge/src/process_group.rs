//! Each server runs in its own process group, so a signal reaches what it started too (`npx`
//! starts `node`, `uv` starts `python`).
//!
//! A group is named by its leader's pid, and a pid is free for another process once its
//! process has been reaped: a group signalled by id after its leader was reaped may be someone
//! else's (a new server of ours, whose group is its own pid). So a group is signalled only
//! while its leader is unreaped, running or a zombie that still holds the id:
//! [`wait_unreaped`] waits for the leader's end without reaping it (`waitid` with `WNOWAIT`),
//! and `server::Leader` reaps only after its last signal.

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
        #[cfg(test)]
        super::audit::record(group, signal as i32);
        // A group that is already gone is what we wanted.
        if let Ok(group) = i32::try_from(group) {
            let _ = killpg(Pid::from_raw(group), signal);
        }
    }

    /// Blocks until child `pid` has ended, leaving it unreaped (a zombie that keeps its pid,
    /// and so its group's id, from being given to another process). Returns at once when it
    /// is not (or no longer) a child of ours.
    pub fn wait_unreaped(pid: u32) {
        let pid = nix::libc::id_t::from(pid);
        loop {
            // SAFETY: `info` is a plain C struct the call fills; it is valid zeroed and lives
            // across the call.
            let mut info: nix::libc::siginfo_t = unsafe { std::mem::zeroed() };
            let flags = nix::libc::WEXITED | nix::libc::WNOWAIT;
            // SAFETY: waitid only writes into `info`; WNOWAIT leaves the child waitable.
            let result = unsafe { nix::libc::waitid(nix::libc::P_PID, pid, &mut info, flags) };
            if result == 0 || nix::errno::Errno::last() != nix::errno::Errno::EINTR {
                return;
            }
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

/// What the tests check: every signal sent to a group, with whether its leader had been reaped
/// by then (which must never be).
#[cfg(all(test, unix))]
pub mod audit {
    use std::sync::Mutex;

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Sent {
        pub group: u32,
        pub signal: i32,
        pub leader_reaped: bool,
    }

    static SENT: Mutex<Vec<Sent>> = Mutex::new(Vec::new());

    pub(super) fn record(group: u32, signal: i32) {
        let sent = Sent { group, signal, leader_reaped: reaped(group) };
        if let Ok(mut all) = SENT.lock() {
            all.push(sent);
        }
    }

    /// The signals sent to `group` so far.
    pub fn sent_to(group: u32) -> Vec<Sent> {
        SENT.lock().map(|all| all.iter().filter(|s| s.group == group).copied().collect()).unwrap()
    }

    /// Whether `pid` is no longer a child to wait for: reaped (or never ours).
    fn reaped(pid: u32) -> bool {
        let pid = nix::libc::id_t::from(pid);
        // SAFETY: as in `wait_unreaped`; WNOHANG returns at once, WNOWAIT reaps nothing.
        let mut info: nix::libc::siginfo_t = unsafe { std::mem::zeroed() };
        let flags = nix::libc::WEXITED | nix::libc::WNOWAIT | nix::libc::WNOHANG;
        let result = unsafe { nix::libc::waitid(nix::libc::P_PID, pid, &mut info, flags) };
        result != 0 && nix::errno::Errno::last() == nix::errno::Errno::ECHILD
    }
}
