//! `install` and `uninstall`: the host manifest that tells the browser how to start the bridge
//! and which extensions may.

use std::path::{Path, PathBuf};

use gemipanel_core::native::HOST_NAME;
use serde::{Deserialize, Serialize};

use crate::browsers::{places, Place};
use crate::{config, origin, Target};

/// The native-messaging host manifest, as Chrome reads it.
#[derive(Debug, Serialize, Deserialize)]
pub struct HostManifest {
    pub name: String,
    pub description: String,
    /// The program; absolute on Linux and macOS.
    pub path: PathBuf,
    #[serde(rename = "type")]
    pub kind: String,
    pub allowed_origins: Vec<String>,
}

pub const DESCRIPTION: &str =
    "GemiPanel bridge: runs local MCP servers for the GemiPanel extension";

/// This program, where the browser must find it.
pub fn this_program() -> Result<PathBuf, String> {
    let exe =
        std::env::current_exe().map_err(|e| format!("cannot tell where this program is: {e}"))?;
    Ok(exe.canonicalize().unwrap_or(exe))
}

pub fn install(target: &Target, extension_id: Option<&str>) -> Result<(), String> {
    let mut settings = config::load()?;
    if let Some(id) = extension_id {
        if !origin::is_extension_id(id) {
            return Err(format!(
                "`{id}` is not an extension id: it has 32 letters from a to p (chrome://extensions \
                 shows it under the extension's name)"
            ));
        }
        if !settings.extension_ids.iter().any(|known| known == id) {
            settings.extension_ids.push(id.to_owned());
            let path = config::save(&settings)?;
            println!("allowed the extension {id} (in {})", path.display());
        }
    }
    let manifest = HostManifest {
        name: HOST_NAME.to_owned(),
        description: DESCRIPTION.to_owned(),
        path: this_program()?,
        kind: "stdio".to_owned(),
        allowed_origins: origin::allowed_ids(&settings.extension_ids)
            .iter()
            .map(|id| origin::origin_of(id))
            .collect(),
    };
    let text = serde_json::to_string_pretty(&manifest).map_err(|e| e.to_string())? + "\n";
    for place in places(target)? {
        write_manifest(&place, &text)?;
        println!("installed for {}: {}", place.label, place.manifest.display());
    }
    println!("Reload the extension (or restart the browser) if it was already running.");
    Ok(())
}

fn write_manifest(place: &Place, text: &str) -> Result<(), String> {
    if let Some(dir) = place.manifest.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    std::fs::write(&place.manifest, text)
        .map_err(|e| format!("cannot write {}: {e}", place.manifest.display()))?;
    #[cfg(windows)]
    if let Some(browser) = place.registry {
        crate::windows_registry::register(browser, &place.manifest)?;
    }
    Ok(())
}

pub fn uninstall(target: &Target) -> Result<(), String> {
    let mut removed = 0;
    for place in places(target)? {
        #[cfg(windows)]
        if let Some(browser) = place.registry {
            crate::windows_registry::unregister(browser)?;
        }
        if remove_if_present(&place.manifest)? {
            println!("removed for {}: {}", place.label, place.manifest.display());
            removed += 1;
        }
    }
    if removed == 0 {
        println!("nothing to remove: no host manifest was installed there");
    }
    Ok(())
}

fn remove_if_present(path: &Path) -> Result<bool, String> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(format!("cannot remove {}: {e}", path.display())),
    }
}
