//! The bridge's own settings file: the extension ids allowed besides the pinned one
//! (`install --extension-id`). It lives in the person's configuration folder, because the
//! browser tells the host nothing but the caller's origin.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Config {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extension_ids: Vec<String>,
    /// Fields of a newer bridge survive an older one's `install`.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `$XDG_CONFIG_HOME/gemipanel-bridge/config.json` on Linux, `~/Library/Application
/// Support/gemipanel-bridge/config.json` on macOS, `%APPDATA%\gemipanel-bridge\config.json`.
pub fn path() -> Result<PathBuf, String> {
    dirs::config_dir()
        .map(|dir| dir.join("gemipanel-bridge").join("config.json"))
        .ok_or_else(|| "the configuration folder is unknown (is $HOME set?)".into())
}

/// The settings; a missing file is the defaults.
pub fn load() -> Result<Config, String> {
    let path = path()?;
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
            format!("{} is damaged ({e}); delete it and install again", path.display())
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

pub fn save(config: &Config) -> Result<PathBuf, String> {
    let path = path()?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let text = serde_json::to_string_pretty(config).map_err(|e| e.to_string())?;
    std::fs::write(&path, text + "\n")
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}
