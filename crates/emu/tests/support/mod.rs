//! Fixtures of the emulation tests: descriptor pairs standing for TUN devices, crafted
//! datagrams, and a run on its own thread.
#![allow(dead_code)]

use std::net::Ipv4Addr;
use std::os::fd::RawFd;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use celltcp_emu::{emulate, Attachment, EmuError, EmulateOptions, EmulateOutput, Priority};
use celltcp_engine::SimTime;
use celltcp_net::packet::FlowId;
use celltcp_net::packet::{
    Ecn, IpHeader, Packet, TcpFlags, TcpHeader, TcpOptions, Transport, UdpHeader,
};
use celltcp_net::wire::write_datagram;
use celltcp_scenario::Document;

/// A connected `SOCK_SEQPACKET` pair: (the program's end, the emulator's end). One datagram per
/// call, as a TUN device in `IFF_TUN | IFF_NO_PI` mode.
pub fn device() -> (RawFd, RawFd) {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for two descriptors.
    let rc = unsafe { libc::socketpair(libc::AF_UNIX, libc::SOCK_SEQPACKET, 0, fds.as_mut_ptr()) };
    assert_eq!(rc, 0, "socketpair: {}", std::io::Error::last_os_error());
    for fd in fds {
        // SAFETY: the descriptors were just created.
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
        }
    }
    // Room for a few hundred datagrams each way, so that bursts do not block.
    for fd in fds {
        let size: libc::c_int = 4 << 20;
        // SAFETY: `size` is a valid c_int for the option.
        unsafe {
            libc::setsockopt(
                fd,
                libc::SOL_SOCKET,
                libc::SO_SNDBUF,
                (&size as *const libc::c_int).cast(),
                size_of::<libc::c_int>() as libc::socklen_t,
            );
        }
    }
    (fds[0], fds[1])
}

/// A pipe: (read end, write end).
pub fn pipe() -> (RawFd, RawFd) {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for two descriptors.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    (fds[0], fds[1])
}

pub fn close(fd: RawFd) {
    // SAFETY: the test owns `fd`.
    unsafe { libc::close(fd) };
}

/// Writes one datagram; panics unless it was taken whole.
pub fn send(fd: RawFd, bytes: &[u8]) {
    // SAFETY: `bytes` is valid for reads of its length.
    let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
    assert_eq!(
        n,
        bytes.len() as isize,
        "write: {}",
        std::io::Error::last_os_error()
    );
}

/// Reads one datagram, waiting at most `timeout`; returns it and when it was read.
pub fn recv(fd: RawFd, timeout: Duration) -> Option<(Vec<u8>, Instant)> {
    let deadline = Instant::now() + timeout;
    let mut buf = vec![0u8; 65_535];
    loop {
        // SAFETY: `buf` is valid for writes of its length.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n > 0 {
            let at = Instant::now();
            buf.truncate(n as usize);
            return Some((buf, at));
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return None;
        }
        let mut p = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = left.as_millis().clamp(1, i32::MAX as u128) as i32;
        // SAFETY: one valid pollfd.
        unsafe { libc::poll(&mut p, 1, ms) };
    }
}

fn ip(src: Ipv4Addr, dst: Ipv4Addr, id: u16) -> IpHeader {
    IpHeader {
        src,
        dst,
        ecn: Ecn::Ect0,
        dscp: 0,
        ttl: 64,
        id,
    }
}

/// An IPv4/TCP datagram with `payload` zero bytes, checksums filled in, with timestamps as
/// Linux sends them on data segments.
pub fn tcp(
    src: (Ipv4Addr, u16),
    dst: (Ipv4Addr, u16),
    seq: u32,
    ack: u32,
    flags: TcpFlags,
    payload: u32,
) -> Vec<u8> {
    let p = Packet {
        uid: seq.into(),
        flow: FlowId(0),
        ip: ip(src.0, dst.0, seq as u16),
        transport: Transport::Tcp(TcpHeader {
            src_port: src.1,
            dst_port: dst.1,
            seq,
            ack,
            flags,
            window: 1024,
            options: TcpOptions {
                timestamps: Some((seq, ack)),
                ..Default::default()
            },
            eln: false,
        }),
        payload_len: payload,
        app_seq: 0,
        created_at: SimTime::ZERO,
        tunnel: None,
    };
    let mut out = Vec::new();
    write_datagram(&p, &mut out).expect("renders");
    out
}

