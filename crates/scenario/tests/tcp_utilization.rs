mod tcp_model;
use tcp_model::*;

#[test]
fn explore() {
    for q in ["50p", "100p"] {
    for cc in ["newreno", "cubic", "bbr", "reno"] {
        let mut d = Dumbbell::new("30s", "10Mbps", "20ms", &format!("{{ kind = \"droptail\", limit = \"{q}\" }}"));
        d.tcp_flow("bulk", cc, "0s", "");
        d.extra = "[trace]\ntcp = [\"delivered\"]\n".into();
        let t = std::time::Instant::now();
        let out = d.run(1);
        let s = &out.summary;
        let del = tcp_series(&out, "bulk", "delivered");
        let at = |t_ns: u64| del.iter().take_while(|r| r.0 <= t_ns).last().map_or(0.0, |r| r.1);
        let late = (at(30_000_000_000) - at(5_000_000_000)) * 8.0 / 25.0;
        let cap = payload_capacity_bps(10e6, MSS, HEADER_BYTES_TS);
        println!("{q} {cc}: goodput {:.4} late {:.4} util {:.4} retx {} to {} qf {} srtt {} wall {:?}",
            num(s, &["flows","bulk","goodput_bps"]) / cap, late / cap, num(s, &["links","bottleneck","a_to_b","utilization"]),
            num(s, &["flows","bulk","sender","retransmissions"]),
            num(s, &["flows","bulk","sender","timeouts"]),
            num(s, &["links","bottleneck","a_to_b","drops","queue_full"]),
            num(s, &["flows","bulk","sender","srtt_s"]), t.elapsed());
    }}
}
