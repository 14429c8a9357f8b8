//! Line-by-line reading of the text files a scenario names: delivery traces ([`crate::trace_file`])
//! and BLER tables (`celltcp_radio::phy::BlerTable`).
//!
//! Their parsers read a file one line at a time through [`BoundedLines`], so that
//!
//! * a file of millions of lines is never held as text beside its parsed form: only the line
//!   being parsed is in memory;
//! * a file without line ends (a 100,000-character line, a binary file, `/proc/self/environ`)
//!   is never buffered whole: a line longer than [`MAX_LINE_BYTES`] is an error naming its
//!   number and the expected form, found after at most that many bytes of it were read.
//!
//! The size of the whole file is bounded by the reader that is passed in (the scenario crate's
//! `input_file` reads only regular files, and at most 64 MiB of them).
//!
//! Lines end at `\n` or `\r\n`, and the last line's end is optional: exactly where `str::lines`
//! splits, so a parser that read a `&str` with `str::lines` sees the same lines from a stream.

use std::io::{BufRead, ErrorKind};

/// Longest line accepted, bytes without its line end. The lines of the formats read this way
/// are short (a millisecond timestamp: at most 13 digits; a BLER point: three numbers); the
/// bound leaves room for comments and padding while keeping a line that never ends from being
/// buffered.
pub const MAX_LINE_BYTES: usize = 4096;

/// A line could not be read. Each message starts with "line N: " (1-based), as the parsers' own
/// messages do, and ends with the form the parser expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    #[error(
        "line {line}: more than {MAX_LINE_BYTES} bytes without a line end; expected {expected}"
    )]
    TooLong { line: usize, expected: &'static str },
    #[error("line {line}: not UTF-8 text (byte {byte} of the line); expected {expected}")]
    NotUtf8 {
        line: usize,
        /// 0-based offset in the line of the first byte that is not UTF-8.
        byte: usize,
        expected: &'static str,
    },
    #[error("line {line}: cannot read: {reason}")]
    Read { line: usize, reason: String },
}

impl LineError {
    /// The 1-based number of the line at fault.
    pub fn line(&self) -> usize {
        match self {
            Self::TooLong { line, .. } | Self::NotUtf8 { line, .. } | Self::Read { line, .. } => {
                *line
            }
        }
    }
}

/// The lines of a stream, each at most [`MAX_LINE_BYTES`] long, read one at a time.
///
/// Call-order contract: after [`BoundedLines::next_line`] has returned an error or `None`, it
/// returns `None`; the stream is not read further.
pub struct BoundedLines<R> {
    reader: R,
    /// The current line, with its line end: at most `MAX_LINE_BYTES + 2` bytes.
    buf: Vec<u8>,
    /// 1-based number of the line in `buf`.
    line: usize,
    /// What a line should hold, for messages ("one millisecond timestamp per line").
    expected: &'static str,
    done: bool,
}

impl<R: BufRead> BoundedLines<R> {
    /// Lines of `reader`; `expected` words what a line of the format holds, for messages.
    pub fn new(reader: R, expected: &'static str) -> Self {
        BoundedLines {
            reader,
            buf: Vec::new(),
            line: 0,
            expected,
            done: false,
        }
    }

    /// The next line without its line end, with its 1-based number; `None` after the last.
    pub fn next_line(&mut self) -> Option<Result<(usize, &str), LineError>> {
        if self.done {
            return None;
        }
        self.buf.clear();
        self.line += 1;
        let line = self.line;
        let mut ended = false;
        while !ended {
            let available = match self.reader.fill_buf() {
                Ok(bytes) => bytes,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.done = true;
                    return Some(Err(LineError::Read {
                        line,
                        reason: e.to_string(),
                    }));
                }
            };
            if available.is_empty() {
                // End of the stream: the last line had no line end, or there is no further
                // line at all.
                self.done = true;
                if self.buf.is_empty() {
                    return None;
                }
                break;
            }
            let (take, found) = match available.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (available.len(), false),
            };
            // A line end is at most two bytes, so past MAX_LINE_BYTES + 2 the line is too long
            // whatever follows: stop before buffering more of it.
            if self.buf.len() + take > MAX_LINE_BYTES + 2 {
                self.done = true;
                return Some(Err(LineError::TooLong {
                    line,
                    expected: self.expected,
                }));
            }
            self.buf.extend_from_slice(&available[..take]);
            self.reader.consume(take);
            ended = found;
        }
        // As `str::lines`: "\n" ends a line, and a "\r" just before it belongs to the line end.
        let mut content = self.buf.as_slice();
        if let Some(rest) = content.strip_suffix(b"\n") {
            content = rest.strip_suffix(b"\r").unwrap_or(rest);
        }
        if content.len() > MAX_LINE_BYTES {
            self.done = true;
            return Some(Err(LineError::TooLong {
                line,
                expected: self.expected,
            }));
        }
        match std::str::from_utf8(content) {
            Ok(text) => Some(Ok((line, text))),
            Err(e) => {
                self.done = true;
                Some(Err(LineError::NotUtf8 {
                    line,
                    byte: e.valid_up_to(),
                    expected: self.expected,
                }))
            }
        }
    }
}

/// At most this many characters of a line are quoted in a parser's error.
pub const QUOTE_CHARS: usize = 40;