/// An IPv4/UDP datagram of `size` bytes in all, its payload starting with `seq`.
pub fn udp(src: Ipv4Addr, dst: Ipv4Addr, seq: u64, size: u32) -> Vec<u8> {
    let p = Packet {
        uid: seq,
        flow: FlowId(0),
        ip: ip(src, dst, seq as u16),
        transport: Transport::Udp(UdpHeader {
            src_port: 5000,
            dst_port: 5001,
        }),
        payload_len: size - 28,
        app_seq: seq,
        created_at: SimTime::ZERO,
        tunnel: None,
    };
    let mut out = Vec::new();
    write_datagram(&p, &mut out).expect("renders");
    out
}

/// Runs the emulation on its own thread.
pub fn spawn(
    toml: &str,
    attachments: &[(&str, RawFd)],
    stop_fd: Option<RawFd>,
    opts: EmulateOptions,
) -> JoinHandle<Result<EmulateOutput, EmuError>> {
    let document = document(toml);
    let attachments: Vec<Attachment> = attachments
        .iter()
        .map(|(h, fd)| Attachment {
            host: h.to_string(),
            fd: *fd,
        })
        .collect();
    std::thread::spawn(move || emulate(&document, &[], &attachments, stop_fd, &opts))
}

/// `toml` parsed as a scenario document.
pub fn document(toml: &str) -> Document {
    Document::parse(toml, "scenario").expect("a TOML document")
}

/// The run's summary as JSON.
pub fn summary(out: &EmulateOutput) -> &serde_json::Value {
    &out.run.summary
}

/// Seconds as f64 from a JSON number.
pub fn f(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// Gives the emulator time to build the world and start its clock before traffic is sent.
pub fn settle() {
    std::thread::sleep(Duration::from_millis(100));
}

/// The machine's own wake-up lateness over a span (cyclictest(8)'s measure): a thread at the
/// loop's scheduling — `SCHED_FIFO` at [`celltcp_emu::DEFAULT_PRIORITY`] when it may be had,
/// the loop's timer slack — asks to wake every `period` with the loop's wait (ppoll(2)) and
/// records how late each wake-up came, ns. Run beside an emulation, it measures what the
/// platform itself did to timers during that emulation (a stolen vCPU, a busy host).
pub fn platform_wake_ups(span: Duration, period: Duration) -> JoinHandle<Vec<u64>> {
    use celltcp_emu::clock::{monotonic_ns, wait, RealtimePriority, TimerSlack};
    std::thread::spawn(move || {
        let _priority = RealtimePriority::enter(celltcp_emu::DEFAULT_PRIORITY).ok();
        let _slack = TimerSlack::lower();
        let period_ns = period.as_nanos() as u64;
        let count = (span.as_nanos() as u64 / period_ns) as usize;
        let start = monotonic_ns();
        let mut late = Vec::with_capacity(count);
        for k in 1..=count as u64 {
            let due = start + k * period_ns;
            let now = monotonic_ns();
            if due > now {
                wait(&mut [], Some(celltcp_engine::SimDuration(due - now))).expect("ppoll");
            }
            late.push(monotonic_ns().saturating_sub(due));
        }
        late
    })
}

/// The `q`-quantile of `values` (nearest rank), sorting them.
pub fn quantile(values: &mut [u64], q: f64) -> u64 {
    values.sort_unstable();
    let rank = ((q * values.len() as f64).ceil() as usize).clamp(1, values.len());
    values[rank - 1]
}

/// A wired chain with explicit addresses:
/// server (10.0.0.1) --100 Mbps, 20 ms-- gateway --1 Gbps, 3 ms-- enb --25 Mbps, 5 ms-- ue
/// (10.0.0.4). No flows of its own.
pub const WIRED: &str = r#"
[simulation]
duration = "1s"
seed = 1

[nodes]
server = { kind = "host", address = "10.0.0.1" }
gateway = { kind = "router", address = "10.0.0.2" }
enb = { kind = "router", address = "10.0.0.3" }
ue = { kind = "host", address = "10.0.0.4" }

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

[links.access]
a = "enb"
b = "ue"
rate = "25Mbps"
delay = "5ms"
queue = { kind = "droptail", limit = "1000p" }
"#;

pub const SERVER: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);
pub const UE: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 4);

/// One-way delay of a datagram of `bytes` from server to ue on [`WIRED`], seconds: three
/// serialisations and 28 ms of propagation.
pub fn wired_one_way_s(bytes: usize) -> f64 {
    let bits = bytes as f64 * 8.0;
    bits / 100e6 + bits / 1e9 + bits / 25e6 + 0.028
}

