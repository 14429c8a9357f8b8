//! Configuration of a [`DchLink`](super::DchLink): the transport format of each direction, the
//! RLC AM parameters of TS 25.322 and the error type.
//!
//! Transport-block arithmetic (TS 25.302 §7.1, TS 25.321 §9.2.1, the reference radio bearers of
//! TS 34.108 §6.10.2.4):
//! * an RLC AMD PDU is a 2-byte header (D/C, 12-bit SN, P, HE: 25.322 §9.2.1.4) followed by
//!   `pdu_payload_bytes` of data field (SDU pieces, a length indicator with its E bit for each
//!   SDU ending inside the PDU, padding: 25.322 §9.2.2.8; the LI is 1 byte in PDUs up to
//!   126 bytes, 2 bytes above);
//! * DTCH is mapped onto the DCH without logical-channel multiplexing, so the MAC-d PDU has no
//!   C/T field and no header (25.321 §9.2.1.1, case "DTCH mapped to DCH, no multiplexing"):
//!   one transport block = one AMD PDU = `8·(pdu_payload_bytes + 2)` bits (336 bits for the
//!   usual 40-byte payload, as in 34.108's PS RABs: payload 320 bits, AMD header 16 bits, MAC
//!   header 0, TB size 336 bits);
//! * the nominal rate of a DCH is its maximum RLC payload rate, as 34.108 states "Max data
//!   rate" (e.g. DL 384 kbit/s: 12 × 336-bit TBs per 10 ms TTI, 12 × 320 bits / 10 ms =
//!   384 kbit/s). A TTI therefore carries `N = floor(rate · TTI / (8 · pdu_payload_bytes))`
//!   transport blocks: 64 kbit/s / 20 ms → 4, 128 / 20 → 8, 256 / 20 → 16, 384 / 10 → 12;
//! * the transport format set is every count 0..=N (34.108 lists a subset, e.g. 0, 1, 2, 4, 8,
//!   12 for 384 kbit/s; using every count only removes padding TBs, whose data would be empty).
//!
//! CRC (16 bits per TB), channel coding and rate matching are below the TB and not modelled: a
//! TB is received or lost as a whole, with probability BLER, independently of the others or
//! with a BLER that follows a two-state channel from TTI to TTI ([`errors`](super::errors)).

use celltcp_engine::SimDuration;
use celltcp_net::packet::NodeId;

use crate::rlc::{BufferLimit, PduMode, RlcAmConfig, RlcConfigError};

use super::errors::{BlockErrorModel, BlockErrorsError};

/// Header of an AMD PDU with a 12-bit SN, bytes (25.322 §9.2.1.4: D/C, SN, P, HE).
pub const AMD_HEADER_BYTES: u32 = 2;

/// Largest AMD PDU, bytes: 25.331's RLC PDU size IE goes up to 5000 bits.
pub const MAX_PDU_BYTES: u32 = 625;

/// TTIs a DCH may use, ms (25.302 §7.1: the TTI of a transport channel is 10, 20, 40 or 80 ms
/// in FDD).
pub const DCH_TTIS_MS: [u64; 4] = [10, 20, 40, 80];

/// Downlink rates of the reference PS radio access bearers (34.108 §6.10.2.4), bit/s. Any
/// positive rate is accepted; these are the standard ones.
pub const STANDARD_RATES_BPS: [u64; 4] = [64_000, 128_000, 256_000, 384_000];

/// One direction of the dedicated channel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DchDirectionConfig {
    /// Nominal rate: RLC payload bits per second at the largest transport format, bit/s.
    pub rate_bps: u64,
    /// Transmission time interval.
    pub tti: SimDuration,
    /// Probability that a transport block is lost, in [0, 1): the long-run BLER.
    pub bler: f64,
    /// How losses are spread over the blocks: independently (the default), or in bursts
    /// ([`errors`](super::errors)).
    pub errors: BlockErrorModel,
}

