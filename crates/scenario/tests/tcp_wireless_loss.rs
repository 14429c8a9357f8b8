mod wireless;
use wireless::*;

#[test]
fn explore_table55() {
    for p in ["1e-3", "5e-3", "1e-2"] {
        for cc in ["newreno", "westwood", "petra"] {
            let mut g = vec![];
            let mut extra = vec![];
            for seed in 1..=5 {
                let mut c = Chain::new("10s", cc);
                c.access_a_to_b = format!("loss = {{ kind = \"bernoulli\", p = {p} }}");
                let out = c.run(seed);
                g.push(bulk(&out, &["goodput_bps"]) / 1e6);
                extra.push((bulk(&out, &["sender", "timeouts"]), bulk(&out, &["sender", "retx_fast"]), bulk(&out, &["sender", "srtt_s"])));
            }
            let mut gs = g.clone(); gs.sort_by(f64::total_cmp);
            println!("p={p} {cc:8} median {:.2} all {:?} (to, fast, srtt) {:?}", median(g.clone()), gs, extra);
        }
    }
}
