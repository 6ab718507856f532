"""Planted secrets never reach an output (docs/redaction.md; field review rows M1-M4 and 160).

More than 60 different secrets are planted in the environment, in process command lines, in
command outputs and in captured files of a fake machine, and in a ``matrix update`` URL. Each
carries a unique marker; no marker may appear in the snapshot (folder or archive), in a report
of the live run or of the snapshot replay in any format, in ``matrix.source.json`` or on the
terminal. What support needs (versions, paths, ports, ASCEND_* settings) must survive.
"""

from __future__ import annotations

import gzip
import http.server
import json
import os
import re
import threading
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

import pytest
from click.testing import Result

from ascend_doctor import capture
from ascend_doctor.cli import main
from ascend_doctor.host.base import ProcessInfo
from ascend_doctor.redaction.secrets import REDACTED, redact_cmdline, redact_env, redact_text
from ascend_doctor.render import REPORT_FORMATS

from .clirunner import make_runner
from .test_snapshot_capture import (
    ASCEND_INSTALL_INFO,
    DRIVER_VERSION_INFO,
    NPU_SMI_INFO_310P3,
    NPU_SMI_INFO_L,
    FakeLiveHost,
    ok,
    write,
)

REPO = Path(__file__).resolve().parent.parent


def marker(n: int) -> str:
    """A unique string that fits every token alphabet (letters and digits)."""
    return f"PLNT{n:02d}QX{n:02d}Z"


def fill(n: int, length: int) -> str:
    """``marker(n)`` padded with letters to ``length`` characters (token shapes need lengths)."""
    core = marker(n)
    return core + ("abcdefghijkmnopqrstuvwxyz" * 4)[: max(0, length - len(core))]


M = marker
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOi" + fill(13, 20) + ".c2lnbmF0dXJlX3BhcnQ"
PEM = f"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE{M(39)}AAAA\n-----END OPENSSH PRIVATE KEY-----"

# -- environment: secret names (1-24) and secret values under innocent names (25-41) ----------
PLANTED_ENV: Dict[str, str] = {
    "HF_TOKEN": "hf_" + fill(1, 34),
    "HUGGING_FACE_HUB_TOKEN": M(2),
    "AWS_SECRET_ACCESS_KEY": f"{M(3)}/abcdEFGH1234",
    "AWS_SESSION_TOKEN": M(4),
    "GITHUB_PAT": "github_pat_" + fill(5, 40),
    "MY_PASS": M(6),
    "DB_PWD": M(7),
    "MYSQL_PWD": M(8),
    "PGPASSWORD": M(9),
    "RSYNC_PASSWORD": M(10),
    "SSHPASS": M(11),
    "ANSIBLE_VAULT_PASS": M(12),
    "CI_JOB_JWT": JWT,
    "HCCL_AUTH": M(14),
    "NPM_CONFIG__AUTH": M(15),
    "GIT_ASKPASS_VALUE": M(16),
    "CREDS": M(17),
    "AUTH": f"Bearer_{M(18)}",
    "ASCEND_LICENSE": M(19),
    "WANDB_API_KEY": M(20),
    "OPENAI_API_KEY": "sk-proj-" + fill(21, 40),
    "DOCKER_AUTH_CONFIG": json.dumps({"auths": {"registry.example": {"auth": M(22)}}}),
    "HUAWEICLOUD_SDK_SK": M(23),
    "MODELSCOPE_API_TOKEN": M(24),
    "http_proxy": f"proxyuser:{M(25)}@proxy:3128",
    "https_proxy": f"http://bob:{M(26)}@proxy.corp:8080",
    "REDIS_URL": f"redis://:{M(27)}@redis:6379/0",
    "MODEL_URL": f"https://blob.example/m.safetensors?sv=2020-08-04&sig={M(28)}",
    "CURL_URL": f"https://api.example/x?access_token={M(29)}&page=2",
    "VLLM_EXTRA": f"--api-key {M(30)} --port 8000",
    "HEADERS": f"Authorization: Bearer {M(31)}",
    "AZURE_STORAGE_CONNECTION_STRING": f"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={M(32)}==;"
                                       "EndpointSuffix=core.windows.net",
    "SENTRY_DSN": f"https://{M(33)}@o1.ingest.sentry.io/1",
    "DB_URL": f"postgres://app:{M(34)}@db:5432/x",
    "S3_PRESIGNED": f"https://s3.amazonaws.com/b/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature={M(35)}",
    "TOOL_CFG": json.dumps({"user": "svc", "password": M(36)}),
    "JAVA_OPTS": f"-Dtrust.password={M(37)} -Xmx1g",
    "MY_GH_REMOTE": f"https://ghp_{fill(38, 36)}@github.com/org/repo.git",
    "PRIVATE_BLOB": PEM,
    "GOOGLE_MAPS": "AIza" + fill(40, 35),
    "SLACK_HOOK": "xoxb-" + fill(41, 24),
}

