"""Rank tables: golden tests on the published tables (tests/samples/hccn/), the documentation
templates (comments and masked values: not JSON), shape problems named by JSON path, bounds, fuzzers."""

from __future__ import annotations

import contextlib
import json
import re
import time
from typing import Any, Dict, List

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_doctor.parsers import rank_table as R

from .samples_util import SAMPLES

MINDSPORE_16 = "hccn/mindspore-doc-rank_table_16pcs-v1.0.json.txt"
PD_2498 = "hccn/vllm-ascend-2498-pd-ranktable-1p1d.txt"
TEMPLATES = "hccn/mindcluster-doc-hccl.json-A3-v1.2-and-950-v2.0-templates.txt"


def body(rel: str) -> str:
    lines = (SAMPLES / rel).read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("# source:")
    return "\n".join(lines[lines.index("# ---") + 1:]) + "\n"


def templates() -> List[str]:
    """The two hccl.json documentation templates of the MindCluster sample (A3 1.2, 950 2.0)."""
    parts = body(TEMPLATES).split("hccl.json:\n----\n")
    assert len(parts) == 3
    return [parts[1], parts[2]]


def uncomment(text: str) -> str:
    """What a user makes of a documentation template: comments, '...' elisions and the trailing
    commas they leave removed. Masked values ("xx.xx.xx.xx") stay: they are what the doc shows."""
    text = re.sub(r"\s*//[^\n]*", "", text)
    text = "\n".join(line for line in text.splitlines() if line.strip() not in ("...", "…"))
    return re.sub(r",(\s*[}\]])", r"\1", text)


# -- golden ---------------------------------------------------------------------------------------------


def test_mindspore_16_card_table_v1_0() -> None:
    table = R.parse_rank_table(body(MINDSPORE_16))
    assert (table.kind, table.version, table.status, table.server_count) == ("hccl", "1.0", "completed", "2")
    assert [s.server_id for s in table.servers] == ["10.155.111.140", "10.155.111.141"]
    assert table.problems == ()
    devices = table.devices()
    assert len(devices) == 16
    assert devices[0] == R.RtDevice("server_list[0].device[0]", "10.155.111.140", "0", "192.1.27.6", "0")
    assert devices[15] == R.RtDevice("server_list[1].device[7]", "10.155.111.141", "7", "192.4.27.9", "15")
    assert [d.rank_id for d in devices] == [str(i) for i in range(16)]
    assert len(table.canonical_sha256) == 64


def test_canonical_hash_ignores_layout_not_content() -> None:
    text = body(MINDSPORE_16)
    compact = json.dumps(json.loads(text), separators=(",", ":"))
    assert R.parse_rank_table(compact).canonical_sha256 == R.parse_rank_table(text).canonical_sha256
    changed = text.replace("192.1.27.6", "192.1.27.60")
    assert R.parse_rank_table(changed).canonical_sha256 != R.parse_rank_table(text).canonical_sha256


def test_vllm_ascend_2498_prefill_decode_table() -> None:
    table = R.parse_rank_table(body(PD_2498))
    assert (table.kind, table.version, table.status, table.server_count) == ("vllm-pd", "1.2", "completed", "2")
    assert table.problems == ()
    assert [(s.server_id, [d.device_ip for d in s.devices]) for s in table.servers] == [
        ("172.17.0.6", ["192.170.100.100"]), ("172.17.0.7", ["192.170.100.101"])]
    prefill, decode = table.devices()
    assert (prefill.path, prefill.role, prefill.device_id, prefill.cluster_id, prefill.rank_id) == \
        ("prefill_device_list[0]", "prefill", "0", "1", None)
    assert (decode.path, decode.role, decode.device_id, decode.cluster_id) == \
        ("decode_device_list[0]", "decode", "1", "2")


@pytest.mark.parametrize("index", [0, 1])
def test_documentation_templates_are_not_json_and_say_why(index: int) -> None:
    with pytest.raises(R.RankTableError, match=r"line 2 column \d+: .*// comments.*delete before use"):
        R.parse_rank_table(templates()[index])


def test_a3_template_layout_once_the_comments_are_gone() -> None:
    table = R.parse_rank_table(uncomment(templates()[0]))
    assert (table.kind, table.version, table.server_count) == ("hccl", "1.2", "1")
    server = table.servers[0]
    assert (server.server_id, server.host_ip, server.container_ip) == ("xx-xx-xx-xx", "xx.xx.xx.xx", "192.168.149.xx")
    assert [(d.device_id, d.super_device_id, d.rank_id) for d in server.devices] == [("0", "37748736", "0"),
                                                                                   ("7", "38600711", "7")]
    assert table.super_pod_servers == (("0", "xx-xx-xx-xx"),)
    assert table.problems == ()  # masked addresses are values: ASC-RT-004 judges them, not the shape


