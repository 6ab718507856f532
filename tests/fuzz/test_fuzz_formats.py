"""Fuzzers for structured untrusted input: safetensors headers, JSON and YAML (bounded),
serving configs and vLLM command lines, model config.json, manifests, signature files,
matrix files and JSON reports."""

from __future__ import annotations

import io
import json
import struct
import tempfile
from typing import Any

import yaml
from hypothesis import given
from hypothesis import strategies as st

from ascend_doctor import boundedjson, boundedyaml
from ascend_doctor.logscan.signatures import parse_signatures
from ascend_doctor.matrix.loader import compose_text, load_document
from ascend_doctor.model.arch import ArchError, arch_from_hf_config
from ascend_doctor.model.manifest import ManifestError, parse_manifest
from ascend_doctor.model.safetensors import HeaderError, parse_header_json, read_header
from ascend_doctor.parsers import serving_config
from ascend_doctor.reportio import ReportReadError, parse_report_text

from ..model_fixtures import header_bytes
from .harness import check_contract, fuzz_bytes, fuzz_text, mutated, repo_text, samples

# -- safetensors headers ------------------------------------------------------------------------
_TENSORS = {"model.layers.0.mlp.experts.0.down_proj.weight": ("BF16", [7168, 2048]),
            "model.layers.0.mlp.experts.0.down_proj.weight_scale": ("F32", [7168, 1]),
            "model.layers.0.self_attn.q_a_proj.weight": ("I8", [1536, 7168]),
            "lm_head.weight": ("F8_E4M3", [129280, 7168])}
HEADERS = [header_bytes(_TENSORS, {"format": "pt"})[0][8:], header_bytes({"x": ("F16", [1])})[0][8:], b"{}"]
test_fuzz_safetensors_header_json = fuzz_bytes(parse_header_json, HEADERS, (HeaderError,))


class _BytesSource:
    """A FileSource over one in-memory file (read_header opens it through the source)."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def open_binary(self, path: str) -> Any:
        return io.BytesIO(self.data)


def _whole_file(data: bytes) -> Any:
    return read_header(_BytesSource(data), "w.safetensors", "w.safetensors", len(data))  # type: ignore[arg-type]


FILES = [header_bytes(_TENSORS)[0] + b"\0" * 64, struct.pack("<Q", 2**63) + b"{}", b"version https://git-lfs"]
test_fuzz_safetensors_file = fuzz_bytes(_whole_file, FILES)  # never raises: problems are recorded

# -- JSON and YAML, bounded ---------------------------------------------------------------------
JSON_SEEDS = samples("serving-configs/*.json.txt", "serving-configs/mindie-*.txt", "model-dirs/hf-*.txt")
test_fuzz_bounded_json = fuzz_text(lambda text: boundedjson.loads(text, max_chars=1 << 20), JSON_SEEDS,
                                   (ValueError,))
YAML_SEEDS = repo_text("compat_matrix/chips.yaml", "compat_matrix/mindie.yaml") + ["models: [[[a]]]\n",
                                                                                   "a: &a [1]\nb: [*a, *a]\n"]
# PyYAML's own errors span lines (callers keep the first); ours are one line.
test_fuzz_bounded_yaml = fuzz_text(lambda text: boundedyaml.safe_load(text), YAML_SEEDS,
                                   (boundedjson.TooComplex, yaml.YAMLError), one_line=(boundedjson.TooComplex,))

# -- serving configs and launch lines ------------------------------------------------------------
SERVING = samples("serving-configs/*.txt")
test_fuzz_serving_config_json = fuzz_text(lambda text: serving_config.parse_serving_text(text, "config.json"), SERVING)
test_fuzz_serving_config_yaml = fuzz_text(lambda text: serving_config.parse_serving_text(text, "config.yaml"), SERVING)
test_fuzz_vllm_args = fuzz_text(serving_config.parse_vllm_args, samples("serving-configs/vllm-*.txt"))


def _hf_config(text: str) -> Any:
    data = boundedjson.loads(text)
    if isinstance(data, dict):
        return arch_from_hf_config(data)
    return None


test_fuzz_model_config_json = fuzz_text(_hf_config, samples("model-dirs/hf-*.txt", "serving-configs/model-*.txt"),
                                        (ValueError, ArchError))

# -- manifests ----------------------------------------------------------------------------------
_MANIFEST = json.dumps({"format": "ascend-doctor-manifest", "version": 1, "files": [
    {"path": "config.json", "size": 1790, "sha256": "a" * 64},
    {"path": "model-00001-of-00002.safetensors", "size": 4_997_000_000, "sha256": "b" * 64}]})
SHA256SUMS = samples("model-dirs/ecotech-*.txt")
test_fuzz_manifest = fuzz_bytes(parse_manifest, [_MANIFEST.encode(), *(s.encode() for s in SHA256SUMS)],
                                (ManifestError,))

# -- signature files (diagnose --signatures, the shipped database) --------------------------------
SIGNATURES = repo_text("compat_matrix/signatures.yaml")
test_fuzz_signature_file = fuzz_text(lambda text: parse_signatures(text, "sig.yaml"),
                                     [SIGNATURES[0][:6000], SIGNATURES[0][-6000:]])

# -- matrix files (--matrix, ASCEND_DOCTOR_MATRIX, matrix update --file) --------------------------
MATRIX = repo_text("compat_matrix/hdk_cann.yaml", "compat_matrix/chips.yaml")


@given(text=mutated([m[:8000] for m in MATRIX]))
def test_fuzz_matrix_file(text: str) -> None:
    def load() -> Any:
        compose_text(text, "m.yaml")
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", encoding="utf-8", errors="surrogatepass") as fh:
            fh.write(text)
            fh.flush()
            return load_document(fh.name, allow_include=False)

    check_contract(load, ())


# -- JSON reports (report render / report diff) ----------------------------------------------------
_REPORT = json.dumps({"schema_version": 2, "tool": {"name": "ascend-doctor", "version": "0.1.0"}, "matrix": {},
                      "host": {"hostname": "node-1"}, "facts": {}, "results": [
                          {"id": "ASC-DRV-001", "title": "t", "status": "PASS", "message": "m", "remediation": "",
                           "evidence": {}, "scope": None, "duration_s": 0.1, "actions": []}],
                      "summary": {"PASS": 1}, "notes": [], "fix_plan": [], "exit_code": 0})


@given(text=st.one_of(mutated([_REPORT]), st.text(max_size=200)))
def test_fuzz_json_report(text: str) -> None:
    check_contract(lambda: parse_report_text(text, "r.json"), (ReportReadError,))
