"""The fix-it commands the model checks (ASC-MDL-*) print: converting FP8 weights, dropping a stale
quantization_config, replacing a copied HuggingFace cache snapshot, renaming a dotted folder.

Commands and versions come from Huawei's and the projects' own guides (see
docs/model-checks.md for every source): msmodelslim ``quant_deepseek_w8a8.py --from_fp8``
(Huawei Cloud ModelArts "准备W8A8权重", msit ``msmodelslim/example/DeepSeek/README.md``) and the
NPU port of DeepSeek's ``fp8_cast_bf16.py`` (``modelers.cn/MindIE/deepseekv3``, ``NPU_inference/``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from ascend_doctor.i18n import _
from ascend_doctor.lazy import lazy_re
from ascend_doctor.model.units import human_bytes
from ascend_doctor.shellcmd import one_line
from ascend_doctor.shellcmd import quote as shell_quote

if TYPE_CHECKING:
    from ascend_doctor.checkapi import FixAction

# Huawei's DeepSeek-V3/R1 quantization example caps host memory at this (hiascend
# techArticles/20250222-1: max_memory={..., "cpu": "1500GiB"}).
HUAWEI_EXAMPLE_CPU_MEMORY = "1500GiB"
MSIT_BRANCH = "8.0.RC1_ZS2.0_20251230"  # the branch the ModelArts W8A8 guide recommends


def dotless(name: str) -> str:
    """A directory name without '.', for tools that refuse dots in weight paths."""
    return name.replace(".", "_")


def rename_action(path: str, fixed: str) -> FixAction:
    """The one rename step ASC-MDL-016 and ASC-CFG-004 share, so the fix plan runs one `mv`."""
    from ascend_doctor.checkapi import FixAction

    return FixAction("model", _("Rename {path} (no '.' in a weight path)").format(path=one_line(path)),
                     (f"mv {shell_quote(path)} {shell_quote(fixed)}",), where="either", target=fixed,
                     direction="set", subject="weight path")


def base_name(path: str) -> str:
    stripped = path.rstrip("/")
    return stripped.rsplit("/", 1)[-1] or stripped


def sibling(path: str, suffix: str) -> str:
    stripped = path.rstrip("/")
    parent, _sep, name = stripped.rpartition("/")
    new = dotless(name) + suffix
    return f"{parent}/{new}" if parent else new


def _in(directory: str, name: str) -> str:
    return f"{directory.rstrip('/')}/{name}"


def fp8_conversion_commands(model_dir: str, total_params: int) -> str:
    """Both ways from FP8 to W8A8, as commands, with the host resources they need."""
    bf16 = human_bytes(2 * total_params)
    w8a8 = sibling(model_dir, "-W8A8")
    bf16_dir = sibling(model_dir, "-BF16")
    q = shell_quote
    # Prose lines are translated; the indented command lines (and their comments) stay as typed.
    return "\n".join([
        _("Convert the weights on an Ascend host with NPUs (quantization runs on them) and host RAM for the "
          "model in BF16: about {size} here (Huawei's V3/R1 example sets max_memory cpu={cpu_memory}).").format(
            size=bf16, cpu_memory=HUAWEI_EXAMPLE_CPU_MEMORY),
        _("Before either path: pip install transformers==4.48.2, and neutralise the flash_attn imports in "
          "modeling_deepseek.py (see ASC-MDL-003)."),
        _("(a) FP8 straight to W8A8 with msmodelslim (no BF16 copy on disk):"),
        f"    git clone https://gitee.com/ascend/msit -b {MSIT_BRANCH} && cd msit/msmodelslim && bash install.sh",
        "    cd example/DeepSeek",
        f"    python3 quant_deepseek_w8a8.py --model_path {q(model_dir)} --save_path {q(w8a8)} "
        "--dynamic --disable_anti --quant_mtp --from_fp8",
        _("(b) FP8 to BF16 first (needs {size} free disk; keeps a reusable BF16 copy), then W8A8:").format(size=bf16),
        "    git clone https://modelers.cn/MindIE/deepseekv3.git && cd deepseekv3/NPU_inference",
        f"    python fp8_cast_bf16.py --input-fp8-hf-path {q(model_dir)} --output-bf16-hf-path {q(bf16_dir)}",
        f"    cp {q(_in(model_dir, 'config.json'))} {q(model_dir.rstrip('/'))}/tokenizer*.json "
        f"{q(model_dir.rstrip('/'))}/*.py {q(bf16_dir + '/')}   # config, tokenizer and code are not converted",
        "    python3 -c \"import json,sys; p=sys.argv[1]; c=json.load(open(p)); c.pop('quantization_config', None); "
        f"json.dump(c, open(p, 'w'), indent=2)\" {q(bf16_dir + '/config.json')}",
        "    cd msit/msmodelslim/example/DeepSeek   # msmodelslim installed as in (a)",
        f"    python3 quant_deepseek_w8a8.py --model_path {q(bf16_dir)} --save_path {q(w8a8)} "
        "--dynamic --disable_anti --quant_mtp --from_bf16",
        _("Then serve {path} (vLLM-Ascend: --quantization ascend). Keep '.' out of the output path.").format(
            path=one_line(w8a8)),
    ])


# The HuggingFace model_type of a DeepSeek architecture class, for undoing msmodelslim --mindie_format's
# "model_type": "deepseekv2" (MindIE's name) when vLLM is to read the folder.
HF_MODEL_TYPES = {"DeepseekV3ForCausalLM": "deepseek_v3", "DeepseekV2ForCausalLM": "deepseek_v2"}


def set_model_type_command(config_path: str, model_type: str) -> str:
    """Back config.json up, then set its model_type (json.load/dump, as the other config fixes)."""
    from ascend_doctor.shellcmd import argv, chain

    code = ("import json,sys; p=sys.argv[1]; c=json.load(open(p)); c['model_type']=sys.argv[2]; "
            "json.dump(c, open(p, 'w'), indent=2)")
    return chain(argv("cp", config_path, config_path + ".bak"), argv("python3", "-c", code, config_path, model_type))


def drop_quantization_config_command(config_path: str) -> str:
    q = shell_quote(config_path)
    return (f"cp {q} {shell_quote(config_path + '.bak')} && python3 -c \"import json,sys; p=sys.argv[1]; "
            "c=json.load(open(p)); c.pop('quantization_config', None); json.dump(c, open(p, 'w'), indent=2)\" "
            f"{q}")


# A HuggingFace hub-cache snapshot holds relative links to ``../../blobs/<hash>``: git blob SHA-1
# (40 hex) for small files, SHA-256 (64 hex) for LFS files
# (https://huggingface.co/docs/huggingface_hub/guides/manage-cache).
_HF_BLOB_RE = lazy_re(r"(^|/)blobs/(?:[0-9a-f]{40}|[0-9a-f]{64})$")


def is_hf_blob_link(target: Optional[str]) -> bool:
    """The link points into a hub cache's ``blobs/`` (a snapshot file copied without its blob)."""
    return bool(target) and bool(_HF_BLOB_RE.search(str(target)))