# -- process command lines (42-61) -------------------------------------------------------------
PLANTED_PROCESSES: List[ProcessInfo] = [
    ProcessInfo(4242, "vllm", ("python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "/data/models/R1",
                               "--api-key", M(42), f"--hf-token={M(43)}", "--password", M(44), "--token", M(45),
                               "--auth", M(46), f"--secret-key={M(47)}", f"Authorization: Bearer {M(48)}",
                               f"https://u:{M(49)}@mirror.example/x", f"https://h.example/x?token={M(50)}",
                               "--passwd", M(51), "-p", M(52), "--api_key", M(53),
                               "--tensor-parallel-size", "8", "--max-num-batched-tokens", "8192", "--port", "8000")),
    ProcessInfo(4243, "mysql", ("mysql", f"-p{M(54)}", "-u", "root", "metrics")),
    ProcessInfo(4244, "sshpass", ("sshpass", "-p", M(55), "ssh", "node-2")),
    ProcessInfo(4245, "curl", ("curl", "-u", f"bob:{M(56)}", "-H", f"X-Api-Key: {M(60)}",
                               "https://models.example/list")),
    ProcessInfo(4246, "env", ("env", f"PASSWORD={M(57)}", "mindieservice_daemon")),
    ProcessInfo(4247, "uploader", ("uploader", "--access-key-id", "AKIA" + M(58) + "ABCDE",
                                   "glpat-" + fill(59, 24), "--db", f"postgres://u:{M(61)}@h/db")),
]

# -- command outputs and captured files (62-67) ------------------------------------------------
DMESG = ("[    0.000000] Linux version 5.10.0-182.0.0.95.oe2203sp3.aarch64\n"
         f"[ 1234.5] audit: type=1105 cmd=curl -H 'Authorization: Bearer {M(62)}' https://x\n")
PROC_CMDLINE = f"BOOT_IMAGE=/vmlinuz-5.10.0 root=/dev/mapper/root ro rd.auth.password={M(63)} quiet\n"
HCCN_CONF = f"address_0=192.168.100.101\nnetmask_0=255.255.255.0\n# token={M(64)}\n"
PLOG = ("[ERROR] RUNTIME(1234,python):2025-01-01-10:00:00.000.000 [stream.cc:1] EZ9999: Inner Error!\n"
        f"[INFO] downloading https://user:{M(65)}@mirror.example/weights (token hf_{fill(66, 34)})\n")
LSPCI = f"0000:c1:00.0 Processing accelerators: Huawei Device d802 (rev 20) password={M(67)}\n"

# -- names that end like a password (80-84): _PW, PASS, PASSPHRASE, CREDENTIAL(S) -------------------
PLANTED_ENV.update({"DB_PW": M(80), "SMTP_PASS": M(81), "GPG_PASSPHRASE": M(82), "AWS_CREDENTIALS": M(83),
                    "APP_CREDENTIAL": M(84)})

