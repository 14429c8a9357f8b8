//! One split connection: the two TCP endpoints the proxy runs in place of one end-to-end
//! connection (RFC 3135 §2.1.1), and the relay of the byte stream between them in each
//! direction.
//!
//! Call contract: the proxy feeds a segment to one endpoint ([`SplitConnection::on_segment`])
//! or runs the timers due ([`SplitConnection::on_timeout`]), then calls
//! [`SplitConnection::drive`], which moves bytes and FINs across and drains both endpoints.

use std::net::Ipv4Addr;

use celltcp_engine::SimTime;
use celltcp_net::packet::{FlowId, Packet};
use celltcp_net::trace::Traces;

use crate::endpoint::{TcpEndpoint, TcpState};

/// Which of the two endpoints a segment is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Facing {
    /// The endpoint that answered the intercepted SYN (passive open, it impersonates the
    /// responder towards the initiator).
    Initiator,
    /// The endpoint that opened the proxy's own connection (active open, it impersonates the
    /// initiator towards the responder).
    Responder,
}

/// The relay of one direction: bytes read in order from the receiving endpoint and written
/// into the sending one. Payloads are byte counts, so the relay is a set of counters.
#[derive(Clone, Copy, Debug, Default)]
struct Relay {
    /// Bytes read from the receiving endpoint.
    read: u64,
    /// Bytes of `read` the sending endpoint's send buffer has accepted.
    written: u64,
    /// The FIN has been passed on (the sending endpoint was closed).
    fin_relayed: bool,
    /// Largest number of bytes held (read, not yet acknowledged by the far side).
    max_held: u64,
}

impl Relay {
    /// Bytes the relay holds: read from `rx` and not yet acknowledged by `tx`'s peer. Only
    /// the relay writes into `tx`, so `tx.bytes_acked()` counts relayed bytes only.
    fn held(&self, tx: &TcpEndpoint) -> u64 {
        self.read - tx.bytes_acked().min(self.read)
    }

    /// Moves what it can from `rx` to `tx` and passes the FIN on once every byte before it
    /// has been written (RFC 9293 §3.10.4: a close queues the FIN behind the data).
    fn pump(&mut self, rx: &mut TcpEndpoint, tx: &mut TcpEndpoint, limit: u64) {
        // Read only while the relay has room; otherwise the data stays in `rx`'s receive
        // buffer, whose advertised window then shrinks to zero (flow control towards the
        // sender, RFC 9293 §3.8.6).
        if self.held(tx) < limit {
            self.read += rx.take_delivered();
        }
        if self.written < self.read {
            self.written += tx.write(self.read - self.written);
        }
        self.max_held = self.max_held.max(self.held(tx));
        let all_read = rx.stats().bytes_delivered == self.read;
        if !self.fin_relayed
            && rx.receiver().fin_received()
            && all_read
            && self.written == self.read
        {
            tx.close();
            self.fin_relayed = true;
        }
    }
}

/// A connection split by the proxy.
pub struct SplitConnection {
    flow: FlowId,
    initiator: (Ipv4Addr, u16),
    responder: (Ipv4Addr, u16),
    mobile_initiated: bool,
    /// Passive open with the responder's address and port.
    towards_initiator: TcpEndpoint,
    /// Active open with the initiator's address and port.
    towards_responder: TcpEndpoint,
    /// Initiator → responder.
    forward: Relay,
    /// Responder → initiator.
    backward: Relay,
}

impl SplitConnection {
    /// A split for the SYN `initiator` → `responder`; `towards_initiator` must be listening
    /// on the responder's address and port, `towards_responder` connecting from the
    /// initiator's. The caller feeds the SYN next.
    pub(super) fn new(
        flow: FlowId,
        initiator: (Ipv4Addr, u16),
        responder: (Ipv4Addr, u16),
        mobile_initiated: bool,
        towards_initiator: TcpEndpoint,
        towards_responder: TcpEndpoint,
    ) -> Self {
        SplitConnection {
            flow,
            initiator,
            responder,
            mobile_initiated,
            towards_initiator,
            towards_responder,
            forward: Relay::default(),
            backward: Relay::default(),
        }
    }

    /// Flow id of the intercepted connection, carried by both connections' packets.
    pub fn flow(&self) -> FlowId {
        self.flow
    }

    /// Address and port of the host that sent the SYN.
    pub fn initiator(&self) -> (Ipv4Addr, u16) {
        self.initiator
    }

    /// Address and port the SYN was sent to.
    pub fn responder(&self) -> (Ipv4Addr, u16) {
        self.responder
    }

