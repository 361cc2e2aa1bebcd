//! `cargo xtask setup`: installs what the build and the tests need, skipping what is present.
//!
//! Targets a Debian machine where we are root. Elsewhere it installs nothing system-wide and
//! says exactly what to install by hand.

use std::path::Path;

use crate::util::{self, cargo, locked_version, Cmd, Result, CHROMEDRIVER, CHROMIUM};

pub fn run() -> Result {
    rustup_pieces()?;
    wasm_bindgen_cli()?;
    chromium()?;
    npm_packages()?;
    python_packages()?;
    eprintln!("setup: everything is installed");
    Ok(())
}

/// Whether everything is already there, so `test` and `run` can skip the slower checks.
pub fn is_complete() -> bool {
    RUSTUP_PIECES.into_iter().all(has_rustup_piece)
        && wasm_bindgen_version().as_deref() == locked_version("wasm-bindgen").ok().as_deref()
        && Path::new(CHROMIUM).exists()
        && Path::new(CHROMEDRIVER).exists()
        && Path::new(CJK_FONT).exists()
        && npm_packages_current()
        && python_packages_current()
}

/// The rustup pieces the build needs: the wasm target.
const RUSTUP_PIECES: [(&str, &str); 1] = [("target", "wasm32-unknown-unknown")];

fn has_rustup_piece((kind, name): (&str, &str)) -> bool {
    Cmd::new("rustup")
        .args([kind, "list", "--installed"])
        .read()
        .is_some_and(|out| out.lines().any(|l| l.trim() == name))
}

fn rustup_pieces() -> Result {
    for piece @ (kind, name) in RUSTUP_PIECES {
        if !has_rustup_piece(piece) {
            Cmd::new("rustup").args([kind, "add", name]).run()?;
        }
    }
    Ok(())
}

fn wasm_bindgen_version() -> Option<String> {
    let out = Cmd::new("wasm-bindgen").arg("--version").read()?;
    out.split_whitespace().nth(1).map(str::to_owned)
}

/// The CLI must match the `wasm-bindgen` crate exactly, or its output does not load.
fn wasm_bindgen_cli() -> Result {
    let wanted = locked_version("wasm-bindgen")?;
    if wasm_bindgen_version().as_deref() == Some(wanted.as_str()) {
        return Ok(());
    }
    // `--locked` fails: a version in the CLI's own lock file is no longer on crates.io.
    cargo().args(["install", "wasm-bindgen-cli", "--version", &wanted]).run()
}

/// Without a CJK font, Chromium draws the Japanese UI (and its screenshots) as empty boxes.
const CJK_FONT: &str = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc";

/// A display and keystrokes for the tests a headless browser cannot do: a keyboard shortcut
/// that grants `activeTab`, Chrome's permission prompts (tests/e2e/active_tab.test.mjs).
const XVFB: &str = "/usr/bin/Xvfb";
const XDOTOOL: &str = "/usr/bin/xdotool";
/// ImageMagick's `import` reads a screen pixel: Chrome's permission prompt greys the page.
const IMPORT: &str = "/usr/bin/import";

fn chromium() -> Result {
    if Path::new(CHROMIUM).exists()
        && Path::new(CHROMEDRIVER).exists()
        && Path::new(CJK_FONT).exists()
        && Path::new(XVFB).exists()
        && Path::new(XDOTOOL).exists()
        && Path::new(IMPORT).exists()
    {
        return Ok(());
    }
    if !can_apt() {
        return Err(format!(
            "Chromium and ChromeDriver are missing and this machine is not a Debian machine where \
             we are root. Install them by hand so that {CHROMIUM} and {CHROMEDRIVER} exist \
             and a CJK font, Xvfb and xdotool (Debian/Ubuntu: `sudo apt-get install chromium \
             chromium-driver fonts-noto-cjk xvfb xdotool imagemagick`), then run again."
        ));
    }
    Cmd::new("apt-get").args(["update", "-qq"]).run()?;
    Cmd::new("apt-get")
        .args([
            "install",
            "-y",
            "-qq",
            "--no-install-recommends",
            "chromium",
            "chromium-driver",
            "fonts-noto-cjk",
            "xvfb",
            "xdotool",
            "imagemagick",
        ])
        .env("DEBIAN_FRONTEND", "noninteractive")
        .run()
}

