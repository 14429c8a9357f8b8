//! Reading the files a scenario names: links' `trace` files, cells' `bler_table` files, and the
//! scenario file itself.
//!
//! A path in a scenario may name anything: a FIFO (reading it waits for a writer forever), a
//! device (`/dev/zero` never ends), `/proc/self/environ`, a directory or a file of several
//! gigabytes. Only regular files of at most [`MAX_INPUT_FILE_BYTES`] are read, and at most that
//! many bytes of them even if the file grows meanwhile (the bound is counted as the bytes are
//! read, not only looked up before); anything else is refused with a message the caller puts
//! after the key.
//!
//! Traces and BLER tables are parsed as a stream ([`parse_file`]): their parsers read one line
//! at a time, of bounded length (`celltcp_net::text_lines`), so the text of a large trace is
//! never held beside its parsed form. The scenario file is read whole ([`read_text`]): the TOML
//! parser needs its text, and reports positions in it.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// Largest input file read, bytes (64 MiB): a Mahimahi trace of a day at 1 ms resolution is
/// about 10 MB, a BLER table of link-level points well under 1 MB.
pub const MAX_INPUT_FILE_BYTES: u64 = 64 << 20;

/// Bytes read from the file at a time by [`parse_file`].
const READ_BUFFER_BYTES: usize = 64 << 10;

/// Why an input file was not read.
#[derive(Debug)]
pub(crate) enum InputError {
    /// The system's error (no such file, no permission), for the caller to word.
    Io(std::io::Error),
    /// The path is a directory.
    Directory,
    /// Not a regular file, too large, or not UTF-8 text: the message, naming the file.
    Refused(String),
}

impl InputError {
    /// The message after the key: the system's errors worded by `io_message`.
    fn worded(
        self,
        path: &Path,
        what: &str,
        io_message: impl Fn(&std::io::Error) -> String,
    ) -> String {
        match self {
            InputError::Io(e) => io_message(&e),
            InputError::Directory => format!(
                "the {what} '{}' is a directory; give the path of a regular file",
                path.display()
            ),
            InputError::Refused(m) => m,
        }
    }
}

/// The text of the regular file at `path`, of at most [`MAX_INPUT_FILE_BYTES`]; `what` names
/// the file's role in messages ("scenario file"), `io_message` words an error of the system (a
/// missing file, no permission) as the caller's other messages do.
pub(crate) fn read_text(
    path: &Path,
    what: &str,
    io_message: impl Fn(&std::io::Error) -> String,
) -> Result<String, String> {
    read_text_of(path, what).map_err(|e| e.worded(path, what, io_message))
}

/// [`read_text`] with the system's errors, and a directory, left to the caller.
pub(crate) fn read_text_of(path: &Path, what: &str) -> Result<String, InputError> {
    let mut reader = open(path, what, MAX_INPUT_FILE_BYTES)?;
    let mut bytes = Vec::new();
    let read = reader.read_to_end(&mut bytes);
    if reader.exceeded {
        return Err(InputError::Refused(too_large(
            path,
            what,
            MAX_INPUT_FILE_BYTES,
        )));
    }
    read.map_err(InputError::Io)?;
    String::from_utf8(bytes).map_err(|e| {
        InputError::Refused(format!(
            "the {what} '{}' is not UTF-8 text (byte {})",
            path.display(),
            e.utf8_error().valid_up_to()
        ))
    })
}

/// The regular file at `path`, of at most [`MAX_INPUT_FILE_BYTES`], parsed as a stream by
/// `parse` (which reads it to its end); `describe` words a parse error. `what` and `io_message`
/// as for [`read_text`]. Reading more than the bound stops the parser (its reader fails) and
/// is reported as the file being too large, whatever the parser made of it.
pub(crate) fn parse_file<T, E>(
    path: &Path,
    what: &str,
    io_message: impl Fn(&std::io::Error) -> String,
    parse: impl FnOnce(&mut dyn BufRead) -> Result<T, E>,
    describe: impl FnOnce(E) -> String,
) -> Result<T, String> {
    parse_file_within(
        path,
        what,
        MAX_INPUT_FILE_BYTES,
        io_message,
        parse,
        describe,
    )
}

