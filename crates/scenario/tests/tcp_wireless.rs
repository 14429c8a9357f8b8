mod wireless;
use wireless::*;

fn spike(tcp: &str, dir: &str) {
    let mut c = Chain::new("8s", "newreno");
    c.tcp = tcp.into();
    c.extra = format!("[trace]\ntcp = [\"cwnd\", \"ssthresh\", \"retx_rto\", \"spurious_undo\", \"cc_state\"]\n\n\
        [[events]]\nat = \"4s\"\nlink = \"access\"\ndirection = \"{dir}\"\ndelay = \"1505ms\"\n\n\
        [[events]]\nat = \"4.1s\"\nlink = \"access\"\ndirection = \"{dir}\"\ndelay = \"5ms\"\n");
    let out = c.run(1);
    let s = &out.summary["flows"]["bulk"]["sender"];
    println!("== {tcp} {dir}: goodput {} timeouts {} undos {} retx_rto {} retx_fast {}", bulk(&out,&["goodput_bps"]), s["timeouts"], s["spurious_undos"], s["retx_rto"], s["retx_fast"]);
    let cw = tcp_series(&out, "bulk", "cwnd");
    let sel: Vec<_> = cw.iter().filter(|r| r.0 > 3_900_000_000 && r.0 < 6_500_000_000).collect();
    println!("cwnd n={} {:?}", sel.len(), &sel[..sel.len().min(40)]);
    println!("undo {:?}", tcp_series(&out, "bulk", "spurious_undo"));
    let r = tcp_series(&out, "bulk", "retx_rto");
    println!("retx_rto n={} {:?}", r.len(), &r[..r.len().min(10)]);
    println!("ssthresh {:?}", tcp_series(&out, "bulk", "ssthresh").iter().filter(|r| r.0 > 3_900_000_000).take(10).collect::<Vec<_>>());
}

#[test]
fn explore_spike() {
    for dir in ["both", "a_to_b"] {
        spike("min_rto = \"1s\"", dir);
        spike("frto = true\nmin_rto = \"1s\"", dir);
        spike("eifel = true\nmin_rto = \"1s\"", dir);
        spike("frto = true\nsack = false", dir);
    }
}
