//! The summary's figure tables: the named numbers the components report about themselves
//! (a TCP sender's retransmissions, a cell's PRB utilisation, a middlebox's local
//! retransmissions), each a number or `null` (no sample).
//!
//! The components report their figures as `(name, value)` lists through trait objects
//! (`Agent::report`, `Medium::report`, `Middlebox::report`), so the summary cannot take their
//! names from a Rust type. They are declared here instead, one catalogue per table, and the
//! output schema lists them as the table's properties. The declaration is kept honest by
//! `tests/python/test_output_contract.py`: every figure the examples and its variants (Snoop,
//! ELN, a split-TCP proxy, on-off and bounded bulk applications, a UE with a downlink loss
//! model) write must be declared, and every declared figure must be written by one of them.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::marker::PhantomData;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

/// The declared figures of one table: name and meaning (with its unit).
pub trait FigureCatalog: 'static {
    /// The table's name in the output schema's `$defs`.
    const NAME: &'static str;
    /// What the table holds.
    const DESCRIPTION: &'static str;
    /// Every figure a component may write into the table.
    const FIGURES: &'static [(&'static str, &'static str)];
}

/// A table of figures (name → number, `null` when not finite), described by catalogue `C`.
/// Serialised as a JSON object; `#[serde(flatten)]` puts its figures beside a struct's fields.
pub struct Figures<C> {
    values: BTreeMap<String, Option<f64>>,
    catalog: PhantomData<C>,
}

impl<C> Default for Figures<C> {
    fn default() -> Self {
        Figures {
            values: BTreeMap::new(),
            catalog: PhantomData,
        }
    }
}

impl<C> Clone for Figures<C> {
    fn clone(&self) -> Self {
        Figures {
            values: self.values.clone(),
            catalog: PhantomData,
        }
    }
}

impl<C> std::fmt::Debug for Figures<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.values.fmt(f)
    }
}

impl<C> Figures<C> {
    /// Sets `name` to `value` (`null` when not finite); a later value of a name replaces an
    /// earlier one.
    pub fn insert(&mut self, name: impl Into<String>, value: f64) {
        self.values
            .insert(name.into(), value.is_finite().then_some(value));
    }

    /// The value of `name`: `Some(None)` for a figure without a sample.
    pub fn get(&self, name: &str) -> Option<Option<f64>> {
        self.values.get(name).copied()
    }
}

impl<C, K: Into<String>> FromIterator<(K, f64)> for Figures<C> {
    fn from_iter<I: IntoIterator<Item = (K, f64)>>(iter: I) -> Self {
        let mut figures = Figures::default();
        for (k, v) in iter {
            figures.insert(k, v);
        }
        figures
    }
}

impl<C> Serialize for Figures<C> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.values.serialize(serializer)
    }
}

/// The schema of a figure: a number, or null without a sample.
fn figure_schema(description: &str) -> Value {
    serde_json::json!({ "type": ["number", "null"], "description": description })
}

impl<C: FigureCatalog> JsonSchema for Figures<C> {
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed(C::NAME)
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let properties: Map<String, Value> = C::FIGURES
            .iter()
            .map(|(name, description)| (name.to_string(), figure_schema(description)))
            .collect();
        json_schema!({
            "type": "object",
            "description": C::DESCRIPTION,
            "properties": properties,
            // A component of a newer build may write a figure this schema does not know.
            "additionalProperties": { "type": ["number", "null"] },
        })
    }
}

