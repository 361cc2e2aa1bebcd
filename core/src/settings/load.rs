//! Reading the stored document: migrate, parse, validate. A document that fails is handed back
//! whole inside the error, so the worker can keep it under another key and tell the user,
//! instead of overwriting it with defaults.

use std::fmt;

use serde_json::Value;

use super::document::Settings;
use super::migrate::{migrate, MigrationError};
use super::validate::{validate, Invalid};
use crate::decode::DecodeError;
use crate::text::Text;

/// A document read from storage.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    pub settings: Settings,
    /// The version it was stored as, when older than the current one: the worker writes the
    /// upgraded document back (after keeping the old one aside if it wants).
    pub migrated_from: Option<u64>,
}

/// Why a stored document was not accepted. Holds the raw input; `Debug` and `Display` leave it
/// out because it contains the API key and header values.
#[derive(Clone, PartialEq)]
pub struct LoadError {
    // Boxed so that `Result<Loaded, LoadError>` stays small.
    raw: Box<Value>,
    reason: LoadFailure,
}

#[derive(Debug, Clone, PartialEq)]
pub enum LoadFailure {
    Migration(MigrationError),
    /// The JSON does not have the current schema's shape; says where.
    Shape(DecodeError),
    Invalid(Invalid),
}

impl LoadError {
    pub fn reason(&self) -> &LoadFailure {
        &self.reason
    }

    /// The document exactly as it was read, to store aside.
    pub fn raw(&self) -> &Value {
        &self.raw
    }

    pub fn into_raw(self) -> Value {
        *self.raw
    }

    /// True when a newer GemiPanel wrote the document (the user may have downgraded).
    pub fn is_newer_version(&self) -> bool {
        matches!(self.reason, LoadFailure::Migration(MigrationError::Newer(_)))
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Text::new("errSettingsUnreadable").with(self.reason.text()).fmt(f)
    }
}

impl LoadFailure {
    /// What is wrong, without the "could not be read" the person's UI already says.
    pub fn text(&self) -> Text {
        match self {
            LoadFailure::Migration(e) => e.text(),
            LoadFailure::Shape(e) => Text::new("errPlain").arg(e),
            LoadFailure::Invalid(i) => i.text(),
        }
    }
}

impl fmt::Display for LoadFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.text().fmt(f)
    }
}

impl fmt::Debug for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoadError").field("reason", &self.reason).finish_non_exhaustive()
    }
}

impl std::error::Error for LoadError {}

/// Reads a stored document of any known version. `None` in storage is the worker's business:
/// it starts from `Settings::default()`.
pub fn load(raw: &Value) -> Result<Loaded, LoadError> {
    let fail = |reason| LoadError { raw: Box::new(raw.clone()), reason };
    let (current, from) = migrate(raw.clone()).map_err(|e| fail(LoadFailure::Migration(e)))?;
    let settings: Settings =
        crate::decode::from_value("settings", current).map_err(|e| fail(LoadFailure::Shape(e)))?;
    validate(&settings).map_err(|e| fail(LoadFailure::Invalid(e)))?;
    Ok(Loaded {
        settings,
        migrated_from: (from < super::document::CURRENT_VERSION).then_some(from),
    })
}
