//! Chrome on Windows finds a host through a registry key whose default value is the path of
//! its manifest. Not tested here: the project's machines and CI run Linux.

use std::path::Path;

use gemipanel_core::native::HOST_NAME;
use winreg::enums::HKEY_CURRENT_USER;
use winreg::RegKey;

use crate::browsers::Browser;

fn host_key(browser: Browser) -> String {
    format!(r"{}\{HOST_NAME}", browser.registry_key())
}

pub fn register(browser: Browser, manifest: &Path) -> Result<(), String> {
    let key = host_key(browser);
    let (entry, _) = RegKey::predef(HKEY_CURRENT_USER)
        .create_subkey(&key)
        .map_err(|e| format!(r"cannot create HKCU\{key}: {e}"))?;
    entry
        .set_value("", &manifest.to_string_lossy().into_owned())
        .map_err(|e| format!(r"cannot write HKCU\{key}: {e}"))
}

pub fn unregister(browser: Browser) -> Result<(), String> {
    let key = host_key(browser);
    match RegKey::predef(HKEY_CURRENT_USER).delete_subkey(&key) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!(r"cannot remove HKCU\{key}: {e}")),
    }
}

/// Whether the key points at `manifest`.
pub fn check(browser: Browser, manifest: &Path) -> Result<(), String> {
    let key = host_key(browser);
    let value: String = RegKey::predef(HKEY_CURRENT_USER)
        .open_subkey(&key)
        .and_then(|entry| entry.get_value(""))
        .map_err(|_| format!(r"the registry key HKCU\{key} is missing"))?;
    if Path::new(&value) == manifest {
        Ok(())
    } else {
        Err(format!(r"HKCU\{key} points at {value}, not {}", manifest.display()))
    }
}

/// Whether the browser has its settings key, i.e. seems installed for this person.
pub fn browser_key_exists(browser: Browser) -> bool {
    RegKey::predef(HKEY_CURRENT_USER).open_subkey(browser.settings_key()).is_ok()
}
