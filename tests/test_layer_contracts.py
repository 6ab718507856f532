"""The import contracts hold through every chain of imports (issue 23): .importlinter allows no
indirect import in any contract, and the house's data flow is one layers contract."""

from __future__ import annotations

import configparser
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _contracts() -> configparser.ConfigParser:
    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter", encoding="utf-8")
    return config


def test_every_contract_forbids_indirect_imports() -> None:
    config = _contracts()
    assert config.get("importlinter", "exclude_type_checking_imports") == "True"  # typing-only imports never run
    contracts = [name for name in config.sections() if name.startswith("importlinter:contract:")]
    assert contracts
    for name in contracts:
        if config.get(name, "type") in ("layers", "acyclic_with_typing"):
            continue  # a layers contract always follows every chain; a circle is one by definition
        assert config.get(name, "allow_indirect_imports", fallback=None) == "False", name


def test_the_data_flow_is_a_layers_contract_in_the_houses_order() -> None:
    layers = [line.strip() for line in _contracts().get("importlinter:contract:house-data-flow", "layers").splitlines()
              if line.strip()]
    flat = [module.strip() for layer in layers for module in layer.split("|")]
    order = ["ascend_doctor.cli", "ascend_doctor.runner", "ascend_doctor.render", "ascend_doctor.report", "checks",
             "ascend_doctor.checkapi", "ascend_doctor.facts", "ascend_doctor.host", "ascend_doctor.parsers"]
    assert [m for m in flat if m in order] == order  # render above report above checks ... above parsers


def test_the_builder_is_no_part_of_the_run() -> None:
    config = _contracts()
    section = "importlinter:contract:build-is-not-run"
    assert "ascend_doctor.compiled_data" in config.get(section, "forbidden_modules")
    assert "ascend_doctor.datacache" in config.get(section, "source_modules")
