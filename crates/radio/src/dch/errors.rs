//! How the transport blocks of one DCH direction are lost: independently at a constant BLER
//! (the default), or through a two-state Gilbert–Elliott channel whose state changes from TTI to
//! TTI, so that errors come in bursts as on a fading radio channel whose power control lags.
//!
//! The Gilbert–Elliott channel (Gilbert 1960, Elliott 1963) is a Markov chain with a good state G
//! and a bad state B, each with its own block error probability. Here the chain takes one step
//! per TTI of the direction and every transport block of a TTI is lost independently with the
//! BLER of the TTI's state (25.302 §7.1: the blocks of a TTI are interleaved over the same radio
//! frames, so they see the same fade).
//!
//! Parameters, as a user describes a bursty channel (the long-run `bler` stays the direction's
//! configured BLER, p̄):
//! * `mean_burst` — mean time spent in the bad state per visit (a burst), D_B;
//! * `bad_bler` — block error probability in the bad state, p_B, in (p̄, 1];
//! * `bad_share` — long-run share of TTIs in the bad state, s, in (0, 1); by default p̄ / p_B,
//!   which leaves the good state error-free (Gilbert's original channel).
//!
//! Derived in closed form, with T the TTI and L_B = D_B / T the mean burst in TTIs:
//! * good-state BLER p_G = (p̄ − s·p_B) / (1 − s), so that s·p_B + (1 − s)·p_G = p̄;
//! * P(B → G) per TTI r = 1 / L_B (a geometric sojourn of mean L_B TTIs);
//! * P(G → B) per TTI q = r·s / (1 − s), so that the stationary share of B, q / (q + r), is s;
//!   the mean gap between bursts is 1/q TTIs = D_B·(1 − s)/s.
//!
//! Valid combinations: p_B > p̄ (else p_G ≥ p̄ ≥ p_B and the bad state is not the bad one);
//! s·p_B ≤ p̄ (else p_G < 0); r ≤ 1 and q ≤ 1, i.e. D_B ≥ T·max(1, s/(1 − s)) (a state lasts at
//! least one TTI on average). p̄ = 0 leaves no room for bursts and is refused.
//!
//! Randomness: the state chain draws from its own stream (`dch/NAME/DIRECTION/gilbert_elliott`),
//! one uniform per TTI that carries blocks, so the per-block uniforms of the direction's stream
//! are the same ones with either model: only the threshold they are compared with changes. A
//! TTI without blocks costs nothing: the chain jumps from the last TTI evaluated, j, to TTI k in
//! one draw with the n-step transition probabilities (n = k − j, λ = 1 − q − r):
//! P(B at k | B at j) = s + (1 − s)·λⁿ and P(B at k | G at j) = s·(1 − λⁿ). The first TTI draws
//! the stationary distribution, P(B) = s.

use celltcp_engine::{RngStream, SimDuration};

/// How the transport blocks of one direction are lost.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum BlockErrorModel {
    /// Each block lost with probability BLER, independently of every other block.
    #[default]
    Independent,
    /// A two-state Gilbert–Elliott channel stepping once per TTI, with long-run BLER equal to
    /// the direction's `bler`.
    GilbertElliott(GilbertElliottConfig),
}

/// A Gilbert–Elliott channel as the user gives it (module documentation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GilbertElliottConfig {
    /// Mean duration of a stay in the bad state (a burst).
    pub mean_burst: SimDuration,
    /// Block error probability in the bad state, in (bler, 1].
    pub bad_bler: f64,
    /// Long-run share of TTIs in the bad state, in (0, 1); `None` = bler / bad_bler (an
    /// error-free good state).
    pub bad_share: Option<f64>,
}

/// The per-TTI chain derived from a [`GilbertElliottConfig`], a BLER and a TTI.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GilbertElliottChain {
    /// Block error probability in the good and in the bad state.
    pub good_bler: f64,
    pub bad_bler: f64,
    /// Stationary probability of the bad state, s.
    pub bad_share: f64,
    /// P(G → B) per TTI, q.
    pub p_good_to_bad: f64,
    /// P(B → G) per TTI, r.
    pub p_bad_to_good: f64,
    /// Mean stays in the bad and in the good state, TTIs (1/r and 1/q).
    pub mean_burst_ttis: f64,
    pub mean_gap_ttis: f64,
}

/// A combination of block-error parameters that cannot give the direction's BLER. `key` is
/// relative to the direction: `bler`, or `errors.mean_burst`, `errors.bad_bler`,
/// `errors.bad_share`.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{key}: {message}")]
pub struct BlockErrorsError {
    pub key: &'static str,
    pub message: String,
}

