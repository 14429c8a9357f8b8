//! Per-component random streams.
//!
//! Every component (a link's loss model, an application's inter-arrival times, a cell's fading)
//! owns an [`RngStream`] seeded from a stable hash of `(seed, run, component path)`, for example
//! `(1, 0, "link/access/down/loss")`. Streams are therefore independent of creation order: adding
//! a flow or a node never changes the numbers another component draws.
//!
//! Reproducibility across versions is part of the contract, so the algorithms are fixed here and
//! implemented in this file rather than taken from a crate whose output might change:
//! * path hash: FNV-1a 64-bit over the path's UTF-8 bytes;
//! * seed mixing: `s = splitmix64(seed ^ splitmix64(run ^ splitmix64(fnv1a(path))))`;
//! * generator: xoshiro256++ (Blackman & Vigna 2019), its state filled by four successive
//!   SplitMix64 outputs starting from `s`;
//! * `next_f64`: the top 53 bits of `next_u64` times 2^-53, uniform on [0, 1).
//!
//! Changing any of these is a breaking change of every published result and needs a major version.

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(FNV_OFFSET, |h, &b| (h ^ b as u64).wrapping_mul(FNV_PRIME))
}

#[inline]
fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The 64-bit seed of the stream for `(seed, run, path)`.
pub fn stream_seed(seed: u64, run: u64, path: &str) -> u64 {
    splitmix64(seed ^ splitmix64(run ^ splitmix64(fnv1a(path.as_bytes()))))
}

/// A reproducible xoshiro256++ stream.
#[derive(Clone, Debug)]
pub struct RngStream {
    s: [u64; 4],
}

impl RngStream {
    /// The stream of component `path` in replication `run` of master seed `seed`.
    pub fn new(seed: u64, run: u64, path: &str) -> Self {
        Self::from_seed(stream_seed(seed, run, path))
    }

    pub fn from_seed(seed: u64) -> Self {
        // The standard SplitMix64 sequence from `seed`: outputs mix(seed + k·γ), k = 1, 2, ...
        let mut x = seed;
        let mut s = [0u64; 4];
        for w in &mut s {
            *w = splitmix64(x);
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        }
        if s == [0; 4] {
            s[0] = 1; // xoshiro's one forbidden state; unreachable in practice.
        }
        RngStream { s }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform on [0, 1).
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform on [lo, hi).
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next_f64()
    }

    /// Uniform integer in [0, n) without modulo bias (Lemire's multiply-shift with rejection).
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "below(0)");
        loop {
            let m = self.next_u64() as u128 * n as u128;
            let low = m as u64;
            if low >= n.wrapping_neg() % n {
                return (m >> 64) as u64;
            }
        }
    }

    /// True with probability `p` (p ≤ 0 never, p ≥ 1 always).
    #[inline]
    pub fn bernoulli(&mut self, p: f64) -> bool {
        if p <= 0.0 {
            false
        } else if p >= 1.0 {
            true
        } else {
            self.next_f64() < p
        }
    }

    /// Exponential with the given mean (inverse transform on (0, 1]).
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.next_f64()).ln()
    }

    /// Normal via Box–Muller; uses two uniforms per call and keeps no cached spare, so the number
    /// of draws per call is fixed.
    pub fn normal(&mut self, mean: f64, std_dev: f64) -> f64 {
        let u1 = 1.0 - self.next_f64();
        let u2 = self.next_f64();
        mean + std_dev * (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    /// Pareto with shape `alpha` and scale (minimum) `x_m`.
    pub fn pareto(&mut self, alpha: f64, x_m: f64) -> f64 {
        x_m / (1.0 - self.next_f64()).powf(1.0 / alpha)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_output() {
        // Pins the documented algorithms: a change here changes every published result.
        let mut r = RngStream::new(1, 0, "link/access/down/loss");
        let first: Vec<u64> = (0..3).map(|_| r.next_u64()).collect();
        let mut again = RngStream::new(1, 0, "link/access/down/loss");
        assert_eq!(first, (0..3).map(|_| again.next_u64()).collect::<Vec<_>>());
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(splitmix64(0), 0xe220_a839_7b1d_cdaf);
    }

    #[test]
    fn streams_differ_by_path_seed_and_run() {
        let a = RngStream::new(1, 0, "a").next_u64();
        assert_ne!(a, RngStream::new(1, 0, "b").next_u64());
        assert_ne!(a, RngStream::new(2, 0, "a").next_u64());
        assert_ne!(a, RngStream::new(1, 1, "a").next_u64());
    }

    #[test]
    fn moments() {
        let mut r = RngStream::new(7, 0, "moments");
        let n = 200_000;
        let mean_u: f64 = (0..n).map(|_| r.next_f64()).sum::<f64>() / n as f64;
        assert!((mean_u - 0.5).abs() < 0.005);
        let mean_e: f64 = (0..n).map(|_| r.exponential(2.0)).sum::<f64>() / n as f64;
        assert!((mean_e - 2.0).abs() < 0.03);
        let xs: Vec<f64> = (0..n).map(|_| r.normal(1.0, 3.0)).collect();
        let m = xs.iter().sum::<f64>() / n as f64;
        let v = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / n as f64;
        assert!((m - 1.0).abs() < 0.03 && (v.sqrt() - 3.0).abs() < 0.03);
        let hits = (0..n).filter(|_| r.bernoulli(0.1)).count() as f64 / n as f64;
        assert!((hits - 0.1).abs() < 0.003);
        assert!((0..1000).all(|_| r.below(7) < 7));
    }
}
