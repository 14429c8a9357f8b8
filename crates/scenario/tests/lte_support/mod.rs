//! The wired part shared by the LTE scenario tests: a server –100 Mb/s, 20 ms– gateway
//! –1 Gb/s, 3 ms– eNB path with drop-tail queues of 1000 packets, so that the radio is the
//! bottleneck and the base RTT is 46 ms plus the radio's share.

pub const CORE_LINKS: &str = r#"
[links.internet]
a = "server"
b = "gateway"
rate = "100Mbps"
delay = "20ms"
queue = { kind = "droptail", limit = "1000p" }

[links.backhaul]
a = "gateway"
b = "enb"
rate = "1Gbps"
delay = "3ms"
queue = { kind = "droptail", limit = "1000p" }
"#;