fn can_apt() -> bool {
    Path::new("/usr/bin/apt-get").exists()
        && Cmd::new("id").arg("-u").read().as_deref() == Some("0")
}

/// npm installs from tests/package-lock.json. A stamp with the lock file's hash makes the
/// check cheap and notices any change of the lock file.
fn npm_packages() -> Result {
    if npm_packages_current() {
        return Ok(());
    }
    if Cmd::new("npm").arg("--version").read().is_none() {
        if !can_apt() {
            return Err("Node.js and npm are missing: install Node.js 20 or newer with npm, then \
                        run again."
                .into());
        }
        Cmd::new("apt-get").args(["update", "-qq"]).run()?;
        Cmd::new("apt-get").args(["install", "-y", "-qq", "nodejs", "npm"]).run()?;
    }
    Cmd::new("npm")
        .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
        .dir(util::tests_dir())
        .run()?;
    std::fs::write(npm_stamp(), lock_hash()?).map_err(|e| format!("writing the npm stamp: {e}"))
}

/// PyPI packages (tests/requirements.txt) in a virtual environment, tests/.venv; a stamp with
/// the requirements' hash makes the check cheap, as for npm.
fn python_packages() -> Result {
    if python_packages_current() {
        return Ok(());
    }
    let venv = util::tests_dir().join(".venv");
    let made = Cmd::new("python3").args(["-m", "venv", "--clear"]).arg(&venv).run();
    if made.is_err() {
        if !can_apt() {
            return Err("Python 3 with its venv module is missing: install Python 3.10 or newer \
                        (Debian/Ubuntu: `sudo apt-get install python3 python3-venv`), then run \
                        again."
                .into());
        }
        Cmd::new("apt-get").args(["update", "-qq"]).run()?;
        Cmd::new("apt-get").args(["install", "-y", "-qq", "python3", "python3-venv"]).run()?;
        Cmd::new("python3").args(["-m", "venv", "--clear"]).arg(&venv).run()?;
    }
    Cmd::new(venv.join("bin/pip"))
        .args(["install", "--quiet", "--disable-pip-version-check", "-r"])
        .arg(util::tests_dir().join("requirements.txt"))
        .run()?;
    std::fs::write(python_stamp(), requirements_hash()?)
        .map_err(|e| format!("writing the Python stamp: {e}"))
}

fn python_stamp() -> std::path::PathBuf {
    util::tests_dir().join(".venv/.gemipanel-requirements-hash")
}

fn requirements_hash() -> Result<String> {
    let requirements = std::fs::read(util::tests_dir().join("requirements.txt"))
        .map_err(|e| format!("reading tests/requirements.txt: {e}"))?;
    Ok(util::sha256_hex(&requirements))
}

fn python_packages_current() -> bool {
    match (std::fs::read_to_string(python_stamp()), requirements_hash()) {
        (Ok(stamp), Ok(hash)) => stamp == hash,
        _ => false,
    }
}

fn npm_stamp() -> std::path::PathBuf {
    util::tests_dir().join("node_modules/.gemipanel-lock-hash")
}

fn lock_hash() -> Result<String> {
    let lock = std::fs::read(util::tests_dir().join("package-lock.json"))
        .map_err(|e| format!("reading tests/package-lock.json: {e}"))?;
    Ok(util::sha256_hex(&lock))
}

fn npm_packages_current() -> bool {
    match (std::fs::read_to_string(npm_stamp()), lock_hash()) {
        (Ok(stamp), Ok(hash)) => stamp == hash,
        _ => false,
    }
}
