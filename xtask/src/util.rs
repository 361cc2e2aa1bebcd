//! Paths and a small subprocess helper.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub type Result<T = ()> = std::result::Result<T, String>;

/// The workspace root (the parent of xtask/).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives in the workspace").to_owned()
}

/// `dist/`, or `$GEMIPANEL_DIST` so parallel work trees do not overwrite each other's build.
pub fn dist_dir() -> PathBuf {
    std::env::var_os("GEMIPANEL_DIST").map(PathBuf::from).unwrap_or_else(|| root().join("dist"))
}

/// Cargo's target directory, honouring `$CARGO_TARGET_DIR`.
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root().join("target"))
}

pub fn tests_dir() -> PathBuf {
    root().join("tests")
}

pub fn node_bin(tool: &str) -> PathBuf {
    tests_dir().join("node_modules/.bin").join(tool)
}

/// Where Debian installs the real Chromium binary (the /usr/bin wrapper adds an empty
/// `--load-extension=` that breaks loading ours).
pub const CHROMIUM: &str = "/usr/lib/chromium/chromium";
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// A command echoed before it runs, failing with its name when it exits non-zero.
pub struct Cmd {
    inner: Command,
    shown: String,
}

impl Cmd {
    pub fn new(program: impl AsRef<std::ffi::OsStr>) -> Self {
        let inner = Command::new(&program);
        Self { shown: program.as_ref().to_string_lossy().into_owned(), inner }
    }

    pub fn arg(mut self, arg: impl AsRef<std::ffi::OsStr>) -> Self {
        self.shown.push(' ');
        self.shown.push_str(&arg.as_ref().to_string_lossy());
        self.inner.arg(arg);
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        for arg in args {
            self = self.arg(arg);
        }
        self
    }

    pub fn env(mut self, key: &str, value: impl AsRef<std::ffi::OsStr>) -> Self {
        self.inner.env(key, value);
        self
    }

    pub fn dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.inner.current_dir(dir);
        self
    }

    /// Runs with inherited output.
    pub fn run(mut self) -> Result {
        eprintln!("$ {}", self.shown);
        let status =
            self.inner.status().map_err(|e| format!("could not start `{}`: {e}", self.shown))?;
        if status.success() {
            Ok(())
        } else {
            Err(format!("`{}` failed ({status})", self.shown))
        }
    }

    /// Runs and returns stdout and stderr together while also echoing them, and whether it
    /// succeeded; for output that must be both seen and parsed.
    pub fn run_tee(mut self) -> Result<(bool, String)> {
        use std::io::{BufRead, BufReader};
        eprintln!("$ {}", self.shown);
        let mut child = self
            .inner
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("could not start `{}`: {e}", self.shown))?;
        let stderr = child.stderr.take().expect("piped");
        let err_thread = std::thread::spawn(move || {
            let mut captured = String::new();
            for line in BufReader::new(stderr).lines().map_while(std::result::Result::ok) {
                eprintln!("{line}");
                captured.push_str(&line);
                captured.push('\n');
            }
            captured
        });
        let mut captured = String::new();
        let stdout = child.stdout.take().expect("piped");
        for line in BufReader::new(stdout).lines().map_while(std::result::Result::ok) {
            println!("{line}");
            captured.push_str(&line);
            captured.push('\n');
        }
        captured.push_str(&err_thread.join().unwrap_or_default());
        let status = child.wait().map_err(|e| e.to_string())?;
        Ok((status.success(), captured))
    }

    /// Runs quietly and returns trimmed stdout, or None when it cannot start or fails.
    pub fn read(mut self) -> Option<String> {
        let output = self.inner.stderr(Stdio::null()).output().ok()?;
        output.status.success().then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
    }
}

pub fn cargo() -> Cmd {
    Cmd::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())).dir(root())
}

/// The version of a package as pinned in Cargo.lock.
pub fn locked_version(package: &str) -> Result<String> {
    let lock = std::fs::read_to_string(root().join("Cargo.lock"))
        .map_err(|e| format!("reading Cargo.lock: {e}"))?;
    let needle = format!("name = \"{package}\"\nversion = \"");
    let start =
        lock.find(&needle).ok_or_else(|| format!("{package} is not in Cargo.lock"))? + needle.len();
    let end = lock[start..].find('"').ok_or("Cargo.lock is malformed")? + start;
    Ok(lock[start..end].to_owned())
}

/// The extension id Chromium derives from the manifest's `key`: the first 32 hex digits of
/// the SHA-256 of the public key, written with the letters a–p.
pub fn extension_id() -> Result<String> {
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("manifest.json"))
            .map_err(|e| format!("reading manifest.json: {e}"))?,
    )
    .map_err(|e| format!("manifest.json: {e}"))?;
    let key = manifest["key"].as_str().ok_or("manifest.json has no `key`")?;
    use base64::Engine;
    let der = base64::engine::general_purpose::STANDARD
        .decode(key)
        .map_err(|e| format!("manifest `key` is not base64: {e}"))?;
    Ok(id_from_public_key(&der))
}

/// Lowercase hex of the SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

fn id_from_public_key(der: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(der)
        .iter()
        .take(16)
        .flat_map(|byte| [byte >> 4, byte & 0xf])
        .map(|nibble| (b'a' + nibble) as char)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pinned_extension_id_follows_from_the_manifest_key() {
        assert_eq!(extension_id().unwrap(), "kllodkfcinihfdkamgbfclpklodomgdp");
    }
}
