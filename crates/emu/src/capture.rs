//! The capture of the real datagrams where they enter and leave the emulated path: a libpcap
//! file (draft-ietf-opsawg-pcap) with nanosecond timestamps in Unix time and link type
//! `LINKTYPE_RAW`, each record the datagram's bytes as read or written.
//!
//! The file is written under a temporary name beside the requested one and renamed onto it
//! when the run ends well (rename(2) is atomic within a file system), so a reader never sees a
//! half-written capture under the final name; after an error nothing is left behind.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use celltcp_net::pcap::{FILE_HEADER_BYTES, LINKTYPE_RAW, MAGIC_NANOS, RECORD_HEADER_BYTES};

/// Snapshot length: every IPv4 datagram whole.
const SNAPLEN: u32 = 65_535;

/// Which points of the path are captured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CapturePoints {
    /// Where datagrams enter and where they leave: each delivered datagram appears twice.
    #[default]
    Both,
    /// Where they enter (as the senders sent them).
    Ingress,
    /// Where they leave (as the receivers got them, with the path's CE marks).
    Egress,
}

impl CapturePoints {
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "both" => Some(CapturePoints::Both),
            "ingress" => Some(CapturePoints::Ingress),
            "egress" => Some(CapturePoints::Egress),
            _ => None,
        }
    }

    pub fn ingress(self) -> bool {
        self != CapturePoints::Egress
    }

    pub fn egress(self) -> bool {
        self != CapturePoints::Ingress
    }
}

/// A capture file being written.
pub struct Capture {
    path: PathBuf,
    temp: PathBuf,
    /// `None` once committed.
    out: Option<BufWriter<File>>,
    pub points: CapturePoints,
    header: [u8; RECORD_HEADER_BYTES],
}

impl Capture {
    /// Creates the temporary file beside `path` and writes the file header.
    ///
    /// # Errors
    /// The directory does not exist or cannot be written.
    pub fn create(path: &Path, points: CapturePoints) -> io::Result<Capture> {
        let name = path
            .file_name()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))?;
        let mut temp_name = std::ffi::OsString::from(".");
        temp_name.push(name);
        temp_name.push(format!(".{}.tmp", std::process::id()));
        let temp = path.with_file_name(temp_name);
        let file = File::create(&temp)?;
        let mut c = Capture {
            path: path.to_path_buf(),
            temp,
            out: Some(BufWriter::with_capacity(1 << 16, file)),
            points,
            header: [0; RECORD_HEADER_BYTES],
        };
        let mut h = [0u8; FILE_HEADER_BYTES];
        h[0..4].copy_from_slice(&MAGIC_NANOS.to_le_bytes());
        h[4..6].copy_from_slice(&2u16.to_le_bytes());
        h[6..8].copy_from_slice(&4u16.to_le_bytes());
        h[16..20].copy_from_slice(&SNAPLEN.to_le_bytes());
        h[20..24].copy_from_slice(&LINKTYPE_RAW.to_le_bytes());
        c.writer()?.write_all(&h)?;
        Ok(c)
    }

    fn writer(&mut self) -> io::Result<&mut BufWriter<File>> {
        self.out
            .as_mut()
            .ok_or_else(|| io::Error::other("the capture is already committed"))
    }

    /// The file the capture ends up in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `datagram`, seen at Unix time `unix_ns`.
    ///
    /// # Errors
    /// Any error of the file.
    pub fn record(&mut self, unix_ns: u64, datagram: &[u8]) -> io::Result<()> {
        let len = datagram.len().min(SNAPLEN as usize);
        let secs = (unix_ns / 1_000_000_000) as u32;
        let nanos = (unix_ns % 1_000_000_000) as u32;
        let mut h = self.header;
        h[0..4].copy_from_slice(&secs.to_le_bytes());
        h[4..8].copy_from_slice(&nanos.to_le_bytes());
        h[8..12].copy_from_slice(&(len as u32).to_le_bytes());
        h[12..16].copy_from_slice(&(datagram.len() as u32).to_le_bytes());
        let w = self.writer()?;
        w.write_all(&h)?;
        w.write_all(&datagram[..len])
    }

    /// Flushes the file and renames it onto its final name.
    ///
    /// # Errors
    /// Flushing or renaming failed; the temporary file is then removed.
    pub fn commit(mut self) -> io::Result<()> {
        let out = self.writer()?;
        out.flush()?;
        out.get_ref().sync_data()?;
        self.out = None;
        std::fs::rename(&self.temp, &self.path)
        // On error `drop` removes the temporary file.
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        // Not committed (an error ended the run, or the rename failed): leave nothing behind.
        self.out = None;
        let _ = std::fs::remove_file(&self.temp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use celltcp_net::pcap::read_pcap;

    /// An empty directory of its own for one test.
    fn dir(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("celltcp-emu-capture-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_committed_capture_reads_back_and_leaves_no_temporary_file() {
        let d = dir("ok");
        let path = d.join("run.pcap");
        let mut c = Capture::create(&path, CapturePoints::Both).unwrap();
        c.record(1_700_000_000_123_456_789, &[0x45, 0, 0, 20])
            .unwrap();
        assert!(
            !path.exists(),
            "only the temporary file exists during the run"
        );
        c.commit().unwrap();
        let records = read_pcap(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(records.len(), 1);
        assert_eq!(records[0].0.as_ns(), 1_700_000_000_123_456_789);
        assert_eq!(records[0].1, vec![0x45, 0, 0, 20]);
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), 1);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn an_abandoned_capture_leaves_nothing() {
        let d = dir("abandoned");
        let path = d.join("run.pcap");
        let mut c = Capture::create(&path, CapturePoints::Ingress).unwrap();
        c.record(1, &[0x45]).unwrap();
        drop(c);
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), 0);
        std::fs::remove_dir_all(&d).unwrap();
        assert!(Capture::create(&d.join("x.pcap"), CapturePoints::Both).is_err());
    }
}
