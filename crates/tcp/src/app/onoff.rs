//! An on/off source over TCP: exponential on and off periods; during on periods the
//! application produces data at a constant rate and writes it as the send buffer allows.

use celltcp_engine::{RngStream, SimDuration, SimTime};
use celltcp_net::agent::ReportEntry;

use super::{AppRequest, Connection, TcpApplication};

/// Granularity of writes during on periods, bytes (one typical segment).
const WRITE_QUANTUM_BYTES: u64 = 1448;

#[derive(Clone, Debug)]
pub struct OnOff {
    /// Mean of the exponential on period.
    pub on_mean: SimDuration,
    /// Mean of the exponential off period.
    pub off_mean: SimDuration,
    /// Data rate during on periods, bits per second.
    pub rate_bps: u64,
    connected: bool,
    on: bool,
    period_end: SimTime,
    last: SimTime,
    /// Produced but not yet written, in bits (kept in bits so no rounding accumulates).
    backlog_bits: u128,
    generated_bits: u128,
    written: u64,
}

impl OnOff {
    /// Starts with an on period at the agent's start.
    pub fn new(on_mean: SimDuration, off_mean: SimDuration, rate_bps: u64) -> Self {
        OnOff {
            on_mean,
            off_mean,
            rate_bps,
            connected: false,
            on: false,
            period_end: SimTime::ZERO,
            last: SimTime::ZERO,
            backlog_bits: 0,
            generated_bits: 0,
            written: 0,
        }
    }

    fn produce(&mut self, from: SimTime, to: SimTime) {
        if self.on && to > from {
            let bits = (to - from).as_ns() as u128 * self.rate_bps as u128 / 1_000_000_000;
            self.backlog_bits += bits;
            self.generated_bits += bits;
        }
    }

    /// Advances the on/off process to `now`, producing data over the on parts.
    fn advance(&mut self, now: SimTime, rng: &mut RngStream) {
        while now >= self.period_end {
            let end = self.period_end;
            self.produce(self.last, end);
            self.last = self.last.max(end);
            self.on = !self.on;
            let mean = if self.on { self.on_mean } else { self.off_mean };
            let d =
                SimDuration::from_secs_f64(rng.exponential(mean.as_secs_f64())).max(SimDuration(1));
            self.period_end = end + d;
        }
        self.produce(self.last, now);
        self.last = now;
    }

    /// Bytes produced so far.
    pub fn generated_bytes(&self) -> u64 {
        (self.generated_bits / 8) as u64
    }
}

impl TcpApplication for OnOff {
    fn poll(
        &mut self,
        now: SimTime,
        conn: Option<&mut dyn Connection>,
        rng: &mut RngStream,
    ) -> AppRequest {
        if !self.connected {
            self.connected = true;
            self.last = now;
            self.period_end = now;
            self.advance(now, rng);
            return AppRequest::Connect;
        }
        self.advance(now, rng);
        if let Some(conn) = conn {
            let bytes = (self.backlog_bits / 8) as u64;
            if bytes > 0 {
                let n = conn.write(bytes.min(conn.send_space()));
                self.backlog_bits -= n as u128 * 8;
                self.written += n;
            }
        }
        AppRequest::None
    }

    fn next_timer(&self) -> Option<SimTime> {
        if self.on && self.rate_bps > 0 {
            let quantum = SimDuration::transmission(WRITE_QUANTUM_BYTES, self.rate_bps);
            Some(self.period_end.min(self.last + quantum))
        } else if self.connected {
            Some(self.period_end)
        } else {
            None
        }
    }

    fn report(&self, _now: SimTime, out: &mut Vec<ReportEntry>) {
        out.push(("app_bytes_generated", self.generated_bytes() as f64));
        out.push(("app_bytes_written", self.written as f64));
    }
}