/// Declares a figure catalogue.
macro_rules! catalog {
    ($(#[$doc:meta])* $marker:ident, $name:literal, $description:literal, [$(($figure:literal, $meaning:literal)),* $(,)?]) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub enum $marker {}

        impl FigureCatalog for $marker {
            const NAME: &'static str = $name;
            const DESCRIPTION: &'static str = $description;
            const FIGURES: &'static [(&'static str, &'static str)] = &[$(($figure, $meaning)),*];
        }
    };
}

catalog!(
    /// `flows.<flow>.sender`: the sending agent's figures (a TCP sender with its application,
    /// or a UDP source).
    SenderFigures,
    "SenderFigures",
    "The sending agent's own figures: a TCP sender's (celltcp-tcp TcpStats) with its application's, or a UDP source's.",
    [
        ("connections", "TCP: connections opened"),
        ("bytes_acked", "TCP: payload bytes acknowledged by the receiver"),
        ("segments_sent", "TCP: segments sent of any kind, ACK copies included"),
        ("bytes_sent", "TCP: payload bytes sent, retransmissions included"),
        ("retransmissions", "TCP: data segments retransmitted (retx_fast + retx_rto)"),
        ("retx_fast", "TCP: data segments retransmitted by fast retransmit or SACK recovery"),
        ("retx_rto", "TCP: data segments retransmitted after a retransmission timeout"),
        ("timeouts", "TCP: retransmission-timer expiries with data outstanding"),
        ("lost_retransmissions", "TCP: ACKs in RTO recovery that found go-back-N retransmissions lost (RFC 8985 §6.2)"),
        ("spurious_undos", "TCP: reductions undone as spurious (F-RTO or Eifel)"),
        ("fast_recoveries", "TCP: entries into fast recovery"),
        ("ecn_reductions", "TCP: window reductions triggered by ECN-Echo"),
        ("eln_acks_received", "TCP: ACKs received carrying the ELN mark"),
        ("eln_recoveries", "TCP: fast recoveries for a hole ELN marked, without a window reduction"),
        ("eln_timeouts", "TCP: timeouts for a hole ELN marked, without a window reduction"),
        ("dupacks_received", "TCP: duplicate ACKs received"),
        ("acks_received", "TCP: ACKs received"),
        ("acks_sent", "TCP: segments without payload sent with the ACK bit"),
        ("max_cwnd_bytes", "TCP: largest congestion window, bytes"),
        ("srtt_s", "TCP: smoothed RTT at the end, seconds"),
        ("min_rtt_s", "TCP: minimum RTT measured, seconds"),
        ("app_bytes_written", "bulk, on-off: bytes the application wrote"),
        ("transfer_time_s", "bulk with bytes: time to transfer them all, seconds"),
        ("app_bytes_generated", "on-off: bytes the source generated"),
        ("ftp_transfers", "FTP: files transferred"),
        ("ftp_mean_transfer_time_s", "FTP: mean transfer time of a file, seconds"),
        ("ftp_mean_file_bytes", "FTP: mean size of the files transferred, bytes"),
        ("ftp_requests", "FTP with inter_request_mean: requests made"),
        ("ftp_requests_delayed", "FTP with inter_request_mean: requests that waited for the previous transfer"),
        ("ftp_mean_inter_request_s", "FTP with inter_request_mean: mean time between request starts, seconds"),
        ("ftp_requested_bytes", "FTP with inter_request_mean: bytes requested"),
        ("ftp_due_times_sum_s", "FTP with inter_request_mean: sum of the requests' due times, seconds"),
        ("ftp_request_times_sum_s", "FTP with inter_request_mean: sum of the requests' start times, seconds"),
        ("ftp_hold_s", "FTP with inter_request_mean: sum of the requests' waits past their due times, seconds"),
        ("packets_sent", "UDP: datagrams sent"),
        ("payload_bytes_sent", "UDP: payload bytes sent"),
    ]
);

catalog!(
    /// `flows.<flow>.receiver`: the receiving agent's figures (a TCP receiver or a UDP sink).
    ReceiverFigures,
    "ReceiverFigures",
    "The receiving agent's own figures: a TCP receiver's or a UDP sink's.",
    [
        ("connections", "TCP: connections accepted"),
        ("bytes_delivered", "TCP: payload bytes delivered in order to the application"),
        ("goodput_bps", "TCP: bytes delivered over the time from the first SYN to the last delivery, bits per second"),
        ("acks_sent", "TCP: ACKs sent, copies included"),
        ("ack_copies_sent", "TCP: extra ACK copies sent by receiver ACK control"),
        ("ce_received", "TCP: data segments received carrying CE"),
        ("packets_received", "UDP: datagrams received"),
        ("payload_bytes_received", "UDP: payload bytes received"),
        ("ip_bytes_received", "UDP: IP bytes received"),
        ("reordered", "UDP: datagrams received after one sent later"),
    ]
);

catalog!(
    /// `cells.<cell>` (and `ran`): a cell's or a radio access network's own figures.
    CellFigures,
    "CellFigures",
    "A cell's own figures (cells.<cell>); for a radio access network (ran), its handover figures.",
    [
        ("prb_utilization", "cell: share of the PRB-TTIs allocated"),
        ("ttis_processed", "cell: TTIs processed"),
        ("handovers", "ran: X2 (Xn between gNBs) handovers started"),
        ("handovers_completed", "ran: X2 (Xn) handovers completed"),
        ("handovers_preparation_failed", "ran: handovers whose preparation failed"),
        ("handovers_radio_link_failure", "ran: X2 (Xn) handovers ended by a radio link failure"),
        ("radio_link_failures", "ran: radio link failures"),
        ("packets_forwarded", "ran: packets forwarded over X2-U (Xn-U between gNBs)"),
        ("packets_dropped_handover", "ran: packets the handover procedures lost"),
        ("packets_duplicated", "ran: packets UEs received twice"),
        ("packets_reordered", "ran: packets delivered after one of the same flow sent later"),
        ("endc_pdus_lte", "ran with EN-DC: PDCP PDUs the master numbered and sent over its LTE leg"),
        ("endc_pdus_nr", "ran with EN-DC: PDCP PDUs the master numbered and sent to the NR secondary over X2-U"),
        ("endc_pdus_recovered", "ran with EN-DC: PDCP PDUs moved to the other leg at a leg switch (data recovery)"),
        ("endc_switches_to_lte", "ran with EN-DC: switches of the downlink to LTE on an NR outage"),
        ("endc_switches_to_nr", "ran with EN-DC: switches of the downlink back to NR"),
        ("endc_pdcp_duplicates", "ran with EN-DC: PDCP PDUs the UEs' receivers discarded as duplicates"),
        ("endc_pdcp_late", "ran with EN-DC: PDCP PDUs the UEs' receivers discarded as late (after t-Reordering gave them up)"),
        ("endc_t_reordering_expiries", "ran with EN-DC: t-Reordering expiries of the UEs' PDCP receivers"),
        ("endc_pdcp_sdus_delivered", "ran with EN-DC: SDUs the UEs' PDCP receivers delivered upwards, each COUNT once and in order"),
        ("endc_refused_lte", "ran with EN-DC: PDCP PDUs the LTE leg's RLC buffer refused"),
        ("endc_refused_nr", "ran with EN-DC: packets lost because the NR secondary's RLC buffer had no room (with nr_only, dropped at the master)"),
    ]
);

catalog!(
    /// `cells.<cell>.ues.<ue>` (and `ran.ues.<ue>`): a UE's figures in its cell.
    UeFigures,
    "UeFigures",
    "A UE's figures in a cell (celltcp-radio UeReport); under ran, those of its downlink loss model.",
    [
        ("phy_throughput_bps", "bits of transport blocks decoded, per second of the run"),
        ("rlc_throughput_bps", "bits of RLC SDUs delivered, per second of the run"),
        ("sdus_delivered", "RLC SDUs (IP packets) delivered"),
        ("harq_transmissions", "HARQ transmissions"),
        ("harq_retransmissions", "HARQ retransmissions"),
        ("harq_residual_failures", "transport blocks lost after the last HARQ transmission"),
        ("rlc_retransmissions", "RLC AM retransmissions"),
        ("rlc_discards", "RLC SDUs discarded"),
        ("rlc_max_retx_reached", "RLC PDUs that reached maxRetxThreshold"),
        ("radio_link_failure", "1 when the UE declared a radio link failure, else 0"),
        ("sdus_refused", "IP packets the RLC buffer refused"),
        ("queueing_delay_mean_s", "mean RLC queueing delay, seconds"),
        ("queueing_delay_max_s", "largest RLC queueing delay, seconds"),
        ("buffer_mean_bytes", "time-weighted mean RLC buffer, bytes"),
        ("buffer_max_bytes", "largest RLC buffer, bytes"),
        ("sinr_mean_db", "mean SINR over the active TTIs, dB"),
        ("cqi_mean", "mean reported CQI"),
        ("mcs_mean", "mean MCS of new transport blocks"),
        ("prbs", "PRB-TTIs allocated to the UE"),
        ("uplink_lost", "items (IP packets, STATUS PDUs) lost on the uplink"),
        ("downlink_lost", "IP packets lost by the UE's receiver (UEs with a downlink loss model)"),
        ("blocked_fraction", "share of the time the direct path was blocked (NR cells with nr.channel blockage)"),
        ("blockage_events", "blockage onsets (NR cells with nr.channel blockage)"),
    ]
);

catalog!(
    /// `dch.<channel>`: a dedicated channel's figures (its downlink's, and the channel's).
    DchFigures,
    "DchFigures",
    "A dedicated channel's figures: the channel's RLC activity, then its downlink's (celltcp-radio DchReport).",
    [
        ("rlc_throughput_bps", "SDU bits delivered over the RLC's active time, per second"),
        ("busy_throughput_bps", "SDU bits delivered over the RLC's busy time, per second"),
        ("rlc_active_s", "time the RLC had data, seconds"),
        ("rlc_busy_s", "time the RLC was sending, seconds"),
        ("sessions", "activity sessions (gaps longer than the inactivity time end one)"),
        ("rate_bps", "the channel's bit rate"),
        ("tbs_per_tti", "transport blocks per TTI"),
        ("payload_rate_bps", "RLC payload bit rate"),
        ("tti_s", "TTI, seconds"),
        ("sdus_delivered", "RLC SDUs delivered"),
        ("sdu_bytes_delivered", "RLC SDU bytes delivered"),
        ("run_throughput_bps", "SDU bits delivered per second of the run"),
        ("sdus_refused", "SDUs the buffer refused"),
        ("delay_mean_s", "mean SDU delay through the channel, seconds"),
        ("delay_max_s", "largest SDU delay, seconds"),
        ("pdus_sent", "RLC PDUs sent"),
        ("pdus_retransmitted", "RLC PDUs retransmitted"),
        ("tbs_sent", "transport blocks sent"),
        ("tbs_lost", "transport blocks lost"),
        ("bler_measured", "measured block error ratio"),
        ("status_pdus", "STATUS PDUs sent"),
        ("mrw_pdus", "MRW SUFIs sent"),
        ("max_dat_discards", "SDUs discarded at MaxDAT"),
        ("pdus_discarded", "PDUs discarded"),
        ("sdus_lost", "SDUs lost"),
        ("ttis", "TTIs of the run"),
        ("ttis_bad", "TTIs in the channel's bad state"),
        ("buffer_mean_bytes", "time-weighted mean buffer, bytes"),
        ("buffer_max_bytes", "largest buffer, bytes"),
    ]
);

catalog!(
    /// `dch.<channel>.uplink`: the uplink's figures of a dedicated channel.
    DchUplinkFigures,
    "DchUplinkFigures",
    "A dedicated channel's uplink figures (as the downlink's in DchFigures).",
    [
        ("rate_bps", "the uplink's bit rate"),
        ("tbs_per_tti", "transport blocks per TTI"),
        ("payload_rate_bps", "RLC payload bit rate"),
        ("tti_s", "TTI, seconds"),
        ("sdus_delivered", "RLC SDUs delivered"),
        ("sdu_bytes_delivered", "RLC SDU bytes delivered"),
        ("run_throughput_bps", "SDU bits delivered per second of the run"),
        ("sdus_refused", "SDUs the buffer refused"),
        ("delay_mean_s", "mean SDU delay, seconds"),
        ("delay_max_s", "largest SDU delay, seconds"),
        ("pdus_sent", "RLC PDUs sent"),
        ("pdus_retransmitted", "RLC PDUs retransmitted"),
        ("tbs_sent", "transport blocks sent"),
        ("tbs_lost", "transport blocks lost"),
        ("bler_measured", "measured block error ratio"),
        ("status_pdus", "STATUS PDUs sent"),
        ("mrw_pdus", "MRW SUFIs sent"),
        ("max_dat_discards", "SDUs discarded at MaxDAT"),
        ("pdus_discarded", "PDUs discarded"),
        ("sdus_lost", "SDUs lost"),
        ("ttis", "TTIs of the run"),
        ("ttis_bad", "TTIs in the bad state"),
        ("buffer_mean_bytes", "time-weighted mean buffer, bytes"),
        ("buffer_max_bytes", "largest buffer, bytes"),
    ]
);

catalog!(
    /// `middleboxes.<name>`: a middlebox's own figures (beside what the network counted).
    MiddleboxFigures,
    "MiddleboxFigures",
    "A middlebox's own figures: Snoop's, ELN's or the split-TCP proxy's.",
    [
        ("connections", "snoop: connections tracked"),
        ("segments_cached", "snoop: segments cached"),
        ("cache_full", "snoop: segments not cached, the cache being full"),
        ("cache_hits", "snoop: duplicate ACKs answered from the cache"),
        ("cache_misses", "snoop: losses whose segment was not cached"),
        ("local_retransmissions", "snoop: local retransmissions"),
        ("local_timeouts", "snoop: local retransmission timeouts"),
        ("dupacks_suppressed", "snoop: duplicate ACKs suppressed"),
        ("dupacks_passed", "snoop: duplicate ACKs passed on"),
        ("old_acks_dropped", "snoop: old ACKs dropped"),
        ("acks_generated", "snoop: ACKs generated"),
        ("sack_blocks_removed", "snoop: SACK blocks removed"),
        ("partial_ack_retransmissions", "snoop: retransmissions on a partial ACK"),
        ("sender_retransmissions", "snoop: retransmissions by the sender seen"),
        ("losses_recorded", "eln: losses recorded"),
        ("acks_marked", "eln: ACKs marked"),
        ("holes_retransmitted", "eln: recorded holes retransmitted"),
        ("holes_evicted", "eln: recorded holes evicted"),
        ("connections_split", "split_tcp: connections split"),
        ("connections_active", "split_tcp: connections open at the end"),
        ("bytes_relayed_to_mobile", "split_tcp: bytes relayed to the mobile"),
        ("bytes_relayed_to_server", "split_tcp: bytes relayed to the server"),
        ("relay_max_bytes", "split_tcp: largest relay buffer, bytes"),
        ("retransmissions_to_mobile", "split_tcp: retransmissions towards the mobile"),
        ("timeouts_to_mobile", "split_tcp: timeouts towards the mobile"),
        ("retransmissions_to_server", "split_tcp: retransmissions towards the server"),
        ("timeouts_to_server", "split_tcp: timeouts towards the server"),
        ("srtt_to_mobile_s", "split_tcp: smoothed RTT towards the mobile, seconds"),
        ("srtt_to_server_s", "split_tcp: smoothed RTT towards the server, seconds"),
        ("min_rtt_to_mobile_s", "split_tcp: minimum RTT towards the mobile, seconds"),
        ("min_rtt_to_server_s", "split_tcp: minimum RTT towards the server, seconds"),
    ]
);
