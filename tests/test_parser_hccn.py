"""hccn_tool outputs and /etc/hccn.conf: one golden test per published sample (tests/samples/hccn/,
expected values written by hand from the sample), hostile and truncated text, and fuzzers."""

from __future__ import annotations

import contextlib
from typing import Callable, List

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_doctor.parsers import hccn as P

from .samples_util import SAMPLES

ARTHUR = "hccn/arthurchiao-hccn_tool-status-hwstats-lldp-ip-route-conf-ping.txt"
BUNDLE = "hccn/mindcluster-doc-hccn_tool-bundle-netHealth-link-optical-tls-fec-ip-linkstat.txt"
YUANRONG = "hccn/yuanrong-connector-doc-hccn_tool-ip-link-nethealth-loop-and-noip-error.txt"
CONF_2498 = "hccn/vllm-ascend-2498-etc-hccn.conf-8npu.txt"


def body_lines(rel: str) -> List[str]:
    lines = (SAMPLES / rel).read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("# source:"), f"{rel} lost its source header"
    return lines[lines.index("# ---") + 1:]


def section(rel: str, start: str, stop: str = "") -> str:
    """The output printed after the command line holding ``start``, up to the line holding ``stop``."""
    lines = body_lines(rel)
    i = next(k for k, line in enumerate(lines) if start in line)
    rest = lines[i + 1:]
    j = next((k for k, line in enumerate(rest) if stop and stop in line), len(rest))
    return "\n".join(rest[:j]) + "\n"


# -- golden: ArthurChiao's 910B1 notes ------------------------------------------------------------------


def test_arthurchiao_status_is_ethtool_listing() -> None:
    status = P.parse_status(section(ARTHUR, "-status -g", "-hw_stats -g"))
    assert status.interface == "eth3"
    assert status.speed_mbps == 200000
    assert status.setting("Supported ports") == ("[ Backplane ]",)
    assert status.setting("Supported link modes") == ("1000baseKX/Full", "...", "100000baseKR4/Full")
    assert status.setting("Supports auto-negotiation") == ("No",)
    assert status.setting("Supported FEC modes") == ("None        RS",)
    assert status.link_detected is None  # the author cut the listing before "Link detected"


def test_arthurchiao_lldp_names_the_switch_port() -> None:
    lldp = P.parse_lldp(section(ARTHUR, "-lldp -g", "$ hccn_tool -i 3 -ip -g"))
    assert [name for name, _ in lldp.tlvs] == ["Chassis ID TLV", "Port ID TLV", "System Description TLV",
                                               "System Capabilities TLV", "Management Address TLV",
                                               "Maximum Frame Size TLV", "End of LLDPDU TLV"]
    assert lldp.port_ifname == "400GE1/1/20:2"
    assert lldp.chassis_id == "..."  # redacted by the author
    assert lldp.management_ipv4 == "26.xx.xx.xx"
    assert "DX511 V200R021C10SPC600" in lldp.system_description and "Huarong DX511" in lldp.system_description
    assert lldp.max_frame_size == 9216


def test_arthurchiao_ip_and_route() -> None:
    ip = P.parse_ip(section(ARTHUR, "$ hccn_tool -i 3 -ip -g", "-route -g"))
    assert ip == P.DeviceIp("29.1.112.213", "255.255.0.0")
    assert ip.valid
    routes = P.parse_route(section(ARTHUR, "-route -g", "$ cat /etc/hccn.conf"))
    assert [(r.destination, r.gateway, r.genmask, r.flags, r.iface) for r in routes] == [
        ("default", "29.1.0.1", "0.0.0.0", "UG", "eth3"),
        ("29.1.0.0", "*", "255.255.0.0", "U", "eth3"),
        ("127.0.0.1", "*", "255.255.255.255", "UH", "lo"),
        ("192.168.1.0", "*", "255.255.255.0", "U", "end3v0"),
        ("192.168.2.0", "*", "255.255.255.0", "U", "end3v0"),
    ]
    assert P.default_gateway(routes) == "29.1.0.1"


def test_arthurchiao_hccn_conf_with_gateway_and_elision() -> None:
    conf = P.parse_hccn_conf(section(ARTHUR, "$ cat /etc/hccn.conf", "-ping -g"))
    assert conf.devices == {
        0: {"address": "29.1.137.205", "netmask": "255.255.0.0", "netdetect": "29.1.0.1", "gateway": "29.1.0.1",
            "send_arp_status": "1"},
        7: {"address": "29.1.170.143", "netmask": "255.255.0.0", "netdetect": "29.1.0.1", "gateway": "29.1.0.1",
            "send_arp_status": "1"},
    }
    assert conf.ignored_lines == 1  # the author's "..."
    assert conf.gateway(7) == "29.1.0.1" and conf.address(3) is None


# -- golden: MindCluster's collection bundle -----------------------------------------------------------


def test_bundle_health_link_fec_tls() -> None:
    assert P.parse_net_health(section(BUNDLE, "-net_health -g", "-link -g")) == "Init"
    assert P.parse_link(section(BUNDLE, "-link -g", "-optical -g")) == "UP"
    assert P.parse_fec(section(BUNDLE, "-fec -g", "-ip -g")) == "rs FEC mode"
    assert P.parse_tls(section(BUNDLE, "-tls -g", "-fec -g")) == P.TlsInfo(switch=0, dev_id=0, preconfigured=1,
                                                                          alarm_days=60)


def test_bundle_masked_ip_is_kept_and_invalid() -> None:
    ip = P.parse_ip(section(BUNDLE, "-ip -g", "-stat -g"))
    assert ip == P.DeviceIp("10.xx.xx.10", "255.255.255.0")
    assert not ip.valid


