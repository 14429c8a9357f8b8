//! Channel models that turn positions and transmit powers into each UE's SINR, and the RSRP and
//! RSRQ of every cell for handover measurements.
//!
//! * [`pathloss`]: free space, log-distance, and the TR 38.901 Table 7.4.1-1 urban macro (UMa)
//!   and urban micro street canyon (UMi) models, LOS or NLOS, with their LOS probabilities.
//! * [`tr38901`]: the TR 38.901 §7.4 scenarios by name — UMi-Street Canyon, UMa (the models
//!   above) and InH-Office — with validity ranges, the optional NLOS formulas and their σ_SF.
//! * [`shadowing`]: log-normal shadowing correlated along the UE's path (Gudmundson 1991), an
//!   AR(1) process on the distance moved.
//! * [`fading`]: time-correlated Rayleigh fast fading, an AR(1) complex Gaussian process whose
//!   one-step correlation is J0(2π f_d Δt) (Clarke/Jakes), sampled per TTI.
//! * [`sinr`]: link budget, thermal noise, load-weighted inter-cell interference, SINR, and the
//!   TS 36.214 RSRP/RSRQ.
//! * [`ss_rsrq`]: an NR cell's SS-RSRQ (TS 38.215 §5.1.3), its RSSI measured on the SS/PBCH
//!   block (TS 38.211 §7.4.3.1).
//!
//! Everything is sans-IO: callers pass positions, time steps and the [`RngStream`] of the link
//! (for example `cell/2/ue/7/fading`), and get dB values back. Nothing allocates after
//! construction. Units are in the names: metres `_m`, hertz `_hz`, dBm `_dbm`, dB `_db`.
//!
//! [`RngStream`]: celltcp_engine::RngStream

pub mod fading;
pub mod pathloss;
pub mod shadowing;
pub mod sinr;
pub mod ss_rsrq;
pub mod tr38901;

pub use fading::{bessel_j0, doppler_hz, RayleighFading};
pub use pathloss::{
    FreeSpace, LogDistance, LosCondition, PathLoss, PathLossKind, PathLossModel, UrbanMacro,
    UrbanMicro,
};
pub use shadowing::Shadowing;
pub use sinr::{
    noise_power_dbm, rsrp_dbm, rsrq_db, rssi_dbm, sinr_db, thermal_noise_dbm, CellSignal,
    LinkBudget, THERMAL_NOISE_DBM_PER_HZ,
};
pub use ss_rsrq::{nr_carrier_rssi_dbm, ss_rsrq_db, SSB_RBS};
pub use tr38901::{NlosFormula, Tr38901PathLoss, Tr38901Scenario, ValidityRange};

/// Speed of light in vacuum, metres per second (exact, SI).
pub const SPEED_OF_LIGHT_MPS: f64 = 299_792_458.0;

/// A point on the ground plane, metres. Heights are properties of the path-loss model (base
/// station and UE antenna heights), not of the position.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Position {
    pub x_m: f64,
    pub y_m: f64,
}

impl Position {
    pub const fn new(x_m: f64, y_m: f64) -> Self {
        Position { x_m, y_m }
    }

    /// Horizontal (2D) distance to `other`, metres.
    pub fn distance_m(self, other: Position) -> f64 {
        (self.x_m - other.x_m).hypot(self.y_m - other.y_m)
    }
}

/// Bad parameter of a channel model. Messages name the parameter, the value and what was
/// expected.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ChannelError {
    #[error("{param}: {value} is out of range; expected {expected}")]
    OutOfRange {
        param: &'static str,
        value: f64,
        expected: &'static str,
    },
    #[error("serving: cell index {index} is out of range; {cells} cells were given")]
    NoSuchCell { index: usize, cells: usize },
}

impl ChannelError {
    /// Accepts `value` when it is finite and within `[lo, hi]`.
    pub(crate) fn check(
        param: &'static str,
        value: f64,
        lo: f64,
        hi: f64,
        expected: &'static str,
    ) -> Result<f64, ChannelError> {
        if value.is_finite() && (lo..=hi).contains(&value) {
            Ok(value)
        } else {
            Err(ChannelError::OutOfRange {
                param,
                value,
                expected,
            })
        }
    }

    /// Accepts `value` when it is finite and strictly positive.
    pub(crate) fn check_positive(
        param: &'static str,
        value: f64,
        expected: &'static str,
    ) -> Result<f64, ChannelError> {
        if value.is_finite() && value > 0.0 {
            Ok(value)
        } else {
            Err(ChannelError::OutOfRange {
                param,
                value,
                expected,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_is_euclidean() {
        let a = Position::new(0.0, 0.0);
        let b = Position::new(300.0, 400.0);
        assert_eq!(a.distance_m(b), 500.0);
        assert_eq!(b.distance_m(a), 500.0);
    }

    #[test]
    fn checks_name_the_parameter() {
        let e = ChannelError::check(
            "sigma_db",
            -1.0,
            0.0,
            30.0,
            "a standard deviation in [0, 30] dB",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "sigma_db: -1 is out of range; expected a standard deviation in [0, 30] dB"
        );
        assert!(ChannelError::check_positive("d0_m", f64::NAN, "a positive distance").is_err());
        assert_eq!(
            ChannelError::check_positive("d0_m", 2.0, "a positive distance"),
            Ok(2.0)
        );
    }
}
