//! `doctor`: checks what the browser will find, and says how to fix each problem.

use std::path::Path;

use gemipanel_core::native::HOST_NAME;

use crate::browsers::{places, Place};
use crate::install::{this_program, HostManifest};
use crate::{config, origin, Target};

pub fn run(target: &Target) -> Result<(), String> {
    let mut problems = 0;
    let extra_ids = match config::load() {
        Ok(settings) => settings.extension_ids,
        Err(e) => {
            println!("problem: {e}");
            problems += 1;
            Vec::new()
        }
    };
    let allowed = origin::allowed_ids(&extra_ids);
    let me = this_program()?;
    for place in places(target)? {
        let found = check(&place, &allowed, &me);
        if found.is_empty() {
            println!("ok: {} will start {}", place.label, me.display());
        }
        for problem in &found {
            println!("problem ({}): {problem}", place.label);
        }
        problems += found.len();
    }
    if problems == 0 {
        Ok(())
    } else {
        Err(format!("{problems} problem(s) found"))
    }
}

/// What is wrong with the manifest at `place`, each with its fix.
fn check(place: &Place, allowed: &[String], me: &Path) -> Vec<String> {
    let reinstall = format!("run `gemipanel-bridge install {}`", place.flag);
    let path = &place.manifest;
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return vec![format!("no host manifest at {}: {reinstall}", path.display())];
        }
        Err(e) => return vec![format!("cannot read {}: {e}", path.display())],
    };
    let manifest: HostManifest = match serde_json::from_str(&text) {
        Ok(manifest) => manifest,
        Err(e) => {
            return vec![format!("{} is not a host manifest ({e}): {reinstall}", path.display())]
        }
    };
    let mut problems = Vec::new();
    #[cfg(windows)]
    if let Some(browser) = place.registry {
        if let Err(e) = crate::windows_registry::check(browser, path) {
            problems.push(format!("{e}: {reinstall}"));
        }
    }
    if manifest.name != HOST_NAME {
        problems.push(format!(
            "the manifest names the host `{}`, not `{HOST_NAME}`: {reinstall}",
            manifest.name
        ));
    }
    if manifest.kind != "stdio" {
        problems
            .push(format!("the manifest's type is `{}`, not `stdio`: {reinstall}", manifest.kind));
    }
    problems.extend(check_program(&manifest.path, me, &reinstall));
    for id in allowed {
        let wanted = origin::origin_of(id);
        if !manifest.allowed_origins.contains(&wanted) {
            problems.push(format!(
                "the extension {id} is not allowed to start the bridge: {reinstall}"
            ));
        }
    }
    problems
}

fn check_program(program: &Path, me: &Path, reinstall: &str) -> Option<String> {
    if cfg!(unix) && !program.is_absolute() {
        return Some(format!(
            "the program {} is not an absolute path: {reinstall}",
            program.display()
        ));
    }
    let Ok(metadata) = std::fs::metadata(program) else {
        return Some(format!("the program {} does not exist: {reinstall}", program.display()));
    };
    if !is_executable(&metadata) {
        return Some(format!(
            "the program {} is not executable: `chmod +x` it, or {reinstall}",
            program.display()
        ));
    }
    let same = program.canonicalize().is_ok_and(|p| p == me);
    (!same).then(|| {
        format!(
            "the manifest starts {}, not this program ({}): {reinstall} to use this one",
            program.display(),
            me.display()
        )
    })
}

#[cfg(unix)]
fn is_executable(metadata: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    metadata.is_file() && metadata.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(metadata: &std::fs::Metadata) -> bool {
    metadata.is_file()
}