fn refuse(key: &'static str, message: String) -> BlockErrorsError {
    BlockErrorsError { key, message }
}

impl GilbertElliottConfig {
    /// The chain of a direction with long-run BLER `bler` and TTI `tti`, or the first key that
    /// makes it impossible.
    pub fn chain(
        &self,
        bler: f64,
        tti: SimDuration,
    ) -> Result<GilbertElliottChain, BlockErrorsError> {
        if !(bler > 0.0 && bler < 1.0) {
            return Err(refuse(
                "bler",
                format!(
                    "{bler} leaves no errors to put in bursts; a Gilbert–Elliott channel needs \
                     a block error rate in (0, 1)"
                ),
            ));
        }
        let p_b = self.bad_bler;
        if !(p_b > bler && p_b <= 1.0) {
            return Err(refuse(
                "errors.bad_bler",
                format!(
                    "{p_b} is not a bad-state block error rate for a mean BLER of {bler}; \
                     expected a number above {bler} and at most 1"
                ),
            ));
        }
        let s_max = bler / p_b;
        let s = match self.bad_share {
            None => s_max,
            Some(s) if s > 0.0 && s < 1.0 => {
                if s > s_max * (1.0 + 1e-12) {
                    return Err(refuse(
                        "errors.bad_share",
                        format!(
                            "{s} × bad_bler {p_b} = {:.6} exceeds the mean BLER {bler}: the good \
                             state would need a negative BLER; expected at most {s_max:.6} \
                             (bler / bad_bler)",
                            s * p_b
                        ),
                    ));
                }
                s.min(s_max)
            }
            Some(s) => {
                return Err(refuse(
                    "errors.bad_share",
                    format!("{s} is not a share of the time; expected a number in (0, 1)"),
                ))
            }
        };
        let tti_ns = tti.as_ns() as f64;
        let l_b = self.mean_burst.as_ns() as f64 / tti_ns;
        // Each state is held for whole TTIs: both mean stays must be at least one TTI.
        let shortest = 1f64.max(s / (1.0 - s));
        if tti_ns <= 0.0 || l_b < shortest * (1.0 - 1e-12) {
            return Err(refuse(
                "errors.mean_burst",
                format!(
                    "{} ms is too short: with a bad share of {s:.4} and a {} ms TTI both the \
                     bursts and the gaps between them must last one TTI or more on average; \
                     expected at least {} ms",
                    self.mean_burst.as_ns() as f64 / 1e6,
                    tti_ns / 1e6,
                    shortest * tti_ns / 1e6
                ),
            ));
        }
        let l_b = l_b.max(shortest);
        let r = 1.0 / l_b;
        let q = (r * s / (1.0 - s)).min(1.0);
        // Rounding can leave p_G a hair below 0 at s = bler / bad_bler.
        let p_g = ((bler - s * p_b) / (1.0 - s)).max(0.0);
        Ok(GilbertElliottChain {
            good_bler: p_g,
            bad_bler: p_b,
            bad_share: s,
            p_good_to_bad: q,
            p_bad_to_good: r,
            mean_burst_ttis: l_b,
            mean_gap_ttis: 1.0 / q,
        })
    }
}

impl GilbertElliottChain {
    /// Long-run BLER: s·p_B + (1 − s)·p_G.
    pub fn mean_bler(&self) -> f64 {
        self.bad_share * self.bad_bler + (1.0 - self.bad_share) * self.good_bler
    }

    /// P(bad at TTI j + n | `bad` at TTI j).
    pub fn p_bad_after(&self, bad: bool, n: u64) -> f64 {
        let s = self.bad_share;
        let lambda = 1.0 - self.p_good_to_bad - self.p_bad_to_good;
        let decay = match i32::try_from(n) {
            Ok(n) => lambda.powi(n),
            // |λ| < 1 unless both stays are exactly one TTI (λ = −1: the states alternate).
            Err(_) => lambda.powf(n as f64),
        };
        if bad {
            s + (1.0 - s) * decay
        } else {
            s * (1.0 - decay)
        }
    }
}

/// The error process of one direction: gives the BLER of each TTI that carries blocks.
#[derive(Clone, Debug)]
pub(crate) struct BlockErrors {
    bler: f64,
    ge: Option<GeState>,
}

#[derive(Clone, Debug)]
struct GeState {
    chain: GilbertElliottChain,
    rng: RngStream,
    /// The last TTI evaluated and whether it was in the bad state.
    last: Option<(u64, bool)>,
}

impl BlockErrors {
    /// Independent losses at `bler`: no random number drawn here.
    pub(crate) fn independent(bler: f64) -> Self {
        BlockErrors { bler, ge: None }
    }

