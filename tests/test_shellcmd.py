"""Commands are data: ascend_doctor/shellcmd.py quotes every word once and checks shapes."""

from __future__ import annotations

import subprocess

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ascend_doctor import shellcmd

PAYLOADS = ["$(touch PWN)", ";touch PWN", "`touch PWN`", "a\ntouch PWN", "x'; touch PWN; '", "--x=$(touch PWN)"]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_argv_payload_runs_nothing(tmp_path, payload):
    command = shellcmd.argv("echo", "torch==" + payload, payload)
    subprocess.run(["bash", "-c", command], cwd=tmp_path, check=True, capture_output=True)
    assert not (tmp_path / "PWN").exists()


@given(st.text(min_size=1))
def test_argv_round_trips(value):
    if "\x00" in value:
        return
    assert list(shellcmd.words(shellcmd.argv("cmd", value))) == ["cmd", value]


@pytest.mark.parametrize("shape,good,bad", [
    ("version", "8.2.RC1", "8.2$(x)"), ("ipv4", "192.168.1.10", "1.2.3.4;x"), ("device_id", "7", "7 8"),
    ("pid", "4242", "0"), ("group", "HwHiAiUser", "HwHi$(touch PWN)"), ("env_name", "HCCL_X", "A-B"),
])
def test_shapes(shape, good, bad):
    assert shellcmd.shaped(good, shape) == good
    placeholder = shellcmd.shaped(bad, shape)
    assert isinstance(placeholder, shellcmd.Placeholder)
    line = shellcmd.argv("x", placeholder)
    assert line.endswith(f"'{placeholder}'")
    assert subprocess.run(["bash", "-n"], input=line, text=True, check=False).returncode == 0


def test_export_quotes_value_and_checks_name(tmp_path):
    line = shellcmd.export("HCCL_CONNECT_TIMEOUT", "1800$(touch PWN)")
    subprocess.run(["bash", "-c", line], cwd=tmp_path, check=True)
    assert not (tmp_path / "PWN").exists()
    with pytest.raises(ValueError):
        shellcmd.export("A;touch PWN", "1")


def test_comment_stays_one_line():
    assert "\n" not in shellcmd.with_comment(shellcmd.argv("ls"), "a\ntouch PWN")


@pytest.mark.parametrize("value", ["a\ntouch PWN\n", "x'\\y\x1b\x7f\r\t$(touch PWN)`touch PWN`"])
def test_control_characters_keep_the_command_on_one_line(tmp_path, value):
    command = shellcmd.argv("printf", "%s", value)
    assert "\n" not in command and "\r" not in command
    done = subprocess.run(["bash", "-c", command], cwd=tmp_path, check=True, capture_output=True)
    assert done.stdout.decode() == value
    assert not (tmp_path / "PWN").exists()
    assert list(shellcmd.words(command)) == ["printf", "%s", value]
