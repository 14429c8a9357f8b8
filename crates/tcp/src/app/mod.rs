//! Applications on top of a TCP connection: [`Bulk`] transfer, repeated [`Ftp`] transfers on
//! fresh connections, and an [`OnOff`] source.
//!
//! Call contract with the agent: [`TcpApplication::poll`] is called at start, when the
//! application's own timer ([`TcpApplication::next_timer`]) is reached, and after every segment
//! its connection receives; it writes into the connection it is handed and may ask for a new
//! connection, which the agent opens at once and hands to the next `poll` of the same instant.

mod bulk;
mod ftp;
mod onoff;
mod receipts;

pub use bulk::Bulk;
pub use ftp::{FileSize, Ftp, RECEIPT_POLL};
pub use onoff::OnOff;
pub use receipts::{FileReceipt, FileReceipts};

use celltcp_engine::{RngStream, SimTime};
use celltcp_net::agent::ReportEntry;

use crate::endpoint::{TcpEndpoint, TcpState};

/// The operations an application performs on its connection.
pub trait Connection {
    /// Queues bytes; returns the bytes the send buffer accepted.
    fn write(&mut self, bytes: u64) -> u64;
    /// Send-buffer space, bytes.
    fn send_space(&self) -> u64;
    /// No more data: a FIN follows what was written.
    fn close(&mut self);
    fn state(&self) -> TcpState;
    /// All written data (and the FIN, if sent) is acknowledged.
    fn all_acked(&self) -> bool;
}

impl Connection for TcpEndpoint {
    fn write(&mut self, bytes: u64) -> u64 {
        TcpEndpoint::write(self, bytes)
    }
    fn send_space(&self) -> u64 {
        TcpEndpoint::send_space(self)
    }
    fn close(&mut self) {
        TcpEndpoint::close(self)
    }
    fn state(&self) -> TcpState {
        TcpEndpoint::state(self)
    }
    fn all_acked(&self) -> bool {
        TcpEndpoint::all_acked(self)
    }
}

/// What an application asks of its agent after a `poll`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppRequest {
    /// Nothing.
    None,
    /// Open a new connection now (active open); it becomes the application's connection.
    Connect,
}

/// A sending application.
pub trait TcpApplication: Send {
    /// Drives the application at `now` with its current connection, if any.
    fn poll(
        &mut self,
        now: SimTime,
        conn: Option<&mut dyn Connection>,
        rng: &mut RngStream,
    ) -> AppRequest;
    /// The next instant the application needs `poll` without network activity.
    fn next_timer(&self) -> Option<SimTime>;
    /// Figures for the run summary, appended in a fixed order.
    fn report(&self, now: SimTime, out: &mut Vec<ReportEntry>);
}