ALL_MARKERS = [M(n) for n in (*range(1, 68), *range(80, 85))]

# What support needs: must survive redaction.
KEPT_ENV = {"ASCEND_HOME_PATH": "/usr/local/Ascend/ascend-toolkit/latest", "ASCEND_RT_VISIBLE_DEVICES": "0,1,2,3",
            "ASCEND_PROCESS_LOG_PATH": "", "HCCL_CONNECT_TIMEOUT": "1200", "PYTORCH_NPU_ALLOC_CONF":
            "expandable_segments:True", "TOKENIZERS_PARALLELISM": "false", "PATH": "/usr/local/bin:/usr/bin",
            "LD_LIBRARY_PATH": "/usr/local/Ascend/driver/lib64", "PWD": "/root/work", "no_proxy": "localhost,127.0.0.1",
            "VLLM_VERSION": "0.9.1", "HCCL_SOCKET_IFNAME": "eth0", "OMP_NUM_THREADS": "10"}


def test_at_least_sixty_different_secrets_are_planted() -> None:
    assert len(set(ALL_MARKERS)) >= 60
    planted = json.dumps([PLANTED_ENV, [p.cmdline for p in PLANTED_PROCESSES], DMESG, PROC_CMDLINE, HCCN_CONF,
                          PLOG, LSPCI])
    assert all(m in planted for m in ALL_MARKERS)


class PlantedHost(FakeLiveHost):
    """The fake machine of test_snapshot_capture, with secrets everywhere."""

    def __init__(self, log_dir: Path) -> None:
        super().__init__({
            ("npu-smi", "info"): ok(["npu-smi", "info"], NPU_SMI_INFO_310P3),
            ("npu-smi", "info", "-l"): ok(["npu-smi", "info", "-l"], NPU_SMI_INFO_L),
            ("dmesg",): ok(["dmesg"], DMESG),
            ("lspci",): ok(["lspci"], LSPCI),
        })
        self.log_dir = log_dir

    def env(self) -> Dict[str, str]:
        return {**PLANTED_ENV, **KEPT_ENV, "ASCEND_PROCESS_LOG_PATH": str(self.log_dir)}

    def processes(self) -> Optional[List[ProcessInfo]]:
        return list(PLANTED_PROCESSES)


@pytest.fixture()
def machine(tmp_path: Path) -> Tuple[Path, PlantedHost]:
    root = tmp_path / "machine"
    write(root / "etc/ascend_install.info", ASCEND_INSTALL_INFO)
    write(root / "etc/hccn.conf", HCCN_CONF)
    write(root / "proc/cmdline", PROC_CMDLINE)
    write(root / "usr/local/Ascend/driver/version.info", DRIVER_VERSION_INFO)
    # The log folder is a path of the captured machine (files are read under its root).
    write(root / "var/log/ascend-logs/debug/plog/plog-1234_20250101100000000.log", PLOG)
    return root, PlantedHost(Path("/var/log/ascend-logs"))


def leaks(data: bytes) -> List[str]:
    return [m for m in ALL_MARKERS if m.encode() in data]


def tree_bytes(root: Path) -> bytes:
    found = []
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = Path(folder, name)
            if not path.is_symlink():
                found.append(path.read_bytes())
    return b"\n".join(found)


