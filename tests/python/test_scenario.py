"""Scenario objects: load, dotted-path access, TOML round trips, validation errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from celltcp import Scenario, ScenarioError


def test_load_get_set_save_round_trip(chain_file: Path, tmp_path: Path) -> None:
    s = Scenario.load(chain_file)
    assert s.source == str(chain_file)
    assert s.get("links.access.rate") == "10Mbps"
    assert s.get("links.access.queue.limit") == "50p"

    s.set("links.access.rate", "20Mbps")
    # Missing tables on the way are created.
    s.set("links.access.b_to_a.rate", "1Mbps")
    assert s.get("links.access.rate") == "20Mbps"
    assert s.get("links.access.b_to_a") == {"rate": "1Mbps"}

    out = tmp_path / "saved.toml"
    s.save(out)
    again = Scenario.load(out)
    assert again == s
    assert again.to_dict() == s.to_dict()
    assert again.get("links.access.b_to_a.rate") == "1Mbps"
    # Nothing but the saved file is left beside it.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chain.toml", "saved.toml"]


def test_from_toml_and_from_dict_agree(chain_toml: str) -> None:
    a = Scenario.from_toml(chain_toml)
    b = Scenario.from_dict(a.to_dict())
    assert a == b
    assert Scenario.from_toml(a.to_toml()) == a


def test_copy_and_to_dict_are_independent(chain_toml: str) -> None:
    s = Scenario.from_toml(chain_toml)
    c = s.copy()
    c.set("flows.video.rate", "1Mbps")
    d = s.to_dict()
    d["flows"]["video"]["rate"] = "2Mbps"
    got = s.get("flows.video")
    got["rate"] = "3Mbps"
    assert s.get("flows.video.rate") == "5Mbps"
    assert c.get("flows.video.rate") == "1Mbps"


def test_get_missing_key_names_it(chain_toml: str) -> None:
    s = Scenario.from_toml(chain_toml)
    with pytest.raises(ScenarioError) as e:
        s.get("links.nowhere.rate")
    assert e.value.key == "links.nowhere"
    assert str(e.value).startswith("links.nowhere: ")
    assert s.get("links.nowhere.rate", None) is None
    assert "links.access.rate" in s
    assert "links.access.mtu" not in s


def test_set_through_a_value_is_refused(chain_toml: str) -> None:
    s = Scenario.from_toml(chain_toml)
    with pytest.raises(ScenarioError) as e:
        s.set("links.access.rate.value", "1Mbps")
    assert e.value.key == "links.access.rate.value"
    assert "links.access.rate is a value" in e.value.message
    assert s.get("links.access.rate") == "10Mbps"


@pytest.mark.parametrize("value", [None, object(), {"a": None}, [1, None]])
def test_set_refuses_values_toml_cannot_store(chain_toml: str, value: object) -> None:
    s = Scenario.from_toml(chain_toml)
    with pytest.raises(ScenarioError) as e:
        s.set("flows.video.rate", value)
    assert e.value.key.startswith("flows.video.rate")


@pytest.mark.parametrize("path", ["", ".a", "a..b", "a."])
def test_bad_paths_are_errors(chain_toml: str, path: str) -> None:
    with pytest.raises(ScenarioError):
        Scenario.from_toml(chain_toml).set(path, 1)


def test_malformed_toml_names_source_and_line() -> None:
    with pytest.raises(ScenarioError) as e:
        Scenario.from_toml('[simulation]\nduration = "1s\n', source="broken.toml")
    assert e.value.key == "broken.toml"
    assert "line 2" in e.value.message


def test_load_unreadable_file_is_oserror(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        Scenario.load(tmp_path / "absent.toml")


def test_validate_returns_resolved_dict(chain_toml: str) -> None:
    resolved = Scenario.from_toml(chain_toml).validate()
    assert isinstance(resolved, dict)
    assert set(resolved["flows"]) == {"video"}
    assert set(resolved["links"]) == {"core", "access"}
    assert set(resolved["nodes"]) == {"sender", "router", "receiver"}


@pytest.mark.parametrize(
    ("path", "value", "key"),
    [
        ("links.access.rate", "-10Mbps", "links.access.rate"),
        ("links.access.rate", "0Mbps", "links.access.rate"),
        ("links.access.rate", "25 Mbit", "links.access.rate"),
        ("simulation.duration", "0s", "simulation.duration"),
        ("links.access.b", "nowhere", "links.access"),
        ("links.access.colour", "blue", "links.access"),
    ],
)
def test_validate_errors_name_the_key(chain_toml: str, path: str, value: str, key: str) -> None:
    s = Scenario.from_toml(chain_toml).set(path, value)
    with pytest.raises(ScenarioError) as e:
        s.validate()
    assert e.value.key.startswith(key), e.value
    assert str(e.value).startswith(e.value.key)
    assert isinstance(e.value, ValueError)


def test_validate_applies_overrides(chain_toml: str) -> None:
    s = Scenario.from_toml(chain_toml)
    with pytest.raises(ScenarioError) as e:
        s.validate([("links.access.rate", "0Mbps")])
    assert e.value.key.startswith("links.access.rate")
