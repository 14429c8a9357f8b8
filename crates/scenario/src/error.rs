//! The one error type of scenario loading.

/// A scenario file, override or value was rejected.
///
/// `key` is the dotted path of the offending key (`links.access.a_to_b.rate`), or `"scenario"`
/// when the file as a whole is at fault (unreadable, or not valid TOML). `message` names the bad
/// value and the expected form, so that `"{key}: {message}"` reads as one sentence:
/// `links.access.rate: '25 Mbit' is not a rate; use e.g. '25Mbps'`.
///
/// Both are bounded when the error is made ([`ScenarioError::new`]): a message echoes what the
/// user wrote, and a hostile file (a 10 MB value, `/proc/self/environ` given as a trace) must
/// still give one short line. See [`bound_message`] and [`bound_key`].
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
            key: bound_key(&key.into()),
            message: bound_message(&message.into()),
        }
    }
}

/// Something a scenario allows but that is probably not meant (a UE driving out of every cell's
/// coverage): reported, and the run goes ahead. Bounded as [`ScenarioError`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{key}: {message}")]
pub struct ScenarioWarning {
    pub key: String,
    pub message: String,
}

impl ScenarioWarning {
    pub fn new(key: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioWarning {
            key: bound_key(&key.into()),
            message: bound_message(&message.into()),
        }
    }
}

/// At most this many characters of one echoed value (a quoted value, or any run of characters
/// without a space) are kept in a message; the rest is replaced by `…`.
pub const MAX_ECHO_CHARS: usize = 80;
/// At most this many characters of a message in all (a list of 10,000 names, say).
pub const MAX_MESSAGE_CHARS: usize = 400;
/// At most this many characters of a key (a dotted path 5,000 levels deep, a 10 MB name).
pub const MAX_KEY_CHARS: usize = 160;

/// Control characters would break the one line of an error: shown escaped (`\n`, `\u{0}`).
fn push_visible(out: &mut String, c: char) {
    if c.is_control() {
        out.extend(c.escape_default());
    } else {
        out.push(c);
    }
}