/// RLC acknowledged mode of the radio bearer, both directions (25.322; parameter names of
/// 25.331's "Transmission RLC discard" and "Polling info" information elements).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DchRlcConfig {
    /// Data field of an AMD PDU, bytes (40 = 320 bits); the PDU is 2 bytes more.
    pub pdu_payload_bytes: u32,
    /// MaxDAT: transmissions of a PDU before its SDUs are discarded with an MRW (25.322 §11.6,
    /// "SDU discard with explicit signalling"); `None` = retransmit until acknowledged.
    pub max_dat: Option<u32>,
    /// Timer_Poll (25.322 §9.5): a poll unanswered this long is repeated.
    pub timer_poll: SimDuration,
    /// Timer_Status_Prohibit (25.322 §9.5): least time between two STATUS reports.
    pub timer_status_prohibit: SimDuration,
    /// Poll_PDU (25.322 §9.7.1): a poll every this many new PDUs; `None` = only the
    /// "last PDU in buffer" and window-based polls.
    pub poll_pdu: Option<u32>,
    /// Limit on SDUs waiting for their first transmission, at each end.
    pub tx_buffer: BufferLimit,
}

impl Default for DchRlcConfig {
    /// 40-byte payload, MaxDAT 10, Timer_Poll 300 ms, Timer_Status_Prohibit 150 ms, Poll_PDU 32,
    /// 32 kB buffer (docs/wcdma.md gives the reasons).
    fn default() -> Self {
        DchRlcConfig {
            pdu_payload_bytes: 40,
            max_dat: Some(10),
            timer_poll: SimDuration::from_ms(300),
            timer_status_prohibit: SimDuration::from_ms(150),
            poll_pdu: Some(32),
            tx_buffer: BufferLimit::Bytes(32_000),
        }
    }
}

impl DchRlcConfig {
    /// Size of an AMD PDU, and of a transport block, bytes.
    pub fn pdu_bytes(&self) -> u32 {
        self.pdu_payload_bytes + AMD_HEADER_BYTES
    }

    /// The configuration of the transmitting sides: fixed-size PDUs, 12-bit SN, MaxDAT discard.
    ///
    /// * 25.322 has no t-Reordering: the receiver sends a STATUS report as soon as it detects a
    ///   missing PDU ("Missing PDU Indicator", 25.322 §9.7.2). On a DCH the TBs of a TTI arrive
    ///   together and in SN order, so a gap is a loss and t-Reordering = 0 is that indicator.
    /// * The receiver answers polls, limited by Timer_Status_Prohibit.
    pub fn am_config(&self) -> RlcAmConfig {
        let mut c = RlcAmConfig::wcdma(self.pdu_bytes(), self.max_dat.unwrap_or(0));
        if self.max_dat.is_none() {
            c.max_retx_threshold = None;
        }
        c.t_poll_retransmit = self.timer_poll;
        c.t_status_prohibit = self.timer_status_prohibit;
        c.t_reordering = SimDuration::ZERO;
        c.poll_pdu = self.poll_pdu;
        c.poll_byte = None;
        c.tx_buffer = self.tx_buffer;
        c
    }

    /// The configuration of the receiving sides: as [`am_config`](Self::am_config), except that
    /// the entity lists every missing SN in one report, whatever its size.
    ///
    /// The RLC entities size a STATUS report as 36.322's NACK list (14 bits per missing SN with
    /// a 12-bit SN). On the DCH the report is instead written as 25.322 STATUS PDUs of the AMD
    /// PDU size, with ACK, LIST, BITMAP and RLIST super-fields
    /// ([`status_sufi`](crate::rlc::status_sufi), 25.322 §9.2.1.6, §9.2.2.11), as many as the
    /// TTI's blocks allow (§11.5: a report may take several STATUS PDUs); the channel
    /// (`channel.rs`) takes the report from the entity with a grant without limit and cuts it
    /// to the blocks it can carry.
    pub fn am_rx_config(&self) -> RlcAmConfig {
        RlcAmConfig {
            pdu_mode: PduMode::Flexible,
            ..self.am_config()
        }
    }
}