/// `text` for an error message: its first [`QUOTE_CHARS`] characters, `…` after a cut.
pub fn quote(text: &str) -> String {
    let mut chars = text.char_indices();
    match chars.nth(QUOTE_CHARS) {
        None => text.to_owned(),
        Some((end, _)) => format!("{}…", &text[..end]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufReader, Read};

    const FORM: &str = "one thing per line";

    /// Every line of `bytes` read through a buffer of `capacity` bytes, or the first error.
    fn read_all(bytes: &[u8], capacity: usize) -> Result<Vec<(usize, String)>, LineError> {
        let mut lines = BoundedLines::new(BufReader::with_capacity(capacity, bytes), FORM);
        let mut out = Vec::new();
        while let Some(next) = lines.next_line() {
            let (n, text) = next?;
            out.push((n, text.to_owned()));
        }
        Ok(out)
    }

    fn str_lines(text: &str) -> Vec<(usize, String)> {
        text.lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.to_owned()))
            .collect()
    }

    #[test]
    fn lines_are_those_of_str_lines_whatever_the_buffer_size() {
        let cases = [
            "",
            "\n",
            "\n\n",
            "a",
            "a\n",
            "a\r\n",
            "a\r",
            "a\rb\n",
            "\r\n\r\n",
            "1\n2\r\n3",
            "1\n2\r\n3\r\n",
            " 5 \r\n\r\n7\n\r",
            "ü\r\nß\n",
            "x\r\r\n",
        ];
        for text in cases {
            for capacity in [1, 2, 3, 7, 8192] {
                assert_eq!(
                    read_all(text.as_bytes(), capacity).unwrap(),
                    str_lines(text),
                    "{text:?} through a {capacity}-byte buffer"
                );
            }
        }
    }

    #[test]
    fn a_line_at_the_bound_is_read_and_one_byte_more_is_refused_with_its_number() {
        let at = "7".repeat(MAX_LINE_BYTES);
        for end in ["", "\n", "\r\n"] {
            let text = format!("1\n{at}{end}");
            let lines = read_all(text.as_bytes(), 8192).unwrap();
            assert_eq!(lines[1], (2, at.clone()), "{end:?}");
            let text = format!("1\n{at}7{end}");
            assert_eq!(
                read_all(text.as_bytes(), 8192),
                Err(LineError::TooLong {
                    line: 2,
                    expected: FORM
                }),
                "{end:?}"
            );
        }
    }

    /// A reader that counts the bytes taken from it, to show how much of a stream was read.
    struct Counting<R> {
        inner: R,
        taken: std::rc::Rc<std::cell::Cell<u64>>,
    }

    impl<R: Read> Read for Counting<R> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.inner.read(buf)?;
            self.taken.set(self.taken.get() + n as u64);
            Ok(n)
        }
    }

    #[test]
    fn a_stream_without_line_ends_is_refused_after_one_bound_of_it() {
        // An endless stream of one byte (as /dev/zero): refused, having read at most the
        // bound plus one buffer.
        let taken = std::rc::Rc::new(std::cell::Cell::new(0));
        let endless = Counting {
            inner: std::io::repeat(b'z'),
            taken: taken.clone(),
        };
        let mut lines = BoundedLines::new(BufReader::with_capacity(1024, endless), FORM);
        let e = lines.next_line().unwrap().unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("line 1: more than {MAX_LINE_BYTES} bytes without a line end; expected {FORM}")
        );
        assert!(
            taken.get() <= (MAX_LINE_BYTES + 2 + 1024) as u64,
            "{}",
            taken.get()
        );
        assert!(lines.next_line().is_none());
        assert!(taken.get() <= (MAX_LINE_BYTES + 2 + 1024) as u64);
    }

    #[test]
    fn bytes_that_are_not_utf8_name_the_line_and_the_byte() {
        let e = read_all(b"1\n2\n3\xff4\n", 8192).unwrap_err();
        assert_eq!(
            e,
            LineError::NotUtf8 {
                line: 3,
                byte: 1,
                expected: FORM
            }
        );
        assert_eq!(
            e.to_string(),
            "line 3: not UTF-8 text (byte 1 of the line); expected one thing per line"
        );
        // A character split across two reads of the buffer is still one character.
        assert_eq!(
            read_all("é\n".as_bytes(), 1).unwrap(),
            [(1, "é".to_owned())]
        );
    }

    #[test]
    fn an_error_of_the_reader_names_the_line_and_ends_the_lines() {
        struct Failing;
        impl Read for Failing {
            fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
                Err(std::io::Error::other("disk on fire"))
            }
        }
        let mut lines = BoundedLines::new(BufReader::new((&b"1\n"[..]).chain(Failing)), FORM);
        assert_eq!(lines.next_line().unwrap().unwrap(), (1, "1"));
        assert_eq!(
            lines.next_line().unwrap().unwrap_err().to_string(),
            "line 2: cannot read: disk on fire"
        );
        assert!(lines.next_line().is_none());
    }

    #[test]
    fn quotes_are_cut_at_40_characters() {
        assert_eq!(quote("abc"), "abc");
        assert_eq!(quote(&"é".repeat(40)), "é".repeat(40));
        assert_eq!(quote(&"é".repeat(41)), format!("{}…", "é".repeat(40)));
    }
}