def test_snapshots_carry_no_planted_secret(machine: Tuple[Path, PlantedHost], tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    root, host = machine
    monkeypatch.delenv("ASCEND_HOME_PATH", raising=False)
    folder = tmp_path / "snapdir"
    capture.capture_snapshot(str(folder) + "/", host=host, fs_root=str(root))
    archive = tmp_path / "snap.tar.gz"
    capture.capture_snapshot(str(archive), host=host, fs_root=str(root))
    everything = tree_bytes(folder)
    # The planted channels were really captured (else this test proves nothing) ...
    assert b"netmask_0=255.255.255.0" in everything
    # /proc/cmdline and lspci are read by no check, so the capture (derived from what the checks
    # declare) does not record them at all.
    assert b"rd.auth.password" not in everything and b"Processing accelerators" not in everything
    assert b"EZ9999: Inner Error!" in everything and b"audit: type=1105" in everything
    assert b"--max-num-batched-tokens" in everything and b"mindieservice_daemon" in everything
    # ... and nothing secret came along, in the folder or in the archive.
    assert leaks(everything) == []
    assert leaks(gzip.decompress(archive.read_bytes())) == []
    # What support needs survived.
    env = json.loads((folder / "env.json").read_text())
    for name, value in KEPT_ENV.items():
        if name != "ASCEND_PROCESS_LOG_PATH":
            assert env[name] == value, name
    processes = json.loads((folder / "host.json").read_text())["processes"]
    vllm = next(p["cmdline"] for p in processes if p["pid"] == 4242)
    assert vllm[-6:] == ["--tensor-parallel-size", "8", "--max-num-batched-tokens", "8192", "--port", "8000"]
    assert "/data/models/R1" in vllm
    assert (folder / "files/usr/local/Ascend/driver/version.info").read_text() == DRIVER_VERSION_INFO


@pytest.fixture()
def snapshot_dir(machine: Tuple[Path, PlantedHost], tmp_path: Path) -> Path:
    root, host = machine
    folder = tmp_path / "replay"
    capture.capture_snapshot(str(folder) + "/", host=host, fs_root=str(root))
    return folder


VLLM_ARGS = f"vllm serve /data/models/R1 --api-key {M(42)} --hf-token={M(43)} --tensor-parallel-size 8"


@pytest.mark.parametrize("fmt", REPORT_FORMATS)
def test_reports_carry_no_planted_secret(fmt: str, machine: Tuple[Path, PlantedHost], snapshot_dir: Path,
                                         tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _root, host = machine
    import ascend_doctor.host.factory as factory

    real_make_host = factory.make_host
    monkeypatch.setattr(factory, "make_host", lambda snapshot, *a, **k: real_make_host(snapshot, *a, **k)
                        if snapshot else host)
    runs = {"live": ["check"], "replay": ["check", "--from", str(snapshot_dir)]}
    for label, args in runs.items():
        out = tmp_path / f"{label}.{fmt}"
        result = make_runner().invoke(main, [*args, "--vllm-args", VLLM_ARGS, "-v", "--format", fmt, "-o", str(out)],
                                    catch_exceptions=False)
        assert result.exit_code in (0, 1, 3), result.output
        assert out.stat().st_size > 0
        assert leaks(out.read_bytes() + result.output.encode()) == [], label
        result = make_runner().invoke(main, [*args, "--vllm-args", VLLM_ARGS, "-v", "--format", fmt],
                                    catch_exceptions=False)
        assert leaks(result.output.encode()) == [], label


def test_the_live_report_had_secrets_to_hide(machine: Tuple[Path, PlantedHost],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the redaction of prepare_report (every report goes through it), the report above would carry
    planted secrets."""
    _root, host = machine
    import ascend_doctor.host.factory as factory
    import ascend_doctor.redaction.secrets as secrets

    monkeypatch.setattr(factory, "make_host", lambda *a, **k: host)
    monkeypatch.setattr(secrets, "redact_report", lambda report: report)
    result = make_runner().invoke(main, ["check", "--vllm-args", VLLM_ARGS, "-v", "--format", "json"],
                                catch_exceptions=False)
    assert leaks(result.output.encode())


# -- matrix update --url (row 160) -------------------------------------------------------------


@pytest.fixture()
def bundle_server() -> Iterator[str]:
    from ascend_doctor.matrix.bundle import bundle_text
    from ascend_doctor.matrix.meta import shipped_matrix_path

    text = bundle_text(shipped_matrix_path())
    data = re.sub(r"(?m)^version: .*$", 'version: "2099.01.01"', text, count=1).encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path.startswith("/good"):
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            else:
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_row160_matrix_update_url_credentials_are_not_echoed_or_stored(bundle_server: str, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASCEND_DOCTOR_DATA_DIR", str(tmp_path / "data"))
    url = f"http://user:{M(68)}@{bundle_server}/good?token={M(69)}"
    result = make_runner().invoke(main, ["matrix", "update", "--url", url], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    stored = (tmp_path / "data" / "matrix.source.json").read_text()
    for secret in (M(68), M(69)):
        assert secret not in result.output and secret not in stored
    assert f"{bundle_server}/good" in result.output and json.loads(stored)["from"].endswith("/good?token=" + REDACTED)
    result = make_runner().invoke(main, ["matrix", "update", "--url", f"http://user:{M(70)}@{bundle_server}/missing"],
                                catch_exceptions=False)
    assert result.exit_code != 0 and M(70) not in result.output
    result = make_runner().invoke(main, ["matrix", "update", "--url", f"ftp://user:{M(71)}@{bundle_server}/x"],
                                catch_exceptions=False)
    assert result.exit_code == 2 and M(71) not in result.output


# -- the policy, value by value -----------------------------------------------------------------


def test_every_planted_env_value_is_redacted() -> None:
    redacted = redact_env(PLANTED_ENV)
    assert leaks(json.dumps(redacted).encode()) == []
    assert redacted["https_proxy"] == f"http://{REDACTED}@proxy.corp:8080"  # the proxy host stays
    assert redacted["VLLM_EXTRA"] == f"--api-key {REDACTED} --port 8000"


def test_every_planted_command_line_is_redacted() -> None:
    for process in PLANTED_PROCESSES:
        shown = redact_cmdline(process.cmdline)
        assert leaks(json.dumps(shown).encode()) == [], shown
        assert len(shown) == len(process.cmdline)


@pytest.mark.parametrize("args", [
    ("docker", "run", "-p", "8000:8000", "-p", "127.0.0.1:8080:80/tcp", "image"),
    ("mkdir", "-p", "/var/log/npu"),
    ("vllm", "serve", "/data/models/DeepSeek-R1", "--max-num-batched-tokens", "8192", "--max-model-len", "32768",
     "--enable-auth", "--port", "8000", "--token", "$HF_TOKEN"),
])
def test_command_lines_support_needs_are_kept(args: Sequence[str]) -> None:
    assert redact_cmdline(args) == list(args)


@pytest.mark.parametrize("text", [
    "driver 24.1.rc2.2, CANN 8.0.RC3, torch_npu 2.4.0.post2",
    "Driver_Install_Path_Param=/usr/local/Ascend",
    "PYTORCH_NPU_ALLOC_CONF=expandable_segments:True ASCEND_RT_VISIBLE_DEVICES=0,1",
    "Basic Information", "max token length 4096", "git@github.com:Ascend/pytorch.git",
    "[ERROR] RUNTIME(12345,python):2024-01-01-00:00:00.000.000 [stream.cc:1] ret=507011",
    "export HF_TOKEN=<your token>", "pip install torch==2.1.0 torch-npu==2.1.0.post8",
    "signature SIG-KDRV-UDA-CONFLICT", "key=value", "sort_keys=False",
])
def test_text_support_needs_is_kept(text: str) -> None:
    assert redact_text(text) == text


def test_redaction_is_idempotent() -> None:
    once = redact_env(PLANTED_ENV)
    assert redact_env(once) == once
    for process in PLANTED_PROCESSES:
        shown = redact_cmdline(process.cmdline)
        assert redact_cmdline(shown) == shown


def test_fixture_reports_are_untouched() -> None:
    """No false positive on any shipped scenario: their reports do not change."""
    from ascend_doctor.redaction.secrets import redact_json

    for fixture in sorted((REPO / "fixtures").iterdir()):
        if not (fixture / "snapshot.json").is_file():
            continue
        for name in ("env.json", "host.json"):
            if (fixture / name).is_file():
                doc = json.loads((fixture / name).read_text())
                assert redact_json(doc) == doc, f"{fixture.name}/{name}"
        for folder, _dirs, files in os.walk(fixture / "commands"):
            for file_name in files:
                text = Path(folder, file_name).read_text(encoding="utf-8", errors="surrogateescape")
                assert redact_text(text) == text, f"{fixture.name}/commands/{file_name}"


def test_diagnose_never_echoes_a_secret_from_the_log(tmp_path: Path) -> None:
    log = tmp_path / "plog.log"
    log.write_text(f"EZ9999: Inner Error! fetching https://u:{M(72)}@mirror.example/w?token={M(73)}\n"
                   f"[ERROR] HCCL EI0006 socket timeout, Authorization: Bearer {M(74)}\n")
    for fmt in ("text", "json"):
        result = make_runner().invoke(main, ["diagnose", str(log), "--format", fmt], catch_exceptions=False)
        assert "EZ9999" in result.output
        assert not any(M(n) in result.output for n in (72, 73, 74)), result.output



# -- snapshot --model: secrets inside the copied config.json and other JSON (85-90) -------------------
MODEL_SECRETS = {"hf_token": "hf_" + fill(85, 34), "_name_or_path": f"https://user:{M(86)}@hf.example/x",
                 "db_pw": M(87), "download": {"api_key": M(88)}}
MODEL_MARKERS = [M(n) for n in range(85, 91)]


def invoke(*args: str) -> Result:
    runner = make_runner()
    return runner.invoke(main, list(args), catch_exceptions=False)


def model_leaks(data: bytes) -> List[str]:
    return [m for m in MODEL_MARKERS if m.encode() in data]


@pytest.fixture()
def planted_model(tmp_path: Path) -> Path:
    import shutil

    model = tmp_path / "models" / "DeepSeek-R1-W8A8"
    shutil.copytree(REPO / "fixtures/w8a8-weights-ready/files/data/models/DeepSeek-R1-W8A8", model)
    config = json.loads((model / "config.json").read_text(encoding="utf-8"))
    config.update(MODEL_SECRETS)
    (model / "config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    description = next(model.glob("quant_model_description*.json"))
    data = json.loads(description.read_text(encoding="utf-8"))
    data["upload_url"] = f"https://svc:{M(89)}@store.example/q"
    description.write_text(json.dumps(data, indent=2), encoding="utf-8")
    (model / "tokenizer_config.json").write_text(json.dumps({"auth_token": M(90), "model_max_length": 16384}),
                                                 encoding="utf-8")
    return model


@pytest.mark.slow
def test_snapshot_model_copies_no_secret(planted_model: Path, tmp_path: Path) -> None:
    """hostile_inputs_2 defect 12: config.json secrets were copied verbatim, also with --redact."""
    for label, extra in (("plain", ()), ("redacted", ("--redact",))):
        archive = tmp_path / f"{label}.tar.gz"
        result = invoke("snapshot", "--model", str(planted_model), *extra, "-o", str(archive))
        assert result.exit_code == 0, result.stderr
        assert model_leaks(gzip.decompress(archive.read_bytes()) + result.output.encode()) == [], label
        # What the model checks read is still there, and still JSON.
        unpacked = gzip.decompress(archive.read_bytes())
        assert b'"model_type"' in unpacked and b"<redacted>" in unpacked
        for fmt in REPORT_FORMATS:
            out = tmp_path / f"{label}.{fmt}"
            graded = invoke("check", "--from", str(archive), "--model", str(planted_model), "--select", "ASC-MDL",
                            "-v", "--format", fmt, "-o", str(out))
            assert graded.exit_code in (0, 1, 3), graded.stderr
            assert model_leaks(out.read_bytes()) == [], (label, fmt)
            if fmt == "json":
                statuses = {r["id"]: r["status"] for r in json.loads(out.read_text())["results"]}
                assert statuses["ASC-MDL-001"] == "PASS", statuses  # the redacted config.json still reads


# -- fleet, report render, report diff: secrets inside node reports from other machines (91-95) --------
REPORT_MARKERS = [M(n) for n in range(91, 96)]


def planted_node_report(name: str) -> Dict[str, Any]:
    """A node report (another machine's, edited or written by an older ascend-doctor) with secrets in the
    fields fleet and report render show: a finding's message and evidence, a package version, HCCL values."""
    from .render_util import report_dict

    data = report_dict("fleet-16/node01")
    data["host"]["hostname"] = name
    worst = next(r for r in data["results"] if r["status"] == "FAIL")
    worst["message"] += f" (fetched from https://u:{M(91)}@mirror.example/rt?token={M(92)})"
    worst["evidence"] = {"url": f"https://h.example/x?access_token={M(93)}"}
    data["facts"]["hccl_env"]["HCCL_CONNECT_TIMEOUT"] = f"1200 --api-key {M(94)}"
    data["facts"]["python"]["packages"]["torch"] = f"2.4.0 Authorization: Bearer {M(95)}"
    return data


def report_leaks(data: bytes) -> List[str]:
    return [m for m in REPORT_MARKERS if m.encode() in data]


@pytest.mark.slow
def test_fleet_render_and_diff_carry_no_planted_secret(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    reports.mkdir()
    for name in ("node01", "node02", "node03"):
        (reports / f"{name}.json").write_text(json.dumps(planted_node_report(name)), encoding="utf-8")
    assert report_leaks((reports / "node01.json").read_bytes()) == REPORT_MARKERS  # planted, really
    outputs = tmp_path / "out"
    outputs.mkdir()
    for fmt in REPORT_FORMATS:
        for extra in ((), ("--redact",)):
            out = outputs / f"fleet{''.join(extra)}.{fmt}"
            result = invoke("fleet", str(reports), "-v", "--format", fmt, "-o", str(out), *extra)
            assert result.exit_code in (0, 1, 3), result.stderr
            assert report_leaks(out.read_bytes() + result.output.encode() + result.stderr.encode()) == [], fmt
            shown = invoke("fleet", str(reports), "-v", "--format", fmt, *extra)
            assert report_leaks(shown.output.encode()) == [], fmt
            rendered = outputs / f"render{''.join(extra)}.{fmt}"
            result = invoke("report", "render", str(reports / "node01.json"), "-v", "--format", fmt,
                            "-o", str(rendered), *extra)
            assert result.exit_code in (0, 1, 3), result.stderr
            assert report_leaks(rendered.read_bytes() + result.output.encode()) == [], fmt
    for fmt in ("text", "json"):
        result = invoke("report", "diff", str(reports / "node01.json"), str(reports / "node02.json"), "--format", fmt,
                        "-o", str(outputs / f"diff.{fmt}"))
        assert result.exit_code in (0, 1, 3), result.stderr
        assert report_leaks((outputs / f"diff.{fmt}").read_bytes() + result.output.encode()) == [], fmt


@pytest.mark.parametrize("name,secret", [
    ("DB_PW", True), ("redis_pw", True), ("MYSQL_ROOT_PWD", True), ("SMTP_PASS", True), ("GPG_PASSPHRASE", True),
    ("AWS_CREDENTIALS", True), ("APP_CREDENTIAL", True),
    ("PW_MODE", False), ("NPU_POWER", False), ("PWD", False), ("HCCL_CONNECT_TIMEOUT", False),
])
def test_names_that_end_like_a_password_are_secret(name: str, secret: bool) -> None:
    from ascend_doctor.redaction.secrets import is_secret_name

    assert is_secret_name(name) is secret
