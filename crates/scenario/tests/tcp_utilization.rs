mod tcp_model;
use tcp_model::*;

#[test]
fn explore() {
    for cc in ["newreno", "cubic", "bbr", "reno"] {
        let mut d = Dumbbell::new("30s", "10Mbps", "20ms", "{ kind = \"droptail\", limit = \"50p\" }");
        d.tcp_flow("bulk", cc, "0s", "");
        d.extra = "[trace]\ntcp = [\"delivered\", \"cwnd\"]\n".into();
        let t = std::time::Instant::now();
        let out = d.run(1);
        let s = &out.summary;
        let del = tcp_series(&out, "bulk", "delivered");
        let at = |t_ns: u64| del.iter().take_while(|r| r.0 <= t_ns).last().map_or(0.0, |r| r.1);
        let late = (at(30_000_000_000) - at(5_000_000_000)) * 8.0 / 25.0;
        println!("{cc}: goodput {} late {late} util {} retx {} qf {} srtt {} wall {:?}",
            num(s, &["flows","bulk","goodput_bps"]), num(s, &["links","bottleneck","a_to_b","utilization"]),
            num(s, &["flows","bulk","sender","retransmissions"]),
            num(s, &["links","bottleneck","a_to_b","drops","queue_full"]),
            num(s, &["flows","bulk","sender","srtt_s"]), t.elapsed());
    }
}