def _hub_repo(model_dir: str) -> str:
    """The hub repo a directory name stands for: a built-in family's, else ``ORG/<name>``."""
    from ascend_doctor.model.families import FamilyDataError, find_family

    name = base_name(model_dir)
    try:
        family = find_family(name)
    except FamilyDataError:
        family = None
    return family.hf_repo if family is not None and family.hf_repo else f"ORG/{name}"


def hf_cache_copy_fix(model_dir: str) -> str:
    """How to turn a copied hub-cache snapshot (dangling blob links) into real files."""
    repo = _hub_repo(model_dir)
    cache = "models--" + repo.replace("/", "--")
    q = shell_quote(model_dir.rstrip("/") or model_dir)
    # Each line is prose around one command: the command is a field, the comment after it is part of
    # the (translated) sentence, as a reader takes it in.
    return "\n".join([
        _("These are the links of a HuggingFace cache snapshot (snapshots/<rev>/ -> ../../blobs/<hash>), copied "
          "without the blobs they point to. Replace them with the files themselves, either way:"),
        _("(a) from the cache, following the links: {command}   # $HF_HOME/hub/... if HF_HOME is set").format(
            command=f"find {q} -maxdepth 1 -xtype l -delete && "
                    f"cp -rL ~/.cache/huggingface/hub/{shell_quote(cache + '/snapshots/')}<rev>/. {q}/"),
        _("(b) download into a plain folder, no symlinks: {command}   # huggingface_hub >= 0.23 writes real files "
          "there (older ones: add --local-dir-use-symlinks False; 1.x names the command `hf download`)").format(
            command=f"huggingface-cli download {shell_quote(repo)} --local-dir {q}"),
    ])
