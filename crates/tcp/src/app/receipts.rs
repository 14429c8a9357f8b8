//! The files a mobile host has received in full, shared between its receiving agent (which
//! records each file when the connection's FIN arrives in order, i.e. after the last byte) and
//! the [`Ftp`](super::Ftp) application at the server that requested them.
//!
//! Why a shared record: the seed `001_…` compares an end-to-end path with a split-TCP proxy. A
//! proxy acknowledges the server's data locally (RFC 3135 §3.1.2), so the server's own view of
//! "transfer finished" (its data and FIN acknowledged) comes before the mobile host has the
//! file. A workload that waited on the server's view would request the next file earlier
//! through a proxy than end to end, and the two arms would carry different workloads. The
//! mobile host's receipt is the same event in both arms; it stands for the FTP client, which
//! asks for a file and sees it arrive (the request's own trip to the server is not modelled,
//! in either arm).
//!
//! Handles are `Send` (a mutex, never contended: the simulation is single-threaded and the
//! receipts are recorded in event order, so the record is deterministic).

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use celltcp_engine::SimTime;

/// One file received in full by the mobile host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileReceipt {
    /// When the FIN arrived in order after the file's last byte.
    pub at: SimTime,
    /// Bytes delivered in order on the file's connection.
    pub bytes: u64,
}

/// The files received in full by one mobile host on one flow, in the order they completed
/// (with one file at a time on a flow, the order of the requests). Cloning gives another
/// handle to the same record.
#[derive(Clone, Debug, Default)]
pub struct FileReceipts {
    inner: Arc<Mutex<Vec<FileReceipt>>>,
}

impl FileReceipts {
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, Vec<FileReceipt>> {
        // Plain values only: a panic elsewhere cannot leave them half written.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records a file received in full at `at`.
    pub fn record(&self, at: SimTime, bytes: u64) {
        self.lock().push(FileReceipt { at, bytes });
    }

    /// Files received so far.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// The `k`-th file received (from 0), if it has been.
    pub fn get(&self, k: usize) -> Option<FileReceipt> {
        self.lock().get(k).copied()
    }

    /// A copy of every receipt, in order.
    pub fn all(&self) -> Vec<FileReceipt> {
        self.lock().clone()
    }

    /// Whether `self` and `other` are handles to the same record.
    pub fn shares_with(&self, other: &FileReceipts) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}
