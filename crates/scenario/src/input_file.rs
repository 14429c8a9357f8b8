//! Reading the files a scenario names: links' `trace` files and cells' `bler_table` files.
//!
//! A path in a scenario may name anything: a FIFO (reading it waits for a writer forever), a
//! device (`/dev/zero` never ends), `/proc/self/environ`, a directory or a file of several
//! gigabytes. Only regular files of at most [`MAX_INPUT_FILE_BYTES`] are read, and at most that
//! many bytes of them even if the file grows meanwhile; anything else is refused with a message
//! the caller puts after the key.

use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Largest input file read, bytes (64 MiB): a Mahimahi trace of a day at 1 ms resolution is
/// about 10 MB, a BLER table of link-level points well under 1 MB.
pub const MAX_INPUT_FILE_BYTES: u64 = 64 << 20;

/// The text of the regular file at `path`, of at most [`MAX_INPUT_FILE_BYTES`]; `what` names
/// the file's role in messages ("trace file", "BLER table"), `io_message` words an error of the
/// system (a missing file, no permission) as the caller's other messages do.
pub(crate) fn read_text(
    path: &Path,
    what: &str,
    io_message: impl Fn(&std::io::Error) -> String,
) -> Result<String, String> {
    let shown = path.display();
    let cannot = |e: std::io::Error| io_message(&e);
    // `metadata` does not open the file: opening a FIFO for reading would block until a
    // writer comes.
    let meta = std::fs::metadata(path).map_err(cannot)?;
    check_kind(&meta, path, what)?;
    let file = File::open(path).map_err(cannot)?;
    // The path may have been replaced between the two looks; the open file is what is read.
    check_kind(&file.metadata().map_err(cannot)?, path, what)?;
    let mut bytes = Vec::new();
    file.take(MAX_INPUT_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() as u64 > MAX_INPUT_FILE_BYTES {
        return Err(too_large(path, what));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "the {what} '{shown}' is not UTF-8 text (byte {})",
            e.utf8_error().valid_up_to()
        )
    })
}

fn check_kind(meta: &std::fs::Metadata, path: &Path, what: &str) -> Result<(), String> {
    if !meta.is_file() {
        let kind = if meta.is_dir() { "a directory" } else { "not a regular file (a FIFO, a socket or a device)" };
        return Err(format!(
            "the {what} '{}' is {kind}; give the path of a regular file",
            path.display()
        ));
    }
    if meta.len() > MAX_INPUT_FILE_BYTES {
        return Err(too_large(path, what));
    }
    Ok(())
}

fn too_large(path: &Path, what: &str) -> String {
    format!(
        "the {what} '{}' is larger than {} MiB, the most an input file may have",
        path.display(),
        MAX_INPUT_FILE_BYTES >> 20
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn io(e: &std::io::Error) -> String {
        format!("cannot read: {e}")
    }

    fn temp(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("celltcp-input-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        dir.join(name)
    }

    #[test]
    fn a_regular_file_is_read() {
        let p = temp("ok.txt");
        std::fs::write(&p, "1\n2\n").expect("write");
        assert_eq!(read_text(&p, "trace file", io).expect("readable"), "1\n2\n");
    }

    #[test]
    fn devices_directories_and_missing_files_are_refused_at_once() {
        let e = read_text(Path::new("/dev/zero"), "trace file", io).expect_err("a device");
        assert!(e.contains("not a regular file"), "{e}");
        let e = read_text(&std::env::temp_dir(), "BLER table", io).expect_err("a directory");
        assert!(e.contains("is a directory"), "{e}");
        let e = read_text(Path::new("/nonexistent/x"), "trace file", io).expect_err("missing");
        assert!(e.starts_with("cannot read: "), "{e}");
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
        let e = read_text(&p, "trace file", io).expect_err("a FIFO");
        assert!(e.contains("not a regular file"), "{e}");
    }

    #[test]
    fn a_file_over_the_limit_is_refused_without_reading_it() {
        let p = temp("big.txt");
        let f = File::create(&p).expect("create");
        f.set_len(MAX_INPUT_FILE_BYTES + 1).expect("sparse file");
        let e = read_text(&p, "trace file", io).expect_err("too large");
        assert!(e.contains("larger than 64 MiB"), "{e}");
    }
}
