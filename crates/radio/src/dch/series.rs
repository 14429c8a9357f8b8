//! The per-interval time series of a DCH (`[trace] dch`, docs/wcdma.md): the figures
//! [`DchLink::sample`](super::DchLink) gives at each sampling instant, and how two consecutive
//! samples become one row of the series.
//!
//! A sample holds two gauges (the SDU bytes waiting at the RNC and at the UE) and cumulative
//! counters since the start of the run; a row at time t covers the interval since the previous
//! sample: counts are the counters' increments, rates are increments over the interval's
//! length, ratios are ratios of increments (NaN when the denominator did not move).

/// Figures of a sample, in the order [`DchSample::figures`] lists them: the two gauges, then
/// the counters (downlink unless `uplink.`).
pub const SAMPLE_FIGURES: [&str; 14] = [
    "buffer_bytes",
    "uplink.buffer_bytes",
    "sdu_bytes_delivered",
    "sdus_delivered",
    "delay_sum_s",
    "pdus_sent",
    "pdus_retransmitted",
    "tbs_sent",
    "tbs_lost",
    "max_dat_discards",
    "mrw_pdus",
    "rlc_busy_s",
    "uplink.tbs_sent",
    "uplink.status_pdus",
];

/// Columns of a row, in order, after the time and the channel's name:
///
/// | column | unit | what, over the interval |
/// |---|---|---|
/// | `rlc_throughput_bps` | bit/s | SDU (IP) bits delivered in order to the UE / interval |
/// | `sdus_delivered` | SDUs | delivered to the UE |
/// | `delay_mean_s` | s | mean RNC-to-UE delay of those SDUs (NaN if none) |
/// | `pdus_sent` | PDUs | new AMD PDUs sent by the RNC |
/// | `pdus_retransmitted` | PDUs | AMD PDUs retransmitted by the RNC |
/// | `tbs_sent`, `tbs_lost` | blocks | downlink transport blocks sent, lost |
/// | `bler_measured` | — | `tbs_lost / tbs_sent` (NaN if none sent) |
/// | `max_dat_discards` | SDUs | discarded after MaxDAT transmissions |
/// | `mrw_pdus` | blocks | downlink blocks carrying an MRW |
/// | `busy_fraction` | — | share of the interval the downlink RLC held data |
/// | `uplink_tbs_sent` | blocks | uplink transport blocks sent |
/// | `uplink_status_pdus` | blocks | uplink blocks carrying STATUS PDUs on the downlink data |
/// | `buffer_bytes` | bytes | SDU bytes waiting at the RNC at the end of the interval |
/// | `uplink_buffer_bytes` | bytes | SDU bytes waiting at the UE at the end of the interval |
/// | `interval_s` | s | the interval's length |
pub const SERIES_COLUMNS: [&str; 16] = [
    "rlc_throughput_bps",
    "sdus_delivered",
    "delay_mean_s",
    "pdus_sent",
    "pdus_retransmitted",
    "tbs_sent",
    "tbs_lost",
    "bler_measured",
    "max_dat_discards",
    "mrw_pdus",
    "busy_fraction",
    "uplink_tbs_sent",
    "uplink_status_pdus",
    "buffer_bytes",
    "uplink_buffer_bytes",
    "interval_s",
];

/// One sample: the values of [`SAMPLE_FIGURES`], in that order.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DchSample(pub [f64; SAMPLE_FIGURES.len()]);

impl DchSample {
    /// The sample from figures given by name (as the world records them); `None` if one of
    /// [`SAMPLE_FIGURES`] is missing.
    pub fn from_figures<'a>(figures: impl IntoIterator<Item = (&'a str, f64)>) -> Option<Self> {
        let mut values = [f64::NAN; SAMPLE_FIGURES.len()];
        for (key, value) in figures {
            if let Some(i) = SAMPLE_FIGURES.iter().position(|k| *k == key) {
                values[i] = value;
            }
        }
        values
            .iter()
            .all(|v| !v.is_nan())
            .then_some(DchSample(values))
    }

    /// (name, value) pairs in the order of [`SAMPLE_FIGURES`].
    pub fn figures(&self) -> impl Iterator<Item = (&'static str, f64)> + '_ {
        SAMPLE_FIGURES.iter().copied().zip(self.0.iter().copied())
    }

    fn get(&self, key: &str) -> f64 {
        SAMPLE_FIGURES
            .iter()
            .position(|k| *k == key)
            .map_or(f64::NAN, |i| self.0[i])
    }

    /// The row of [`SERIES_COLUMNS`] for the interval from `prev` (taken `interval_s` seconds
    /// earlier; the zero sample at the start of the run) to `self`.
    pub fn interval_row(&self, prev: &DchSample, interval_s: f64) -> [f64; SERIES_COLUMNS.len()] {
        let d = |key: &str| self.get(key) - prev.get(key);
        let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { f64::NAN };
        let sdus = d("sdus_delivered");
        [
            ratio(d("sdu_bytes_delivered") * 8.0, interval_s),
            sdus,
            ratio(d("delay_sum_s"), sdus),
            d("pdus_sent"),
            d("pdus_retransmitted"),
            d("tbs_sent"),
            d("tbs_lost"),
            ratio(d("tbs_lost"), d("tbs_sent")),
            d("max_dat_discards"),
            d("mrw_pdus"),
            ratio(d("rlc_busy_s"), interval_s),
            d("uplink.tbs_sent"),
            d("uplink.status_pdus"),
            self.get("buffer_bytes"),
            self.get("uplink.buffer_bytes"),
            interval_s,
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_holds_the_increments_of_the_interval() {
        let mut a = DchSample::default();
        let mut b = DchSample::default();
        let set = |s: &mut DchSample, key: &str, v: f64| {
            let i = SAMPLE_FIGURES.iter().position(|k| *k == key).unwrap();
            s.0[i] = v;
        };
        set(&mut a, "sdu_bytes_delivered", 1_000.0);
        set(&mut b, "sdu_bytes_delivered", 5_000.0);
        set(&mut a, "sdus_delivered", 1.0);
        set(&mut b, "sdus_delivered", 5.0);
        set(&mut b, "delay_sum_s", 0.8);
        set(&mut a, "tbs_sent", 100.0);
        set(&mut b, "tbs_sent", 140.0);
        set(&mut b, "tbs_lost", 4.0);
        set(&mut b, "rlc_busy_s", 0.05);
        set(&mut b, "buffer_bytes", 3_000.0);
        let row = b.interval_row(&a, 0.1);
        let col = |name: &str| row[SERIES_COLUMNS.iter().position(|c| *c == name).unwrap()];
        assert_eq!(col("rlc_throughput_bps"), 320_000.0);
        assert_eq!(col("sdus_delivered"), 4.0);
        assert!((col("delay_mean_s") - 0.2).abs() < 1e-12);
        assert_eq!(col("tbs_sent"), 40.0);
        assert_eq!(col("bler_measured"), 0.1);
        assert_eq!(col("busy_fraction"), 0.5);
        assert_eq!(col("buffer_bytes"), 3_000.0);
        assert_eq!(col("interval_s"), 0.1);
        // Nothing sent: no BLER to measure, no delay.
        let idle = b.interval_row(&b, 0.1);
        assert!(idle[7].is_nan() && idle[2].is_nan());
    }

    #[test]
    fn a_sample_needs_every_figure() {
        let full = DchSample([1.0; SAMPLE_FIGURES.len()]);
        let back = DchSample::from_figures(full.figures()).unwrap();
        assert_eq!(back, full);
        assert_eq!(DchSample::from_figures(full.figures().skip(1)), None);
    }
}
