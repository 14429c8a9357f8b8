//! `[cells.NAME] rat = "nr"` and `[cells.NAME.nr]`: an NR cell (gNB) on the cell's machinery.
//!
//! The `[cells.NAME.nr]` table is the radio crate's own [`NrCellConfig`] (its doc comments are
//! the schema's descriptions, its defaults cite TS 38.331 and TS 38.214), validated by its one
//! [`NrCellConfig::validate`], whose errors name `cells.NAME.nr.KEY`. This file adds what only
//! the file layer can check: which top-level keys of `[cells.NAME]` are LTE's and make no sense
//! for an NR cell, and what is not supported with NR yet; and for `[cells.NAME.nr.channel]`
//! (the radio crate's `NrChannelConfig`), the units of its times, the path of its `trace`
//! and the reading of that file.

use std::path::Path;
use std::sync::{Arc, LazyLock};

use celltcp_radio::cell::{
    CellRadioConfig, NrBeamConfig, NrBlockageConfig, NrCellConfig, NrChannelModel,
};
use celltcp_radio::channel::Position;
use celltcp_radio::nr::SinrTrace;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Serialize, Serializer};
use toml::{Table, Value};

use super::CellFile;
use crate::config::unit_keys::{self, unit_keys, UnitKeys};
use crate::ScenarioError;

/// The radio access technology of a cell: the radio's, whose tables the uplink's checks
/// follow.
pub use celltcp_radio::cell::Rat;

/// LTE's keys of `[cells.NAME]` that an NR cell has in `[cells.NAME.nr]` or not at all, each
/// with why: refused when written, whatever the value (a written default is as much a
/// mistake), and left out of an NR cell's echo, which must load again.
pub(super) const LTE_ONLY: [(&str, &str); 4] = [
    (
        "bandwidth_mhz",
        "is the LTE channel bandwidth (TS 36.101); an NR cell's is nr.bandwidth_mhz",
    ),
    (
        "cqi_table",
        "is an LTE CQI table (TS 36.213 Table 7.2.3-x); an NR cell's is nr.cqi_table",
    ),
    (
        "bler_decade_db",
        "is the slope of LTE's default curves; an NR cell's curves are those of nr.mcs_table \
         or of bler_table",
    ),
    (
        "ue_category",
        "is an LTE UE category (TS 36.306 Table 4.1-1); an NR cell does not bound its \
         transport blocks by it",
    ),
];

/// Checks the NR keys of cell `name` and the LTE keys an NR cell refuses; `in_ran` for a cell
/// of a radio access network.
pub(super) fn check(
    name: &str,
    c: &CellFile,
    radio: &CellRadioConfig,
    in_ran: bool,
) -> Result<(), ScenarioError> {
    let key = |k: &str| format!("cells.{name}.{k}");
    match (c.rat, &c.nr) {
        (Rat::Lte, Some(_)) => {
            return Err(ScenarioError::new(
                key("nr"),
                "is given but rat is \"lte\"; set rat = \"nr\" for an NR cell",
            ))
        }
        (Rat::Lte, None) => return Ok(()),
        (Rat::Nr, _) => {}
    }
    let refuse = |k: &str, why: &str| Err(ScenarioError::new(key(k), why.to_string()));
    if let Some((k, why)) = LTE_ONLY.into_iter().find(|(k, _)| c.radio.is_written(k)) {
        return refuse(k, why);
    }
    let nr = c.nr.clone().unwrap_or_default();
    // A UE's measurements and the network's coverage follow its position (TS 38.215 §5.1.1);
    // a trace gives every UE of the cell the same SINR wherever it is.
    if in_ran
        && nr
            .channel
            .as_ref()
            .is_some_and(|ch| ch.model == NrChannelModel::Trace)
    {
        return refuse(
            "nr.channel.model",
            "\"trace\" is not supported in a radio access network ([ran]): a trace's SINR is \
             the same wherever the UE is, so no cell is measured better than another; expected \
             \"tr38901\"",
        );
    }
    let air = nr
        .validate(&format!("cells.{name}"), radio.carrier_ghz * 1e9)
        .map_err(|e| ScenarioError::new(e.key, e.message))?;
    if let Some(m) = radio.fixed_mcs.filter(|m| *m > air.mcs_table.max_index()) {
        return Err(ScenarioError::new(
            key("fixed_mcs"),
            format!(
                "{m} is out of range for an NR cell; expected an MCS index 0 to {} of {} (TS \
                 38.214 §5.1.3.1)",
                air.mcs_table.max_index(),
                air.mcs_table
            ),
        ));
    }
    Ok(())
}