    /// A Gilbert–Elliott channel drawing its states from `rng`.
    pub(crate) fn gilbert_elliott(chain: GilbertElliottChain, rng: RngStream) -> Self {
        BlockErrors {
            bler: chain.mean_bler(),
            ge: Some(GeState {
                chain,
                rng,
                last: None,
            }),
        }
    }

    /// The BLER of TTI `k` and whether the channel is in its bad state there (always `false`
    /// for independent losses). Call once per TTI that carries blocks, with increasing `k`.
    pub(crate) fn at_tti(&mut self, k: u64) -> (f64, bool) {
        let Some(ge) = &mut self.ge else {
            return (self.bler, false);
        };
        let p_bad = match ge.last {
            None => ge.chain.bad_share,
            Some((j, bad)) => ge.chain.p_bad_after(bad, k.saturating_sub(j)),
        };
        let bad = ge.rng.next_f64() < p_bad;
        ge.last = Some((k, bad));
        let bler = if bad {
            ge.chain.bad_bler
        } else {
            ge.chain.good_bler
        };
        (bler, bad)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ge(mean_burst_ms: u64, bad_bler: f64, bad_share: Option<f64>) -> GilbertElliottConfig {
        GilbertElliottConfig {
            mean_burst: SimDuration::from_ms(mean_burst_ms),
            bad_bler,
            bad_share,
        }
    }

    const TTI: SimDuration = SimDuration::from_ms(20);

    #[test]
    fn the_closed_form_gives_the_mean_bler_and_the_stays() {
        // 200 ms bursts at 0.9 over a 20 ms TTI, mean 0.1: s = 1/9, an error-free good state,
        // bursts of 10 TTIs every 80 TTIs of good state.
        let c = ge(200, 0.9, None).chain(0.1, TTI).unwrap();
        assert!((c.bad_share - 1.0 / 9.0).abs() < 1e-12);
        assert_eq!(c.good_bler, 0.0);
        assert!((c.p_bad_to_good - 0.1).abs() < 1e-12);
        assert!((c.mean_gap_ttis - 80.0).abs() < 1e-9);
        assert!((c.mean_bler() - 0.1).abs() < 1e-12);
        // With a bad share given, the good state keeps the rest of the errors.
        let c = ge(200, 0.5, Some(0.1)).chain(0.2, TTI).unwrap();
        assert!((c.good_bler - (0.2 - 0.05) / 0.9).abs() < 1e-12);
        assert!((c.mean_bler() - 0.2).abs() < 1e-12);
        assert!((c.p_good_to_bad - 0.1 * 0.1 / 0.9).abs() < 1e-12);
        assert!((c.p_bad_after(true, 0) - 1.0).abs() < 1e-12);
        assert!(c.p_bad_after(false, 0).abs() < 1e-12);
        assert!((c.p_bad_after(true, 1) - (1.0 - c.p_bad_to_good)).abs() < 1e-12);
        assert!((c.p_bad_after(false, 1) - c.p_good_to_bad).abs() < 1e-12);
        assert!((c.p_bad_after(false, 1 << 40) - 0.1).abs() < 1e-12);
    }

    #[test]
    fn impossible_combinations_name_their_key() {
        let key = |r: Result<GilbertElliottChain, BlockErrorsError>| r.unwrap_err().key;
        assert_eq!(key(ge(200, 0.9, None).chain(0.0, TTI)), "bler");
        assert_eq!(key(ge(200, 0.1, None).chain(0.1, TTI)), "errors.bad_bler");
        assert_eq!(key(ge(200, 1.5, None).chain(0.1, TTI)), "errors.bad_bler");
        assert_eq!(
            key(ge(200, f64::NAN, None).chain(0.1, TTI)),
            "errors.bad_bler"
        );
        assert_eq!(
            key(ge(200, 0.9, Some(0.2)).chain(0.1, TTI)),
            "errors.bad_share"
        );
        assert_eq!(
            key(ge(200, 0.9, Some(0.0)).chain(0.1, TTI)),
            "errors.bad_share"
        );
        assert_eq!(
            key(ge(200, 0.9, Some(f64::NAN)).chain(0.1, TTI)),
            "errors.bad_share"
        );
        assert_eq!(key(ge(10, 0.9, None).chain(0.1, TTI)), "errors.mean_burst");
        // A bad share of 0.6 needs bursts of 1.5 TTIs for the gaps to last one TTI.
        assert_eq!(key(ge(20, 0.5, None).chain(0.3, TTI)), "errors.mean_burst");
        assert!(ge(30, 0.5, None).chain(0.3, TTI).is_ok());
        let e = ge(200, 0.9, Some(0.2)).chain(0.1, TTI).unwrap_err();
        assert!(e.to_string().contains("at most 0.111111"), "{e}");
        // Bursts of exactly one TTI with an error-free good state and bad_bler = 1 is the
        // shortest valid channel.
        assert!(ge(20, 1.0, None).chain(0.1, TTI).is_ok());
    }

    /// Steps the chain `n` TTIs one at a time; returns the per-TTI states.
    fn states(chain: GilbertElliottChain, seed: u64, n: u64) -> Vec<bool> {
        let mut e = BlockErrors::gilbert_elliott(chain, RngStream::new(seed, 0, "test/ge"));
        (0..n).map(|k| e.at_tti(k).1).collect()
    }

    /// Lengths of the runs of bad TTIs, and of good ones, leaving out the first and last run
    /// (cut by the window).
    fn runs(states: &[bool]) -> (Vec<u64>, Vec<u64>) {
        let (mut bad, mut good) = (Vec::new(), Vec::new());
        let mut start = 0;
        for i in 1..=states.len() {
            if i == states.len() || states[i] != states[i - 1] {
                if start > 0 && i < states.len() {
                    let len = (i - start) as u64;
                    if states[start] {
                        bad.push(len)
                    } else {
                        good.push(len)
                    }
                }
                start = i;
            }
        }
        (bad, good)
    }

    fn mean(v: &[u64]) -> f64 {
        v.iter().sum::<u64>() as f64 / v.len() as f64
    }

    #[test]
    fn the_per_tti_states_have_the_configured_share_and_stays() {
        // 10-TTI bursts, 80-TTI gaps, over 2 million TTIs (11 hours of 20 ms TTIs): about
        // 22 000 bursts. The mean burst's standard error is 9.5/√22 000 = 0.064 TTIs (0.6 %);
        // the share of bad TTIs has a standard error of about 0.0007 (bursts are the unit).
        let chain = ge(200, 0.9, None).chain(0.1, TTI).unwrap();
        let st = states(chain, 7, 2_000_000);
        let share = st.iter().filter(|&&b| b).count() as f64 / st.len() as f64;
        let (bad, good) = runs(&st);
        eprintln!(
            "bad share {share:.4} (s = {:.4}); {} bursts of mean {:.3} TTIs (10), gaps of mean \
             {:.2} TTIs (80)",
            chain.bad_share,
            bad.len(),
            mean(&bad),
            mean(&good)
        );
        assert!((share - chain.bad_share).abs() < 0.004, "{share}");
        assert!((mean(&bad) / 10.0 - 1.0).abs() < 0.03, "{}", mean(&bad));
        assert!((mean(&good) / 80.0 - 1.0).abs() < 0.03, "{}", mean(&good));
        // Geometric stays: P(a burst lasts more than 20 TTIs) = 0.9^20 = 0.122.
        let long = bad.iter().filter(|&&l| l > 20).count() as f64 / bad.len() as f64;
        assert!((long - 0.9f64.powi(20)).abs() < 0.01, "{long}");
    }

    #[test]
    fn jumping_over_idle_ttis_keeps_the_chain_s_statistics() {
        // Evaluated only every 7th TTI, the chain must still show P(bad) = s and the 7-step
        // persistence P(B → B in 7) = s + (1 − s)·λ⁷.
        let chain = ge(100, 0.8, Some(0.1)).chain(0.15, TTI).unwrap();
        let mut e = BlockErrors::gilbert_elliott(chain, RngStream::new(3, 0, "test/ge"));
        let st: Vec<bool> = (0..400_000u64).map(|i| e.at_tti(7 * i).1).collect();
        let share = st.iter().filter(|&&b| b).count() as f64 / st.len() as f64;
        let bb = st.windows(2).filter(|w| w[0] && w[1]).count() as f64
            / st[..st.len() - 1].iter().filter(|&&b| b).count() as f64;
        let want = chain.p_bad_after(true, 7);
        eprintln!("share {share:.4} (0.1), P(B→B in 7 TTIs) {bb:.4} ({want:.4})");
        assert!((share - 0.1).abs() < 0.005, "{share}");
        assert!((bb - want).abs() < 0.01, "{bb} vs {want}");
    }

    #[test]
    fn independent_losses_draw_nothing_and_keep_the_bler() {
        let mut e = BlockErrors::independent(0.1);
        for k in [0, 5, 1 << 40] {
            assert_eq!(e.at_tti(k), (0.1, false));
        }
    }
}
