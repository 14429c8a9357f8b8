//! eNB positions: sites on a line (a road or rail track covered by consecutive cells) and on a
//! hexagonal grid (the macro layout of 3GPP system simulations, TR 36.814 Annex A.2.1.1, with
//! one cell per site here).

use std::f64::consts::FRAC_PI_3;

use super::{check_position, num, MobilityError};
use crate::channel::Position;

/// The most sites a layout may have; a guard against a mistyped count allocating gigabytes.
pub const MAX_LAYOUT_SITES: usize = 100_000;

/// N eNB positions on a line: origin, origin + spacing·(cos θ, sin θ), … (seed 003 Exp. 5-3: 5
/// eNBs, 250 m cells). `spacing_m` > 0 metres, `heading_rad` the direction of the line
/// (0 = +x, π/2 = +y).
pub fn line_layout(
    n: usize,
    spacing_m: f64,
    origin: Position,
    heading_rad: f64,
) -> Result<Vec<Position>, MobilityError> {
    check_count(n)?;
    check_distance("spacing_m", spacing_m)?;
    check_position("origin", origin)?;
    if !heading_rad.is_finite() {
        return Err(MobilityError::invalid(
            "heading_rad",
            num(heading_rad),
            "a finite angle in radians",
        ));
    }
    let (sin, cos) = heading_rad.sin_cos();
    Ok((0..n)
        .map(|i| {
            let d = spacing_m * i as f64;
            Position::new(origin.x_m + d * cos, origin.y_m + d * sin)
        })
        .collect())
}

/// N sites of a hexagonal grid with inter-site distance `isd_m` (metres, > 0): the centre, then
/// ring 1 (6 sites), ring 2 (12), … in a fixed spiral order, truncated to N (3GPP TR 36.814
/// style macro layout, one cell per site).
///
/// Order: with the unit directions e_j = (cos 60°·j, sin 60°·j), ring k (6k sites at distances
/// between k·isd·√3/2 and k·isd) starts at k·e_0 (east of the centre) and walks
/// counter-clockwise: side j holds k·e_j + m·e_(j+2) for m = 0..k, each step one isd long. So
/// ring 1 is at 0°, 60°, …, 300°, and 7, 19, 37 sites give complete 1-, 2-, 3-ring grids.
pub fn hex_layout(n: usize, isd_m: f64, centre: Position) -> Result<Vec<Position>, MobilityError> {
    check_count(n)?;
    check_distance("isd_m", isd_m)?;
    check_position("centre", centre)?;
    let unit = |j: usize| {
        let (sin, cos) = (FRAC_PI_3 * (j % 6) as f64).sin_cos();
        (cos, sin)
    };
    let mut sites = Vec::with_capacity(n);
    sites.push(centre);
    let mut ring = 1usize;
    'rings: while sites.len() < n {
        let k = ring as f64;
        for side in 0..6 {
            let (cx, cy) = unit(side);
            let (sx, sy) = unit(side + 2);
            for m in 0..ring {
                if sites.len() == n {
                    break 'rings;
                }
                let m = m as f64;
                sites.push(Position::new(
                    centre.x_m + isd_m * (k * cx + m * sx),
                    centre.y_m + isd_m * (k * cy + m * sy),
                ));
            }
        }
        ring += 1;
    }
    Ok(sites)
}

fn check_count(n: usize) -> Result<(), MobilityError> {
    if (1..=MAX_LAYOUT_SITES).contains(&n) {
        Ok(())
    } else {
        Err(MobilityError::invalid(
            "n",
            n.to_string(),
            format!("a number of sites in 1..={MAX_LAYOUT_SITES}"),
        ))
    }
}

fn check_distance(key: &str, d_m: f64) -> Result<(), MobilityError> {
    if d_m.is_finite() && d_m > 0.0 {
        Ok(())
    } else {
        Err(MobilityError::invalid(
            key,
            format!("{} m", num(d_m)),
            "a finite distance > 0 m",
        ))
    }
}
