"""Fuzzers for the text parsers: npu-smi layouts, version and install files, collect_env,
pasted tickets, version strings, the Python probe's output, env/os-release lines, log lines,
hccn_tool outputs, /etc/hccn.conf and rank tables.

Adding one is one line: ``test_fuzz_<name> = fuzz_text(parser, samples("<kind>/*"), allowed=(...))``.
"""

from __future__ import annotations

from ascend_doctor.host.base import parse_env_lines
from ascend_doctor.host.live import parse_os_release
from ascend_doctor.host.pyprobe import parse_probe_record
from ascend_doctor.logscan.scanner import default_scanner
from ascend_doctor.parsers import hccn, npu_smi, rank_table
from ascend_doctor.parsers import version_files as vf
from ascend_doctor.parsers.npu_smi_board import parse_npu_smi_board
from ascend_doctor.parsers.pasted import PastedTextError, parse_pasted_text
from ascend_doctor.versions import VersionError, parse_version

from .harness import fuzz_text, samples

NPU_SMI_TABLES = samples("npu-smi-info/*.txt", "npu-smi-tables-other/*.txt")
NPU_SMI_KEYVALUE = samples("npu-smi-other/*.txt")
VERSION_FILES = samples("version-files/*.txt")
SMI = (npu_smi.NpuSmiParseError,)
VERSION = (vf.VersionFileError,)

# -- npu-smi, every layout --------------------------------------------------------------------
test_fuzz_npu_smi_info = fuzz_text(npu_smi.parse_npu_smi_info, NPU_SMI_TABLES, SMI)
test_fuzz_npu_smi_all_tables = fuzz_text(npu_smi.parse_all_npu_smi_tables, NPU_SMI_TABLES, SMI)
test_fuzz_npu_smi_keyvalue = fuzz_text(npu_smi.parse_npu_smi_keyvalue, NPU_SMI_KEYVALUE, SMI)
test_fuzz_npu_smi_keyvalue_blocks = fuzz_text(npu_smi.parse_npu_smi_keyvalue_blocks, NPU_SMI_KEYVALUE, SMI)
test_fuzz_npu_smi_board = fuzz_text(parse_npu_smi_board, NPU_SMI_KEYVALUE, SMI)

# -- version and install files ------------------------------------------------------------------
test_fuzz_driver_version_info = fuzz_text(vf.parse_driver_version_info, VERSION_FILES, VERSION)
test_fuzz_firmware_version_info = fuzz_text(vf.parse_firmware_version_info, VERSION_FILES, VERSION)
test_fuzz_ascend_install_info = fuzz_text(vf.parse_ascend_install_info, VERSION_FILES, VERSION)
test_fuzz_cann_install_info = fuzz_text(vf.parse_cann_install_info, VERSION_FILES, VERSION)
test_fuzz_version_cfg = fuzz_text(vf.parse_version_cfg, VERSION_FILES, VERSION)
test_fuzz_component_version_info = fuzz_text(vf.parse_component_version_info, VERSION_FILES, VERSION)
test_fuzz_colon_version_info = fuzz_text(vf.parse_colon_version_info, VERSION_FILES, VERSION)
test_fuzz_upgrade_tool_versions = fuzz_text(vf.parse_upgrade_tool_versions,
                                            samples("dmesg-and-logs/*upgradetool*", "version-files/*.txt"), VERSION)
test_fuzz_collect_env = fuzz_text(vf.parse_collect_env, samples("collect-env/*.txt"), VERSION)
test_fuzz_version_strings = fuzz_text(parse_version, ["24.1.rc2.2", "8.0.RC3.alpha001", "25.0.rc1.1", "7.1.0.11.220",
                                                      "8.2.RC1.B150", "2.4.0.post2", "V100R001C19SPC001B124"],
                                      (VersionError,))

# -- a ticket pasted as text (check --from-text) --------------------------------------------------
test_fuzz_pasted_text = fuzz_text(parse_pasted_text, samples("collect-env/*.txt", "npu-smi-info/*.txt",
                                                             "npu-smi-other/*.txt", "version-files/*.txt"),
                                  (PastedTextError,))

# -- other command outputs ---------------------------------------------------------------------
PROBE_OUTPUT = ['{"executable": "/usr/bin/python3", "version": "3.10.14", "packages": {"torch": "2.1.0", '
                '"torch-npu": "2.1.0.post8"}, "path": ["/usr/lib/python3.10"]}\n']
test_fuzz_python_probe_output = fuzz_text(lambda text: parse_probe_record(text, "/usr/bin/python3"), PROBE_OUTPUT)
test_fuzz_env_lines = fuzz_text(parse_env_lines, ["PATH=/usr/bin\nASCEND_HOME_PATH=/usr/local/Ascend\nX==1\n"])
test_fuzz_os_release = fuzz_text(parse_os_release, ['NAME="openEuler"\nVERSION="22.03 (LTS-SP3)"\nID="openEuler"\n'])

# -- log lines (diagnose, ASC-LOG-*) ---------------------------------------------------------------
_SCANNER = default_scanner()
test_fuzz_log_lines = fuzz_text(lambda text: _SCANNER.scan_text(text, "<fuzz>"),
                                samples("dmesg-and-logs/*.txt", "error-codes/*.txt"))

# -- the NPU network: hccn_tool outputs, /etc/hccn.conf, rank tables (ASC-NET-*, ASC-RT-*) ---------------
HCCN = samples("hccn/*.txt")
HCCN_ERRORS = (hccn.HccnParseError,)
test_fuzz_hccn_link = fuzz_text(hccn.parse_link, HCCN, HCCN_ERRORS)
test_fuzz_hccn_net_health = fuzz_text(hccn.parse_net_health, HCCN, HCCN_ERRORS)
test_fuzz_hccn_ip = fuzz_text(hccn.parse_ip, HCCN, HCCN_ERRORS)
test_fuzz_hccn_route = fuzz_text(lambda text: hccn.default_gateway(hccn.parse_route(text)), HCCN, HCCN_ERRORS)
test_fuzz_hccn_tls = fuzz_text(hccn.parse_tls, HCCN, HCCN_ERRORS)
test_fuzz_hccn_fec = fuzz_text(hccn.parse_fec, HCCN, HCCN_ERRORS)
test_fuzz_hccn_lldp = fuzz_text(lambda text: hccn.parse_lldp(text).to_dict(), HCCN, HCCN_ERRORS)
test_fuzz_hccn_optical = fuzz_text(lambda text: (hccn.parse_optical(text).readings(),
                                                 hccn.parse_optical(text).flags()), HCCN, HCCN_ERRORS)
test_fuzz_hccn_link_stat = fuzz_text(hccn.parse_link_stat, HCCN, HCCN_ERRORS)
test_fuzz_hccn_status = fuzz_text(lambda text: hccn.parse_status(text).to_dict(), HCCN, HCCN_ERRORS)
test_fuzz_hccn_conf = fuzz_text(hccn.parse_hccn_conf, HCCN, HCCN_ERRORS)
test_fuzz_rank_table = fuzz_text(lambda text: rank_table.parse_rank_table(text).to_dict(),
                                 samples("hccn/*rank*table*.txt", "hccn/*hccl.json*.txt"), (rank_table.RankTableError,))