/// [`parse_file`] with a bound of `limit` bytes.
fn parse_file_within<T, E>(
    path: &Path,
    what: &str,
    limit: u64,
    io_message: impl Fn(&std::io::Error) -> String,
    parse: impl FnOnce(&mut dyn BufRead) -> Result<T, E>,
    describe: impl FnOnce(E) -> String,
) -> Result<T, String> {
    let file = open(path, what, limit).map_err(|e| e.worded(path, what, &io_message))?;
    let mut reader = BufReader::with_capacity(READ_BUFFER_BYTES, file);
    let parsed = parse(&mut reader);
    if reader.get_ref().exceeded {
        return Err(too_large(path, what, limit));
    }
    parsed.map_err(describe)
}

/// The regular file at `path`, opened for reading at most `limit` bytes.
fn open(path: &Path, what: &str, limit: u64) -> Result<Bounded<File>, InputError> {
    // `metadata` does not open the file: opening a FIFO for reading would block until a
    // writer comes.
    let meta = std::fs::metadata(path).map_err(InputError::Io)?;
    check_kind(&meta, path, what, limit)?;
    let file = File::open(path).map_err(InputError::Io)?;
    // The path may have been replaced between the two looks; the open file is what is read.
    check_kind(&file.metadata().map_err(InputError::Io)?, path, what, limit)?;
    Ok(Bounded {
        inner: file,
        left: limit,
        exceeded: false,
    })
}

/// A reader that yields at most `left` more bytes and fails, marking itself `exceeded`, when
/// the stream holds more: the size bound of a file that grows while it is read.
struct Bounded<R> {
    inner: R,
    left: u64,
    exceeded: bool,
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.left == 0 {
            // The bound is reached: the stream is within it only if it ends here.
            let mut probe = [0u8; 1];
            if self.inner.read(&mut probe)? == 0 {
                return Ok(0);
            }
            self.exceeded = true;
            return Err(std::io::Error::other("the file is larger than its bound"));
        }
        let want = buf
            .len()
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..want])?;
        self.left -= n as u64;
        Ok(n)
    }
}

fn check_kind(
    meta: &std::fs::Metadata,
    path: &Path,
    what: &str,
    limit: u64,
) -> Result<(), InputError> {
    if meta.is_dir() {
        return Err(InputError::Directory);
    }
    if !meta.is_file() {
        return Err(InputError::Refused(format!(
            "the {what} '{}' is not a regular file (a FIFO, a socket or a device); give the path \
             of a regular file",
            path.display()
        )));
    }
    if meta.len() > limit {
        return Err(InputError::Refused(too_large(path, what, limit)));
    }
    Ok(())
}