/// A dedicated channel between an RNC and one UE.
#[derive(Clone, Debug, PartialEq)]
pub struct DchConfig {
    /// Name in summaries and random-stream paths.
    pub name: String,
    pub rnc: NodeId,
    pub ue: NodeId,
    pub downlink: DchDirectionConfig,
    pub uplink: DchDirectionConfig,
    /// Fixed delay from the end of a TTI to delivery at the other end (Iub transport, frame
    /// protocol, Node B and RNC processing), both directions.
    pub delay: SimDuration,
    pub rlc: DchRlcConfig,
    /// Gaps shorter than this between two busy periods of the downlink RLC count as active
    /// time in the RLC throughput (they belong to one transfer); longer gaps end a session.
    pub session_gap: SimDuration,
}

impl DchConfig {
    /// 384 kbit/s downlink with a 10 ms TTI, 64 kbit/s uplink with a 20 ms TTI (34.108's
    /// UL:64 DL:384 kbit/s PS RAB), BLER 0, 20 ms delay, the default RLC, 2 s session gap.
    pub fn new(name: &str, rnc: NodeId, ue: NodeId) -> Self {
        DchConfig {
            name: name.to_string(),
            rnc,
            ue,
            downlink: DchDirectionConfig {
                rate_bps: 384_000,
                tti: SimDuration::from_ms(10),
                bler: 0.0,
                errors: BlockErrorModel::Independent,
            },
            uplink: DchDirectionConfig {
                rate_bps: 64_000,
                tti: SimDuration::from_ms(20),
                bler: 0.0,
                errors: BlockErrorModel::Independent,
            },
            delay: SimDuration::from_ms(20),
            rlc: DchRlcConfig::default(),
            session_gap: SimDuration::from_secs(2),
        }
    }

    /// Checks every value, naming the offending key.
    pub fn validate(&self) -> Result<(), DchError> {
        if self.rnc == self.ue {
            return Err(DchError::invalid(
                "ue",
                self.ue,
                "a node other than the RNC",
            ));
        }
        if !(4..=MAX_PDU_BYTES - AMD_HEADER_BYTES).contains(&self.rlc.pdu_payload_bytes) {
            return Err(DchError::invalid(
                "rlc.pdu_payload_bytes",
                self.rlc.pdu_payload_bytes,
                "4 to 623 bytes (an AMD PDU of at most 5000 bits with room for a STATUS PDU)",
            ));
        }
        for (dir, d) in [("downlink", &self.downlink), ("uplink", &self.uplink)] {
            if d.rate_bps == 0 {
                return Err(DchError::invalid(
                    key(dir, "rate_bps"),
                    0,
                    "a positive rate",
                ));
            }
            if !DCH_TTIS_MS
                .iter()
                .any(|&ms| SimDuration::from_ms(ms) == d.tti)
            {
                return Err(DchError::invalid(
                    key(dir, "tti"),
                    format!("{} ns", d.tti.as_ns()),
                    "10, 20, 40 or 80 ms",
                ));
            }
            if !(0.0..1.0).contains(&d.bler) {
                return Err(DchError::invalid(
                    key(dir, "bler"),
                    d.bler,
                    "a probability in [0, 1)",
                ));
            }
            if let BlockErrorModel::GilbertElliott(ge) = &d.errors {
                ge.chain(d.bler, d.tti)
                    .map_err(|source| DchError::Errors { dir, source })?;
            }
            TransportFormat::new(d, self.rlc.pdu_payload_bytes).map_err(|e| e.in_direction(dir))?;
        }
        if let Some(m) = self.rlc.max_dat {
            if !(1..=40).contains(&m) {
                return Err(DchError::invalid(
                    "rlc.max_dat",
                    m,
                    "1 to 40 (25.331 MaxDAT), or none",
                ));
            }
        }
        if self.rlc.timer_poll == SimDuration::ZERO {
            return Err(DchError::invalid("rlc.timer_poll", 0, "a positive time"));
        }
        if self.session_gap == SimDuration::ZERO {
            return Err(DchError::invalid("session_gap", 0, "a positive time"));
        }
        self.rlc.am_config().validate()?;
        self.rlc.am_rx_config().validate()?;
        Ok(())
    }
}