/// The cells of one radio access network share their RAT: all LTE (X2 handover, TS 36.300
/// §10.1.2.1) or all NR (standalone NR, Xn handover, TS 38.300 §9.2.3.2, the same procedure).
/// A handover between an eNB and a gNB is inter-RAT (TS 38.300 §9.3: through the core
/// network, on inter-RAT measurements), which the network does not model. The error names the first cell (name order) whose RAT differs from
/// the first cell's.
pub(super) fn same_rat_in_ran(
    cells: &std::collections::BTreeMap<String, CellFile>,
) -> Result<(), ScenarioError> {
    let mut rats = cells.iter();
    let Some((first, c0)) = rats.next() else {
        return Ok(());
    };
    let name = |r: Rat| match r {
        Rat::Lte => "lte",
        Rat::Nr => "nr",
    };
    match rats.find(|(_, c)| c.rat != c0.rat) {
        None => Ok(()),
        Some((other, c)) => Err(ScenarioError::new(
            format!("cells.{other}.rat"),
            format!(
                "\"{}\" but cell '{first}' is \"{}\": a [ran] of LTE and NR cells needs \
                 inter-RAT handover, not modelled; make every cell of the network rat = \"lte\" \
                 or every one rat = \"nr\"",
                name(c.rat),
                name(c0.rat)
            ),
        )),
    }
}

/// The NR air interface of a validated cell: `Some` for `rat = "nr"` (its table, or every
/// default), `None` for LTE.
pub(crate) fn nr_config(c: &CellFile) -> Option<NrCellConfig> {
    (c.rat == Rat::Nr).then(|| c.nr.clone().unwrap_or_default())
}

/// The keys with a unit of `[cells.NAME.nr.channel.blockage]` and `.beam` (their domain
/// types mark them `"x-unit"`), by sub-table.
static CHANNEL_UNIT_KEYS: LazyLock<[(&str, UnitKeys); 2]> = LazyLock::new(|| {
    [
        ("blockage", unit_keys::<NrBlockageConfig>()),
        ("beam", unit_keys::<NrBeamConfig>()),
    ]
});

/// Reads the times of every `[cells.NAME.nr.channel.blockage]` and `.beam` in `root` (the
/// scenario's tree, before it is deserialised) from their text (`"300ms"`) into the
/// nanoseconds [`NrChannelConfig`] takes; errors name the dotted key
/// (`cells.NAME.nr.channel.blockage.mean_blocked`).
pub(crate) fn read_channel_units(root: &mut Table) -> Result<(), ScenarioError> {
    let Some(Value::Table(cells)) = root.get_mut("cells") else {
        return Ok(());
    };
    for (name, cell) in cells.iter_mut() {
        let Some(Value::Table(channel)) = cell.get_mut("nr").and_then(|nr| nr.get_mut("channel"))
        else {
            continue;
        };
        for (sub, units) in CHANNEL_UNIT_KEYS.iter() {
            if let Some(Value::Table(t)) = channel.get_mut(*sub) {
                *t = unit_keys::resolve(t, &format!("cells.{name}.nr.channel.{sub}"), units)?;
            }
        }
    }
    Ok(())
}