def test_bundle_optical_readings_and_flags() -> None:
    optical = P.parse_optical(section(BUNDLE, "-optical -g", "-tls -g"))
    assert optical.present_text == "not present" and optical.present is False
    assert optical.value("Vcc High Thres") == "3465.00 mV"
    readings = {r.name: r for r in optical.readings()}
    assert set(readings) == {"Tx Power", "Rx Power"}  # the other readings were elided by Huawei ("...")
    tx, rx = readings["Tx Power"], readings["Rx Power"]
    assert (tx.value, tx.unit, tx.low, tx.high, tx.in_range) == (4.4035, "mW", 0.2818, 3.5481, False)
    assert (rx.value, rx.low, rx.high, rx.in_range) == (1.0189, 0.1445, 3.5481, True)
    assert optical.flags() == {"Tx Los Flag": 0, "Rx Los Flag": 0xFF, "Tx LoL Flag": 0, "Rx LoL Flag": 0xFF}


def test_bundle_link_stat_records() -> None:
    stat = P.parse_link_stat(section(BUNDLE, "-link_stat -g"))
    assert stat == P.LinkStat("Wed Jun  7 10:08:28 2023", 2, (
        ("Tue Jun  6 16:32:12 2023", "LINK UP"), ("Tue Jun  6 16:32:10 2023", "LINK DOWN"),
        ("Tue Jun  6 16:31:55 2023", "LINK UP")))


# -- golden: the yuanrong loop and its error; vllm-ascend#2498's hccn.conf ----------------------------------


def test_yuanrong_loop_outputs_and_no_ip_error() -> None:
    combined = section(YUANRONG, "done", "(no device IP")
    assert P.parse_ip(combined) == P.DeviceIp("10.86.1.80", "255.255.255.0")
    assert P.parse_link(combined) == "UP"
    assert P.parse_net_health(combined) == "Success"
    error = section(YUANRONG, "(no device IP configured:)")
    assert error.strip() == P.NO_IP_TEXT
    assert P.is_no_ip(error)
    assert P.parse_ip(error) == P.DeviceIp(missing=True)


def test_vllm_ascend_2498_hccn_conf() -> None:
    conf = P.parse_hccn_conf("\n".join(body_lines(CONF_2498)))
    assert conf.addresses() == {n: f"192.170.100.{100 + n}" for n in range(8)}
    assert {conf.netmask(n) for n in range(8)} == {"255.255.255.0"}
    assert conf.gateway(0) is None
    assert conf.devices[4] == {"xsfp_reset_max_times": "0", "xsfp_reset_wait_times": "7",
                               "address": "192.170.100.104", "netmask": "255.255.255.0"}
    assert conf.other == {} and conf.ignored_lines == 0


# -- the wrong output, hostile text ----------------------------------------------------------------------


@pytest.mark.parametrize("parser, text", [
    (P.parse_link, "net health status: Success\n"),
    (P.parse_net_health, ""),
    (P.parse_ip, "link status: UP\n"),
    (P.parse_route, "ipaddr:1.2.3.4\n"),
    (P.parse_tls, "dev_id:0, tls preconfigured[1]\n"),
    (P.parse_fec, "fec\n"),
    (P.parse_lldp, "   indented only\n"),
    (P.parse_optical, "nothing here\n"),
    (P.parse_link_stat, "link up count : 2\n"),
    (P.parse_status, "Speed: 200000Mb/s\n"),
    (P.parse_hccn_conf, "...\n# comment\n"),
])
def test_wrong_output_is_a_one_line_parse_error(parser: Callable[[str], object], text: str) -> None:
    with pytest.raises(P.HccnParseError) as info:
        parser(text)
    assert "\n" not in str(info.value)


def test_huge_output_is_bounded_and_fast() -> None:
    text = "link status: UP\n" + "x" * 10 + "\n" * 2_000_000
    assert P.parse_link(text) == "UP"
    lldp = P.parse_lldp("Port ID TLV\n" + "\tIfname: a\n" * 100_000)
    assert lldp.port_ifname == "a" and len(lldp.tlv("Port ID TLV")) == P.MAX_LINES - 1


@pytest.mark.parametrize("value, ok", [("255.255.255.0", True), ("255.255.0.0", True), ("255.0.255.0", False),
                                       ("0.0.0.0", True), ("256.0.0.0", False), ("10.xx.xx.10", False)])
def test_netmask(value: str, ok: bool) -> None:
    assert P.is_netmask(value) is ok


# -- fuzzers (free and mutated text: tests/fuzz/test_fuzz_parsers.py); here output-like junk, results used ---

PARSERS = [P.parse_link, P.parse_net_health, P.parse_ip, P.parse_route, P.parse_tls, P.parse_fec, P.parse_lldp,
           P.parse_optical, P.parse_link_stat, P.parse_status, P.parse_hccn_conf]
_ALPHABET = st.sampled_from(list(":=[]()\t \n.0123456789xUPDOWNabc") + [
    "link status", "net health status", "ipaddr", "netmask", "Destination Gateway Genmask Flags", " TLV",
    "tls switch[", "optical info:", "present", " Thres", "[device 0]", "LINK UP", "Settings for eth0:", "Speed",
    "address_0", "fec mode", "0x", "mW", P.NO_IP_TEXT])


@settings(max_examples=300, deadline=None)
@given(st.lists(_ALPHABET, max_size=120).map("".join))
def test_fuzz_output_like_junk(text: str) -> None:
    for parser in PARSERS:
        with contextlib.suppress(P.HccnParseError):
            result = parser(text)
            if isinstance(result, P.OpticalInfo):
                result.readings()
                result.flags()
            elif isinstance(result, P.NetdevStatus):
                _ = result.speed_mbps, result.link_detected
            elif isinstance(result, tuple):
                P.default_gateway(result)
