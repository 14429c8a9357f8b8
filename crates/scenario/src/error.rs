//! The one error type of scenario loading.

/// A scenario file, override or value was rejected.
///
/// `key` is the dotted path of the offending key (`links.access.a_to_b.rate`), or `"scenario"`
/// when the file as a whole is at fault (unreadable, or not valid TOML). `message` names the bad
/// value and the expected form, so that `"{key}: {message}"` reads as one sentence:
/// `links.access.rate: '25 Mbit' is not a rate; use e.g. '25Mbps'`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{key}: {message}")]
pub struct ScenarioError {
    pub key: String,
    pub message: String,
}

impl ScenarioError {
    /// Key used for errors about the file as a whole.
    pub const FILE_KEY: &'static str = "scenario";

    pub fn new(key: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError {
            key: key.into(),
            message: message.into(),
        }
    }
}

/// Joins a dotted key and a child key or array index (`"links.access"` + `"rate"`).
pub(crate) fn join_key(parent: &str, child: &str) -> String {
    if parent.is_empty() {
        child.to_owned()
    } else {
        format!("{parent}.{child}")
    }
}