    /// The mobile host opened the connection (uplink direction).
    pub fn mobile_initiated(&self) -> bool {
        self.mobile_initiated
    }

    /// The proxy's connection with the mobile host.
    pub fn to_mobile(&self) -> &TcpEndpoint {
        if self.mobile_initiated {
            &self.towards_initiator
        } else {
            &self.towards_responder
        }
    }

    /// The proxy's connection with the server.
    pub fn to_server(&self) -> &TcpEndpoint {
        if self.mobile_initiated {
            &self.towards_responder
        } else {
            &self.towards_initiator
        }
    }

    fn relay_to_mobile(&self) -> &Relay {
        if self.mobile_initiated {
            &self.backward
        } else {
            &self.forward
        }
    }

    fn relay_to_server(&self) -> &Relay {
        if self.mobile_initiated {
            &self.forward
        } else {
            &self.backward
        }
    }

    /// Bytes read from the server side and written towards the mobile host.
    pub fn relayed_to_mobile(&self) -> u64 {
        self.relay_to_mobile().written
    }

    /// Bytes read from the mobile side and written towards the server.
    pub fn relayed_to_server(&self) -> u64 {
        self.relay_to_server().written
    }

    /// Largest number of bytes the relay held in either direction.
    pub fn relay_max_bytes(&self) -> u64 {
        self.forward.max_held.max(self.backward.max_held)
    }

    pub(super) fn endpoint_mut(&mut self, facing: Facing) -> &mut TcpEndpoint {
        match facing {
            Facing::Initiator => &mut self.towards_initiator,
            Facing::Responder => &mut self.towards_responder,
        }
    }

    pub(super) fn on_segment(
        &mut self,
        facing: Facing,
        now: SimTime,
        pkt: &Packet,
        traces: &mut Traces,
    ) {
        self.endpoint_mut(facing).on_segment(now, pkt, traces);
    }

    /// Runs the timers of both endpoints that are due at `now`.
    pub(super) fn on_timeout(&mut self, now: SimTime, traces: &mut Traces) {
        for ep in [&mut self.towards_initiator, &mut self.towards_responder] {
            if ep.poll_timeout().is_some_and(|t| t <= now) {
                ep.on_timeout(now, traces);
            }
        }
    }

    /// Earliest timer of the two endpoints.
    pub(super) fn poll_timeout(&self) -> Option<SimTime> {
        let a = self.towards_initiator.poll_timeout();
        let b = self.towards_responder.poll_timeout();
        match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Relays in both directions, then collects every segment both endpoints want to send.
    pub(super) fn drive(
        &mut self,
        now: SimTime,
        limit: u64,
        out: &mut Vec<Packet>,
        traces: &mut Traces,
    ) {
        let (i, r) = (&mut self.towards_initiator, &mut self.towards_responder);
        self.forward.pump(i, r, limit);
        self.backward.pump(r, i, limit);
        // A connection that ended without the peer's FIN (a reset, RFC 9293 §3.10.7.4) can
        // carry nothing more: the other connection is closed after what it already holds.
        Self::close_after_abort(i, r);
        Self::close_after_abort(r, i);
        while let Some(p) = self.towards_initiator.poll_transmit(now, traces) {
            out.push(p);
        }
        while let Some(p) = self.towards_responder.poll_transmit(now, traces) {
            out.push(p);
        }
    }

    /// `ended` reached CLOSED without having received its peer's FIN: `other` is closed so
    /// that its FIN follows the data it already holds.
    fn close_after_abort(ended: &TcpEndpoint, other: &mut TcpEndpoint) {
        if ended.state() == TcpState::Closed
            && !ended.receiver().fin_received()
            && !is_closing(other)
        {
            other.close();
        }
    }

    /// Both connections are over: the split can be forgotten.
    pub(super) fn is_finished(&self) -> bool {
        self.towards_initiator.state() == TcpState::Closed
            && self.towards_responder.state() == TcpState::Closed
    }

    /// The connection facing the initiator can no longer take a new SYN's data, so a SYN
    /// for the same addresses and ports starts a new split.
    pub(super) fn accepts_new_syn(&self) -> bool {
        matches!(
            self.towards_initiator.state(),
            TcpState::Closed | TcpState::TimeWait
        )
    }
}

/// The endpoint's own side has already been closed (FIN queued, sent or exchanged).
fn is_closing(ep: &TcpEndpoint) -> bool {
    !matches!(
        ep.state(),
        TcpState::SynSent | TcpState::SynReceived | TcpState::Established | TcpState::CloseWait
    ) || ep.send_buffer().fin_queued
}