fn key(dir: &str, k: &str) -> String {
    format!("{dir}.{k}")
}

/// How many transport blocks of what size one TTI of a direction carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TransportFormat {
    /// N, the transport blocks of the largest transport format.
    pub tbs_per_tti: u32,
    /// Transport block size (one AMD PDU), bytes.
    pub tb_bytes: u32,
    /// RLC data field per transport block, bytes.
    pub payload_bytes: u32,
    pub tti: SimDuration,
}

impl TransportFormat {
    /// `N = floor(rate · TTI / (8 · payload))`, at least 1.
    pub fn new(d: &DchDirectionConfig, payload_bytes: u32) -> Result<Self, DchError> {
        let bits_per_tti = u128::from(d.rate_bps) * u128::from(d.tti.as_ns()) / 1_000_000_000;
        let n = bits_per_tti / (8 * u128::from(payload_bytes.max(1)));
        if n == 0 || n > u128::from(u32::MAX) {
            return Err(DchError::invalid(
                "rate_bps",
                d.rate_bps,
                "a rate that fills at least one transport block per TTI",
            ));
        }
        Ok(TransportFormat {
            tbs_per_tti: n as u32,
            tb_bytes: payload_bytes + AMD_HEADER_BYTES,
            payload_bytes,
            tti: d.tti,
        })
    }

    /// RLC payload rate of the largest transport format, bit/s (equal to the nominal rate when
    /// it is a whole number of blocks per TTI).
    pub fn payload_rate_bps(&self) -> f64 {
        f64::from(self.tbs_per_tti) * f64::from(self.payload_bytes) * 8.0 / self.tti.as_secs_f64()
    }

    /// Transport-block bit rate of the largest transport format (RLC headers included), bit/s.
    pub fn tb_rate_bps(&self) -> f64 {
        f64::from(self.tbs_per_tti) * f64::from(self.tb_bytes) * 8.0 / self.tti.as_secs_f64()
    }
}

/// A configuration or call the DCH cannot accept; the message names the key.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum DchError {
    #[error("dch.{key}: {value} is invalid; expected {expected}")]
    InvalidConfig {
        key: String,
        value: String,
        expected: &'static str,
    },
    /// Block-error parameters that cannot give the direction's BLER; `source.key` is relative
    /// to the direction (`bler`, `errors.bad_share`, …).
    #[error("dch.{dir}.{source}")]
    Errors {
        dir: &'static str,
        source: BlockErrorsError,
    },
    #[error(transparent)]
    Rlc(#[from] RlcConfigError),
}

impl DchError {
    fn invalid(key: impl Into<String>, value: impl ToString, expected: &'static str) -> Self {
        DchError::InvalidConfig {
            key: key.into(),
            value: value.to_string(),
            expected,
        }
    }