/// A direct link server (10.0.0.1) — ue (10.0.0.4) at `rate_mbps` and 20 ms, with a queue deep
/// enough for the jitter of a sender at the link's rate.
pub fn single_link(rate_mbps: u32, duration_s: u32) -> String {
    format!(
        r#"
[simulation]
duration = "{duration_s}s"
seed = 1

[nodes]
server = {{ kind = "host", address = "10.0.0.1" }}
ue = {{ kind = "host", address = "10.0.0.4" }}

[links.path]
a = "server"
b = "ue"
rate = "{rate_mbps}Mbps"
delay = "20ms"
queue = {{ kind = "droptail", limit = "5000p" }}
"#
    )
}

/// What a paced push measured.
pub struct Push {
    pub out: EmulateOutput,
    pub sent: usize,
    pub received: usize,
    /// Per datagram received: wall-clock one-way delay, seconds.
    pub delays_s: Vec<f64>,
}

/// Pushes 1500-byte UDP datagrams from server to ue at `rate_mbps` for `push_s` seconds over
/// [`single_link`] at the same rate, reading them at the far end; the loop is scheduled as
/// `priority` says.
pub fn paced_push(rate_mbps: u32, push_s: f64, priority: Priority) -> Push {
    let duration = push_s.ceil() as u32 + 1;
    let path = Path {
        toml: single_link(rate_mbps, duration),
        from: ("server", SERVER),
        to: ("ue", UE),
    };
    paced_push_through(&path, rate_mbps, push_s, priority)
}

/// A scenario and the two hosts a push runs between (name, address).
pub struct Path {
    pub toml: String,
    pub from: (&'static str, Ipv4Addr),
    pub to: (&'static str, Ipv4Addr),
}

/// [`paced_push`] through any path; the scenario must last `push_s` plus a second or more.
pub fn paced_push_through(path: &Path, rate_mbps: u32, push_s: f64, priority: Priority) -> Push {
    let (server_app, server_emu) = device();
    let (ue_app, ue_emu) = device();
    let run = spawn(
        &path.toml,
        &[(path.from.0, server_emu), (path.to.0, ue_emu)],
        None,
        EmulateOptions {
            priority,
            duration: Some(celltcp_engine::SimDuration::from_secs_f64(push_s + 1.0)),
            ..EmulateOptions::default()
        },
    );
    settle();
    let interval = 1500.0 * 8.0 / (f64::from(rate_mbps) * 1e6);
    let count = (push_s / interval).round() as usize;
    let receiver = std::thread::spawn(move || {
        let mut times = Vec::with_capacity(count);
        while times.len() < count {
            match recv(ue_app, Duration::from_secs(2)) {
                Some((bytes, at)) => {
                    let seq = u64::from_be_bytes(bytes[28..36].try_into().unwrap());
                    times.push((seq as usize, at));
                }
                None => break,
            }
        }
        times
    });
    let start = Instant::now();
    let mut sent_at = Vec::with_capacity(count);
    for k in 0..count {
        let due = start + Duration::from_secs_f64(interval * k as f64);
        let now = Instant::now();
        if due > now {
            std::thread::sleep(due - now);
        }
        let bytes = udp(path.from.1, path.to.1, k as u64, 1500);
        sent_at.push(Instant::now());
        send(server_app, &bytes);
    }
    let got = receiver.join().unwrap();
    let out = run.join().unwrap().expect("the run succeeds");
    let delays_s = got
        .iter()
        .map(|(seq, at)| at.duration_since(sent_at[*seq]).as_secs_f64())
        .collect();
    for fd in [server_app, server_emu, ue_app, ue_emu] {
        close(fd);
    }
    Push {
        out,
        sent: count,
        received: got.len(),
        delays_s,
    }
}

/// The `timing_error_s` figures as "p50 … max" in microseconds.
pub fn timing_line(out: &EmulateOutput) -> String {
    let t = &out.emulation["timing_error_s"];
    let us = |k: &str| f(&t[k]) * 1e6;
    format!(
        "timing error (µs): p50 {:.0}, p90 {:.0}, p99 {:.0}, max {:.0} over {} datagrams; \
         late (> 1 ms) {}; lag mean {:.1} µs, max {:.0} µs; SCHED_FIFO priority {}",
        us("p50"),
        us("p90"),
        us("p99"),
        us("max"),
        t["samples"],
        out.emulation["late_packets"],
        f(&out.emulation["lag_mean_s"]) * 1e6,
        f(&out.emulation["lag_max_s"]) * 1e6,
        out.emulation["priority"],
    )
}