def test_950_template_layout_once_the_comments_are_gone() -> None:
    table = R.parse_rank_table(uncomment(templates()[1]))
    assert (table.kind, table.version, table.rank_count, table.servers) == ("hccl-2.0", "2.0", "1", ())
    assert [(r.path, r.rank_id, r.device_id) for r in table.ranks] == [("rank_list[0]", "0", "0")]
    # rank_count, rank_id and device_id are JSON numbers in the 2.0 template: accepted, as warnings
    assert {p.path for p in table.problems} == {"rank_count", "rank_list[0].rank_id", "rank_list[0].device_id",
                                                "rank_list[0].local_id"}
    assert {p.severity for p in table.problems} == {R.WARNING}


# -- shape problems by JSON path -------------------------------------------------------------------------


def _hccl(**over: Any) -> Dict[str, Any]:
    table: Dict[str, Any] = json.loads(body(MINDSPORE_16))
    table.update(over)
    return table


def test_problems_name_their_json_path() -> None:
    table = _hccl(status="initializing", version="3.1")
    table["server_list"][1]["device"][5].pop("device_ip")
    table["server_list"][0]["device"][2]["rank_id"] = "two"
    table["server_list"][0]["device"][3] = "not an object"
    table["server_list"][1]["device"][6]["device_id"] = None
    parsed = R.parse_rank_table(json.dumps(table))
    problems = {(p.path, p.severity): p.message for p in parsed.problems}
    assert problems == {
        ("status", R.ERROR): "is 'initializing': HCCL uses a rank table only when it is \"completed\"",
        ("version", R.WARNING): "is '3.1'; a HCCL server_list table is version '1.0' or '1.2'",
        ("server_list[1].device[5].device_ip", R.ERROR): "is missing",
        ("server_list[0].device[2].rank_id", R.ERROR): "is 'two', not a whole number",
        ("server_list[0].device[3]", R.ERROR): "is a JSON string, not an object",
        ("server_list[1].device[6].device_id", R.ERROR): "is a JSON null, not a string",
    }


def test_numbers_where_the_template_has_strings_are_warnings() -> None:
    table = _hccl(server_count=2)
    table["server_list"][0]["device"][0]["rank_id"] = 0
    parsed = R.parse_rank_table(json.dumps(table))
    assert [(p.path, p.severity) for p in parsed.problems] == [("server_count", R.WARNING),
                                                               ("server_list[0].device[0].rank_id", R.WARNING)]
    assert parsed.server_count == "2" and parsed.devices()[0].rank_id == "0"


@pytest.mark.parametrize("text, message", [
    ("[]", "a JSON array, not an object"),
    ('{"servers": []}', "this is not a rank table (keys: servers)"),
    ('{"server_list": [],}', "a comma before a closing"),
    ("{\n  ...\n}", "'...' elision"),
    ("", "not valid JSON at line 1 column 1"),
])
def test_unusable_text_is_one_line(text: str, message: str) -> None:
    with pytest.raises(R.RankTableError) as info:
        R.parse_rank_table(text)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_bounded_before_anything_is_built() -> None:
    started = time.monotonic()
    with pytest.raises(R.RankTableError, match="nested too deeply"):
        R.parse_rank_table('{"server_list": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(R.RankTableError, match="more than"):
        R.parse_rank_table('{"server_list": [' + "{}," * 300_000 + "{}]}")
    with pytest.raises(R.RankTableError, match="characters, more than"):
        R.parse_rank_table(" " * (R.MAX_CHARS + 1))
    assert time.monotonic() - started < 2.0


def test_a_4096_server_table_parses_quickly() -> None:
    servers = [{"server_id": f"10.0.{i // 256}.{i % 256}", "device": [
        {"device_id": str(d), "device_ip": f"192.{d}.{i // 256}.{i % 256}", "rank_id": str(i * 16 + d)}
        for d in range(16)]} for i in range(4096)]
    text = json.dumps({"version": "1.0", "status": "completed", "server_count": "4096", "server_list": servers})
    started = time.monotonic()
    table = R.parse_rank_table(text)
    assert len(table.devices()) == 65536 and not table.problems
    assert time.monotonic() - started < 3.0


# -- fuzzers (free and mutated text: tests/fuzz/test_fuzz_parsers.py); here any JSON value ------

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 20) | st.sampled_from(["0", "1", "1.0", "1.2", "2.0", "completed",
                                                                        "192.1.27.6", "xx.xx.xx.xx", ""]),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.sampled_from(["server_list", "device", "device_id", "device_ip", "rank_id", "server_id", "status",
                         "version", "server_count", "rank_list", "rank_count", "prefill_device_list",
                         "decode_device_list", "cluster_id", "super_pod_list", "super_pod_id", "host_ip",
                         "super_device_id", "level_list"]), children, max_size=6),
    max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(_JSON)
def test_fuzz_any_json_value(value: Any) -> None:
    with contextlib.suppress(R.RankTableError):
        table = R.parse_rank_table(json.dumps(value))
        table.devices()
        table.to_dict()
        for problem in table.problems:
            assert problem.severity in (R.ERROR, R.WARNING) and "\n" not in problem.message