/// `text` with control characters escaped, cut to `max` characters as shown (the cut marked
/// `…`).
fn clip(text: &str, max: usize) -> String {
    let mut visible = String::new();
    for c in text.chars() {
        push_visible(&mut visible, c);
        // Enough to know whether a cut is needed; the rest is never shown.
        if visible.len() > 4 * max + 16 {
            break;
        }
    }
    if visible.chars().count() <= max {
        return visible;
    }
    let mut out: String = visible.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// A key of at most [`MAX_KEY_CHARS`] characters: a longer one keeps its start and its end
/// (the section and the innermost key), `…` in between.
pub fn bound_key(key: &str) -> String {
    let count = key.chars().count();
    if count <= MAX_KEY_CHARS && !key.chars().any(char::is_control) {
        return key.to_owned();
    }
    if count <= MAX_KEY_CHARS {
        return clip(key, MAX_KEY_CHARS);
    }
    let head_len = MAX_KEY_CHARS / 2;
    let tail_len = MAX_KEY_CHARS - head_len - 1;
    let head: String = key.chars().take(head_len).collect();
    let tail: String = key.chars().skip(count - tail_len).collect();
    clip(&format!("{head}…{tail}"), MAX_KEY_CHARS + 1)
}

/// A message whose echoed values are at most [`MAX_ECHO_CHARS`] characters each and which is
/// at most [`MAX_MESSAGE_CHARS`] characters in all. An echoed value is a quoted one (`'…'`
/// opened after a space or a bracket, so that the apostrophe of "UE's" opens nothing) or any
/// run of characters without a space. The work is linear in the message's length.
#[allow(clippy::unnecessary_map_or)] // `Option::is_none_or` is newer than rust-version 1.80
pub fn bound_message(message: &str) -> String {
    let chars: Vec<char> = message.chars().collect();
    // closes[j]: the first index ≥ j of a quote that can close a value (followed by the end, a
    // space or punctuation), found in one pass from the end so that the work stays linear.
    let mut closes = vec![usize::MAX; chars.len() + 1];
    for j in (0..chars.len()).rev() {
        let closing = chars[j] == '\''
            && chars
                .get(j + 1)
                .map_or(true, |c| c.is_whitespace() || ",;:.)]}".contains(*c));
        closes[j] = if closing { j } else { closes[j + 1] };
    }
    let mut out = String::new();
    let mut out_chars = 0;
    let mut i = 0;
    while i < chars.len() && out_chars <= MAX_MESSAGE_CHARS {
        let opens_quote =
            chars[i] == '\'' && (i == 0 || matches!(chars[i - 1], ' ' | '(' | '[' | '{' | '='));
        let end = Some(closes[i + 1]).filter(|&j| opens_quote && j < chars.len());
        let (start, stop) = match end {
            Some(j) => (i + 1, j),
            None => {
                let stop = (i..chars.len())
                    .find(|&j| chars[j] == ' ')
                    .unwrap_or(chars.len());
                (i, stop.max(i + 1))
            }
        };
        let value: String = chars[start..stop].iter().collect();
        let piece = match end {
            Some(_) => format!("'{}'", clip(&value, MAX_ECHO_CHARS)),
            None => clip(&value, MAX_ECHO_CHARS),
        };
        out_chars += piece.chars().count();
        out.push_str(&piece);
        i = if end.is_some() { stop + 1 } else { stop };
        while i < chars.len() && chars[i] == ' ' {
            out.push(' ');
            out_chars += 1;
            i += 1;
        }
    }
    if out_chars > MAX_MESSAGE_CHARS || i < chars.len() {
        let mut cut: String = out.chars().take(MAX_MESSAGE_CHARS - 1).collect();
        cut.push('…');
        return cut;
    }
    out
}

/// Joins a dotted key and a child key or array index (`"links.access"` + `"rate"`).
pub(crate) fn join_key(parent: &str, child: &str) -> String {
    if parent.is_empty() {
        child.to_owned()
    } else {
        format!("{parent}.{child}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_messages_are_unchanged() {
        for m in [
            "'25 Mbit' is not a rate; use e.g. '25Mbps'",
            "the UE's serving cell is 'a' (cells: a, b)",
            "expected a table like { kind = \"small\", … }, found 'small'",
            "",
        ] {
            assert_eq!(bound_message(m), m);
        }
        assert_eq!(bound_key("links.access.rate"), "links.access.rate");
    }

    #[test]
    fn a_long_quoted_value_is_cut_to_80_characters() {
        let value = "x y ".repeat(25_000);
        let m = bound_message(&format!("'{value}' is not a rate; use e.g. '25Mbps'"));
        let quoted = m.split('\'').nth(1).expect("quoted value kept");
        assert_eq!(quoted.chars().count(), MAX_ECHO_CHARS);
        assert!(quoted.ends_with('…'));
        assert!(m.ends_with("' is not a rate; use e.g. '25Mbps'"), "{m}");
    }

    #[test]
    fn long_words_control_characters_and_long_messages_are_bounded() {
        let m = bound_message(&format!("found {} here", "a".repeat(10_000_000)));
        assert!(m.chars().count() < 100, "{m}");
        assert!(m.ends_with("… here"));
        let m = bound_message("bad 'a\nb\u{0}c' value");
        assert_eq!(m, "bad 'a\\nb\\u{0}c' value");
        let m = bound_message(&format!("bad '{}' value", "\u{0}".repeat(1000)));
        assert_eq!(
            m.split('\'').nth(1).map(|v| v.chars().count()),
            Some(MAX_ECHO_CHARS)
        );
        let names = vec!["name"; 10_000].join(", ");
        let m = bound_message(&format!("node 'x' does not exist (nodes: {names})"));
        assert_eq!(m.chars().count(), MAX_MESSAGE_CHARS);
    }

    #[test]
    fn a_long_key_keeps_its_ends() {
        let key = format!("nodes.{}.kind", "a.".repeat(5_000));
        let k = bound_key(&key);
        assert!(k.chars().count() <= MAX_KEY_CHARS + 1);
        assert!(k.starts_with("nodes.a.a"));
        assert!(k.ends_with("a.a..kind"));
        assert!(k.contains('…'));
        assert_eq!(ScenarioError::new(key, "x").key, k);
    }
}