fn too_large(path: &Path, what: &str, limit: u64) -> String {
    let bound = if limit >= 1 << 20 {
        format!("{} MiB", limit >> 20)
    } else {
        format!("{limit} bytes")
    };
    format!(
        "the {what} '{}' is larger than {bound}, the most an input file may have",
        path.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use celltcp_net::trace_file::{DeliveryTrace, TraceFileError};
    use std::io::Write;

    fn io(e: &std::io::Error) -> String {
        format!("cannot read: {e}")
    }

    fn temp(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("celltcp-input-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        dir.join(name)
    }

    /// The trace at `path` parsed through [`parse_file`], errors worded as a scenario does.
    fn trace(path: &Path) -> Result<DeliveryTrace, String> {
        parse_file(
            path,
            "trace file",
            io,
            |r| DeliveryTrace::from_reader(r),
            |e: TraceFileError| e.to_string(),
        )
    }

    #[test]
    fn a_regular_file_is_read() {
        let p = temp("ok.txt");
        std::fs::write(&p, "1\n2\n").expect("write");
        assert_eq!(read_text(&p, "trace file", io).expect("readable"), "1\n2\n");
        assert_eq!(trace(&p).expect("a trace").opportunities_ms(), [1, 2]);
    }

    #[test]
    fn devices_directories_and_missing_files_are_refused_at_once() {
        type Reader = fn(&Path) -> Result<(), String>;
        let readers: [Reader; 2] = [
            |p| read_text(p, "trace file", io).map(drop),
            |p| trace(p).map(drop),
        ];
        for read in readers {
            let e = read(Path::new("/dev/zero")).expect_err("a device");
            assert!(e.contains("not a regular file"), "{e}");
            let e = read(&std::env::temp_dir()).expect_err("a directory");
            assert!(e.contains("is a directory"), "{e}");
            let e = read(Path::new("/nonexistent/x")).expect_err("missing");
            assert!(e.starts_with("cannot read: "), "{e}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_waiting_for_a_writer() {
        let p = temp("fifo");
        let _ = std::fs::remove_file(&p);
        let made = std::process::Command::new("mkfifo").arg(&p).status();
        if !made.is_ok_and(|s| s.success()) {
            return; // no mkfifo on this system: nothing to test
        }
        // On a thread, so that a regression fails the test instead of hanging it.
        let (tx, rx) = std::sync::mpsc::channel();
        let q = p.clone();
        std::thread::spawn(move || {
            let _ = tx.send((
                read_text(&q, "trace file", io).map(drop),
                trace(&q).map(drop),
            ));
        });
        let (text, parsed) = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("refused within 10 s, not waiting for a writer");
        for e in [text.expect_err("a FIFO"), parsed.expect_err("a FIFO")] {
            assert!(e.contains("not a regular file"), "{e}");
        }
    }

    #[test]
    fn a_file_over_the_limit_is_refused_without_reading_it() {
        let p = temp("big.txt");
        let f = File::create(&p).expect("create");
        f.set_len(MAX_INPUT_FILE_BYTES + 1).expect("sparse file");
        let e = read_text(&p, "trace file", io).expect_err("too large");
        assert!(e.contains("larger than 64 MiB"), "{e}");
        let e = trace(&p).expect_err("too large");
        assert!(e.contains("larger than 64 MiB"), "{e}");
    }

    #[test]
    fn a_file_that_grows_past_the_limit_while_it_is_read_is_refused() {
        // Within the bound when opened (and looked up), past it by the time it is read: the
        // parser is handed the stream after the file has grown.
        let p = temp("growing.trace");
        std::fs::write(&p, "1\n".repeat(100)).expect("write");
        let grow_then_parse = |r: &mut dyn BufRead| {
            let mut more = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
            more.write_all("2\n".repeat(100).as_bytes()).unwrap();
            DeliveryTrace::from_reader(r)
        };
        let e = parse_file_within(&p, "trace file", 300, io, grow_then_parse, |e| {
            e.to_string()
        })
        .expect_err("grew past the bound");
        assert_eq!(
            e,
            format!(
                "the trace file '{}' is larger than 300 bytes, the most an input file may have",
                p.display()
            )
        );
        // Exactly at the bound is within it.
        std::fs::write(&p, "1\n".repeat(150)).expect("write");
        let t = parse_file_within(
            &p,
            "trace file",
            300,
            io,
            |r| DeliveryTrace::from_reader(r),
            |e| e.to_string(),
        )
        .expect("300 bytes");
        assert_eq!(t.opportunities_per_period(), 150);
    }

    #[test]
    fn a_parse_error_before_the_bound_is_the_parsers() {
        let p = temp("bad.trace");
        std::fs::write(&p, "1\nx\n").expect("write");
        assert_eq!(
            trace(&p).expect_err("bad line"),
            "line 2: 'x' is not a millisecond timestamp"
        );
    }

    #[test]
    fn a_file_without_line_ends_is_refused_at_its_first_line() {
        // 10 MB without a line end: refused after the first 4 KiB of it, naming line 1.
        let p = temp("oneline.trace");
        std::fs::write(&p, "7".repeat(10_000_000)).expect("write");
        assert_eq!(
            trace(&p).expect_err("no line end"),
            "line 1: more than 4096 bytes without a line end; expected one millisecond timestamp per line"
        );
    }
}
