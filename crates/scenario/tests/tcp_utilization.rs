mod tcp_model;
use tcp_model::*;

#[test]
fn explore() {
    for cc in ["newreno"] {
        let mut d = Dumbbell::new("3s", "10Mbps", "20ms", "{ kind = \"droptail\", limit = \"50p\" }");
        d.tcp_flow("bulk", cc, "0s", "");
        d.extra = "[trace]\ntcp = [\"cwnd\", \"ssthresh\", \"cc_state\", \"retx_fast\", \"retx_rto\", \"bytes_in_flight\"]\n".into();
        let out = d.run(1);
        println!("{}", serde_json::to_string_pretty(&out.summary["flows"]).unwrap());
        for v in ["cwnd", "ssthresh", "cc_state", "retx_fast", "retx_rto"] {
            let s = tcp_series(&out, "bulk", v);
            println!("{v}: n={} {:?}", s.len(), &s[..s.len().min(60)]);
        }
    }
}
