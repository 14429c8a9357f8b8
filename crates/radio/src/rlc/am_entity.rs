//! The AM entity of either RAT: one node's transmitting side of one direction paired with its
//! receiving side of the other (TS 36.322 §4.2.1.3, TS 38.322 §4.2.1.3).
//!
//! The entity only routes: PDUs from the peer go to the side they are for (a STATUS PDU to the
//! transmitting side, everything else to the receiving side), and a transmission opportunity is
//! offered to the receiving side's STATUS PDU first. What each side does is its RAT's
//! ([`RlcAmTx`]/[`RlcAmRx`] for LTE, [`NrRlcAmTx`]/[`NrRlcAmRx`] for NR); the traits here
//! name what the entity needs of them, so the entity is written once.
//!
//! [`RlcAmTx`]: super::RlcAmTx
//! [`RlcAmRx`]: super::RlcAmRx
//! [`NrRlcAmTx`]: crate::nr::rlc::NrRlcAmTx
//! [`NrRlcAmRx`]: crate::nr::rlc::NrRlcAmRx

use celltcp_engine::SimTime;

use super::{earliest, BufferStatus, RlcConfigError, RlcSdu, RlcSduRefused};

/// Where a PDU received from the peer entity goes.
#[derive(Debug)]
pub enum AmRoute<St, D> {
    /// A STATUS PDU, for the transmitting side.
    Status(St),
    /// Anything else (AMD PDUs; LTE's MRW), for the receiving side.
    Data(D),
}

/// The PDUs AM entities of one RAT exchange (LTE's [`RlcPdu`](super::RlcPdu), NR's
/// [`NrRlcPdu`](crate::nr::rlc::NrRlcPdu)).
pub trait AmPdu: Sized {
    /// The STATUS PDU.
    type Status;
    /// What a receiving side takes from the peer's transmitting side.
    type Data;
    /// A STATUS PDU as a PDU of the entity.
    fn from_status(status: Self::Status) -> Self;
    /// The side of the entity this PDU from the peer is for.
    fn route(self) -> AmRoute<Self::Status, Self::Data>;
}

/// A transmitting side as the AM entity drives it.
pub trait AmTxSide: Sized {
    type Sdu: RlcSdu;
    /// The configuration both sides are built from.
    type Config: Copy;
    type Pdu: AmPdu;
    fn new(config: Self::Config) -> Result<Self, RlcConfigError>;
    fn write_sdu(&mut self, now: SimTime, sdu: Self::Sdu) -> Result<(), RlcSduRefused>;
    fn buffer_status(&self) -> BufferStatus;
    /// The next data PDU (retransmissions before new data) for `grant_bytes`.
    fn pull_pdu(&mut self, now: SimTime, grant_bytes: u32) -> Option<Self::Pdu>;
    fn on_status(&mut self, now: SimTime, status: &<Self::Pdu as AmPdu>::Status);
    fn poll_timeout(&self) -> Option<SimTime>;
    fn on_timeout(&mut self, now: SimTime);
}

/// A receiving side as the AM entity drives it.
pub trait AmRxSide: Sized {
    type Sdu: RlcSdu;
    type Config: Copy;
    type Pdu: AmPdu;
    fn new(config: Self::Config) -> Result<Self, RlcConfigError>;
    /// Bytes of the STATUS PDU this side would send at `now`, 0 if none is due.
    fn status_bytes(&self, now: SimTime) -> u32;
    fn pull_status(
        &mut self,
        now: SimTime,
        grant_bytes: u32,
    ) -> Option<<Self::Pdu as AmPdu>::Status>;
    fn on_pdu(&mut self, now: SimTime, pdu: <Self::Pdu as AmPdu>::Data);
    /// The next SDU for the upper layer: in SN order in LTE (36.322 §5.1.3.2.3), in the order
    /// reassembly completed in NR (38.322 §5.2.3.2.3).
    fn take_sdu(&mut self) -> Option<Self::Sdu>;
    fn poll_timeout(&self) -> Option<SimTime>;
    fn on_timeout(&mut self, now: SimTime);
}

/// One node's AM entity: the transmitting side of one direction and the receiving side of the
/// other. `pull_pdu` serves control PDUs first, then retransmissions, then new data (36.322
/// §5.1.3.1.1: "prioritise transmission of RLC control PDUs over RLC data PDUs ... and
/// retransmission of RLC data PDUs over transmission of new AMD PDUs"; 38.322 §5.2.3.1.1 reads
/// the same).
#[derive(Debug)]
pub struct AmEntity<Tx, Rx> {
    pub tx: Tx,
    pub rx: Rx,
}

impl<Tx, Rx> AmEntity<Tx, Rx>
where
    Tx: AmTxSide,
    Rx: AmRxSide<Sdu = Tx::Sdu, Config = Tx::Config, Pdu = Tx::Pdu>,
{
    /// Both sides from the one configuration.
    pub fn new(config: Tx::Config) -> Result<Self, RlcConfigError> {
        Ok(AmEntity {
            tx: Tx::new(config)?,
            rx: Rx::new(config)?,
        })
    }

    pub fn write_sdu(&mut self, now: SimTime, sdu: Tx::Sdu) -> Result<(), RlcSduRefused> {
        self.tx.write_sdu(now, sdu)
    }

    /// Everything this entity wants to send, with the STATUS PDU the receiving side may send
    /// at `now`.
    pub fn buffer_status(&self, now: SimTime) -> BufferStatus {
        let mut b = self.tx.buffer_status();
        b.status_bytes += self.rx.status_bytes(now) as u64;
        b
    }

    /// The next PDU for a transmission opportunity of `grant_bytes`; call again with the rest
    /// of the grant to fill a transport block.
    pub fn pull_pdu(&mut self, now: SimTime, grant_bytes: u32) -> Option<Tx::Pdu> {
        if let Some(s) = self.rx.pull_status(now, grant_bytes) {
            return Some(Tx::Pdu::from_status(s));
        }
        self.tx.pull_pdu(now, grant_bytes)
    }

    /// A PDU from the peer: STATUS to the transmitting side, the rest to the receiving side.
    pub fn on_pdu(&mut self, now: SimTime, pdu: Tx::Pdu) {
        match pdu.route() {
            AmRoute::Status(s) => self.tx.on_status(now, &s),
            AmRoute::Data(d) => self.rx.on_pdu(now, d),
        }
    }

    /// The next SDU for the upper layer (see [`AmRxSide::take_sdu`] for the order).
    pub fn take_sdu(&mut self) -> Option<Tx::Sdu> {
        self.rx.take_sdu()
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        earliest(self.tx.poll_timeout(), self.rx.poll_timeout())
    }

    pub fn on_timeout(&mut self, now: SimTime) {
        self.tx.on_timeout(now);
        self.rx.on_timeout(now);
    }
}