    /// Prefixes the key with a direction (`downlink.` / `uplink.`).
    fn in_direction(self, dir: &str) -> Self {
        match self {
            DchError::InvalidConfig {
                key,
                value,
                expected,
            } => DchError::InvalidConfig {
                key: format!("{dir}.{key}"),
                value,
                expected,
            },
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(rate_bps: u64, tti_ms: u64) -> DchDirectionConfig {
        DchDirectionConfig {
            rate_bps,
            tti: SimDuration::from_ms(tti_ms),
            bler: 0.0,
            errors: BlockErrorModel::Independent,
        }
    }

    #[test]
    fn reference_bearers_carry_the_34_108_transport_block_counts() {
        for (rate, tti, n) in [
            (64_000, 20, 4),
            (128_000, 20, 8),
            (256_000, 20, 16),
            (384_000, 10, 12),
            (384_000, 20, 24),
        ] {
            let f = TransportFormat::new(&dir(rate, tti), 40).unwrap();
            assert_eq!(f.tbs_per_tti, n, "{rate} bit/s, {tti} ms");
            assert_eq!(f.tb_bytes * 8, 336);
            assert!((f.payload_rate_bps() - rate as f64).abs() < 1e-6);
        }
        let f = TransportFormat::new(&dir(384_000, 10), 40).unwrap();
        assert!((f.tb_rate_bps() - 403_200.0).abs() < 1e-6);
    }

    #[test]
    fn a_rate_between_formats_rounds_down_to_whole_blocks() {
        // 100 kbit/s × 10 ms = 1000 bits = 3.125 payloads of 320 bits.
        let f = TransportFormat::new(&dir(100_000, 10), 40).unwrap();
        assert_eq!(f.tbs_per_tti, 3);
        assert!((f.payload_rate_bps() - 96_000.0).abs() < 1e-6);
        let err = TransportFormat::new(&dir(8_000, 10), 40).unwrap_err();
        assert!(err.to_string().contains("rate_bps"), "{err}");
    }

    #[test]
    fn bad_values_are_refused_by_key() {
        let ok = DchConfig::new("d", NodeId(0), NodeId(1));
        assert_eq!(ok.validate(), Ok(()));
        let mut c = ok.clone();
        c.downlink.tti = SimDuration::from_ms(15);
        assert!(c
            .validate()
            .unwrap_err()
            .to_string()
            .starts_with("dch.downlink.tti:"));
        let mut c = ok.clone();
        c.uplink.bler = 1.0;
        assert!(c
            .validate()
            .unwrap_err()
            .to_string()
            .starts_with("dch.uplink.bler:"));
        let mut c = ok.clone();
        c.downlink.bler = f64::NAN;
        assert!(c.validate().is_err());
        let mut c = ok.clone();
        c.uplink.rate_bps = 1_000;
        assert!(c
            .validate()
            .unwrap_err()
            .to_string()
            .starts_with("dch.uplink.rate_bps:"));
        let mut c = ok.clone();
        c.rlc.max_dat = Some(0);
        assert!(c
            .validate()
            .unwrap_err()
            .to_string()
            .starts_with("dch.rlc.max_dat:"));
        let mut c = ok.clone();
        c.rlc.pdu_payload_bytes = 3;
        assert!(c
            .validate()
            .unwrap_err()
            .to_string()
            .starts_with("dch.rlc.pdu_payload_bytes:"));
        let mut c = ok.clone();
        c.ue = c.rnc;
        assert!(c.validate().unwrap_err().to_string().starts_with("dch.ue:"));
        let mut c = ok;
        c.rlc.max_dat = None;
        assert_eq!(c.validate(), Ok(()));
        assert_eq!(c.rlc.am_config().max_retx_threshold, None);
    }

    #[test]
    fn max_dat_allows_that_many_transmissions() {
        let c = DchRlcConfig {
            max_dat: Some(6),
            ..DchRlcConfig::default()
        };
        let am = c.am_config();
        // 25.322 §11.6 counted as in RlcAmConfig::wcdma: discard when a 7th transmission
        // would be needed.
        assert_eq!(am.max_retx_threshold, Some(5));
        assert_eq!(am.pdu_mode, PduMode::Fixed { bytes: 42 });
        assert_eq!(c.am_rx_config().pdu_mode, PduMode::Flexible);
        assert_eq!(am.t_reordering, SimDuration::ZERO);
    }
}