/// `[cells.NAME.nr]` in the file's form for the echo: the channel's times as text.
pub(super) fn serialize_nr<S: Serializer>(
    nr: &Option<NrCellConfig>,
    s: S,
) -> Result<S::Ok, S::Error> {
    let Some(nr) = nr else {
        return s.serialize_none();
    };
    let mut value = serde_json::to_value(nr).map_err(serde::ser::Error::custom)?;
    if let (Some(channel), Some(v)) = (&nr.channel, value.get_mut("channel")) {
        let [(_, blockage), (_, beam)] = &*CHANNEL_UNIT_KEYS;
        v["blockage"] = unit_keys::file_form(&channel.blockage, blockage).into();
        v["beam"] = unit_keys::file_form(&channel.beam, beam).into();
    }
    value.serialize(s)
}

/// `[cells.NAME.nr]`'s schema: [`NrCellConfig`]'s, with the channel's times as times with
/// units ("300ms") and their defaults as text.
pub(super) fn nr_schema(generator: &mut SchemaGenerator) -> Schema {
    let schema = <Option<NrCellConfig>>::json_schema(generator);
    let [(_, blockage), (_, beam)] = &*CHANNEL_UNIT_KEYS;
    let b = unit_keys::schema_with_units::<NrBlockageConfig>(
        generator,
        &unit_keys::file_form(&NrBlockageConfig::default(), blockage),
    );
    let m = unit_keys::schema_with_units::<NrBeamConfig>(
        generator,
        &unit_keys::file_form(&NrBeamConfig::default(), beam),
    );
    let defs = generator.definitions_mut();
    defs.insert(NrBlockageConfig::schema_name().into_owned(), b.to_value());
    defs.insert(NrBeamConfig::schema_name().into_owned(), m.to_value());
    schema
}

impl CellFile {
    /// Makes a relative `nr.channel.trace` path relative to `base_dir` (the scenario file's
    /// directory), as [`CellFile::anchor_bler_table_path`] does.
    pub fn anchor_nr_trace_path(&mut self, base_dir: &Path) {
        let trace = self
            .nr
            .as_mut()
            .and_then(|nr| nr.channel.as_mut())
            .and_then(|c| c.trace.as_mut());
        if let Some(path) = trace {
            if Path::new(path.as_str()).is_relative() {
                *path = base_dir.join(path.as_str()).to_string_lossy().into_owned();
            }
        }
    }
}

/// Checks `[cells.NAME.nr.channel]` of a validated NR cell against its placement and UEs,
/// reads its `trace` (a scenario error naming `cells.NAME.nr.channel.trace`, the file and the
/// line), and returns the cell's table with the trace read.
pub(super) fn resolve_channel(
    name: &str,
    c: &CellFile,
    radio: &CellRadioConfig,
) -> Result<CellFile, ScenarioError> {
    let mut out = c.clone();
    let Some(channel) = out.nr.as_mut().and_then(|nr| nr.channel.as_mut()) else {
        return Ok(out);
    };
    if !c.interferers.is_empty() {
        return Err(ScenarioError::new(
            format!("cells.{name}.interferers"),
            "is not supported with nr.channel yet (the mmWave channel models noise only); \
             remove the interferers or the channel table",
        ));
    }
    if let (NrChannelModel::Trace, Some(path)) = (channel.model, channel.trace.as_deref()) {
        let interpolation = channel.trace_interpolation.interpolation();
        let trace = crate::input_file::parse_file(
            Path::new(path),
            "SINR trace",
            |e| format!("{path}: cannot read the SINR trace: {e}"),
            |reader| SinrTrace::from_reader(reader, interpolation),
            |e| format!("{path}: {e}"),
        )
        .map_err(|m| ScenarioError::new(format!("cells.{name}.nr.channel.trace"), m))?;
        channel.trace_samples = Some(Arc::new(trace));
    }
    let at = |p: [f64; 2]| Position::new(p[0], p[1]);
    let ues: Vec<Position> = c.ues.values().map(|u| at(u.position)).collect();
    channel
        .resolve(
            &format!("cells.{name}"),
            radio.carrier_ghz * 1e9,
            at(c.position.unwrap_or_default()),
            &ues,
        )
        .map_err(|e| ScenarioError::new(e.key, e.message))?;
    Ok(out)
}
