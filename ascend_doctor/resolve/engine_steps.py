"""The engine's install step of a plan: vLLM-Ascend, MindIE or MindSpeed at the target's release.

Each engine installs what its own documentation installs:

* vLLM-Ascend: vLLM and vLLM-Ascend of the release row (on x86 with the CPU index set globally by
  an earlier step); on an Atlas A3 the ``-a3`` image; on the 300I Duo the ``-310p`` image or a build
  from source that installs vLLM itself first (``VLLM_TARGET_DEVICE=empty``), then vLLM-Ascend
  with its submodules. A driver kept below HDK 25.5.1 / CANN 8.5.0 gets the FULL_AND_PIECEWISE caveat.
* MindIE: the package of the torch ABI the target's torch needs (abi0 <-> torch 2.1.0, abi1 <->
  torch 2.6.0), the image of this chip family when one is recorded, its four environment scripts,
  and its file-permission rules.
* MindSpeed: the repository at the release's branch, never master.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, List, Optional, Sequence

from ascend_doctor import shellcmd
from ascend_doctor.i18n import N_
from ascend_doctor.i18n_text import Text
from ascend_doctor.matrix.specs import spec_matches, try_ascend
from ascend_doctor.resolve.candidates import same_ascend, same_public
from ascend_doctor.resolve.engines import mindie_torches
from ascend_doctor.resolve.model import KEEP, VLLM_SOURCE_BUILD, PlanStep, TargetStack, joined

if TYPE_CHECKING:
    from ascend_doctor.matrix.chips import ChipInfo
    from ascend_doctor.matrix.model import Matrix

MINDIE_ENV_SCRIPTS = ("/usr/local/Ascend/ascend-toolkit/set_env.sh", "/usr/local/Ascend/nnal/atb/set_env.sh",
                      "/usr/local/Ascend/mindie/set_env.sh", "/usr/local/Ascend/atb-models/set_env.sh")
MINDIE_RULES_SOURCE = ("hiascend MindIE service0348 (config.json and weights 640 or stricter, weight folders 750, "
                       "owned by the run user); https://hiascend.com/document/detail/zh/mindie/100/envdeployment/"
                       "instg/mindie_instg_0026.html (container: shared memory of at least 1 GB)")
MINDIE_DOWNLOAD = "https://www.hiascend.com/developer/download/community/result?module=ie%2Bpt%2Bcann"
ASCENDHUB_MINDIE = "https://www.hiascend.com/developer/ascendhub/detail/af85b724a7e5469ebd7ea13c3439d48f"
CANN_IMAGE_FLAVOURS = "github.com/Ascend/cann-container-image (image flavours 910b / a3 / 310p of each CANN release)"
MINDSPEED_REPO = "https://github.com/Ascend/MindSpeed.git"


def engine_step(m: Matrix, target: TargetStack, chip: Optional[ChipInfo], arches: Sequence[str], key: str,
                version: str, fresh: bool, torch_changed: bool) -> PlanStep:
    if key == "vllm-ascend":
        return _vllm(m, target, chip, arches, version, fresh)
    if key == "mindie":
        return _mindie(m, target, chip, arches, version, torch_changed, fresh)
    return _mindspeed(m, target, version)


def _image(chip: Optional[ChipInfo], m: Matrix, version: str) -> Optional[str]:
    family = m.family(chip.family) if chip is not None else None
    if family is None or family.vllm_ascend_image is None:
        return None
    return family.vllm_ascend_image.template.replace("{version}", version)


def base_image(m: Matrix, version: str, flavor: Optional[str]) -> Optional[str]:
    """The CANN base image of the flavour the plan pulls: the recorded base is the 910b one; the -a3 and
    -310p images are built on the same CANN release's a3 / 310p flavour."""
    from ascend_doctor.matrix.engines import builds_for

    build = builds_for(m, version)
    if build is None:
        return None
    image = build.base_image
    if flavor and flavor != "910b" and "-910b-" in image:
        image = image.replace("-910b-", f"-{flavor}-")
    return image


def engine_caveats(m: Matrix, target: TargetStack) -> List[str]:
    """Engine caveats of a driver or CANN the plan keeps (FULL_AND_PIECEWISE needs HDK 25.5.1+ / CANN 8.5.0+)."""
    notes: List[str] = []
    driver = target.version("hdk")
    cann = target.version("cann")
    driver_v, cann_v = try_ascend(driver), try_ascend(cann)
    for caveat in m.caveats:
        if "vLLM-Ascend" not in caveat.feature or not (caveat.hdk or caveat.cann):
            continue
        hit = bool(caveat.hdk and driver_v is not None and spec_matches(caveat.hdk, driver_v)) or bool(
            caveat.cann and cann_v is not None and spec_matches(caveat.cann, cann_v))
        if hit:
            notes.append(Text(N_("{feature}: {message} ({sources})"), feature=caveat.feature, message=caveat.message,
                              sources="; ".join(caveat.source)))
    return notes


def _engine_why(target: TargetStack, notes: List[str], fresh: bool) -> str:
    """``matrix plan``: the caveats and the image base; a report: why the engine step is there (one message)."""
    if fresh:
        return joined(notes)
    pick = target.picks.get("engine")
    if pick is not None and pick.change != KEEP and pick.short:
        return pick.short
    return Text(N_("the engine's release row: its vLLM, torch and torch_npu are installed together"))


def _vllm(m: Matrix, target: TargetStack, chip: Optional[ChipInfo], arches: Sequence[str], version: str,
          fresh: bool = True) -> PlanStep:
    from ascend_doctor.matrix.pip import vllm_ascend

    vllm = target.version("vllm")
    arch = arches[0] if len(arches) == 1 else None
    image = _image(chip, m, version)
    flavor = chip.image_flavor if chip is not None else None
    family = chip.family if chip is not None else None
    title = Text(N_("Install vLLM {vllm} and vLLM-Ascend {version}"), vllm=vllm, version=version)
    notes = engine_caveats(m, target)
    base = base_image(m, version, flavor)
    if base:
        notes.append(Text(N_("release image base: {image}"), image=f"{base} ({CANN_IMAGE_FLAVOURS})"))
    if family == "310P":
        soc = (chip.soc_version_default if chip is not None else None) or "ascend310p1"
        pull = shellcmd.argv("docker", "pull", image) if image else shellcmd.comment(N_("no 310P image is recorded"))
        commands = [pull,
                    shellcmd.comment(N_("or build from source for the 310P (the PyPI wheel is built for A2): vLLM "
                                        "first, then vLLM-Ascend with its submodules")),
                    shellcmd.chain(shellcmd.argv("git", "clone", "--depth", "1", "--branch", f"v{vllm}",
                                                 "https://github.com/vllm-project/vllm.git"),
                                   shellcmd.argv("cd", "vllm")),
                    shellcmd.argv("env", "VLLM_TARGET_DEVICE=empty", "pip", "install", "-v", "-e", "."),
                    shellcmd.argv("cd", ".."),
                    shellcmd.export("SOC_VERSION", soc),
                    shellcmd.chain(shellcmd.argv("git", "clone", "--depth", "1", "--branch", f"v{version}",
                                                 "https://github.com/vllm-project/vllm-ascend.git"),
                                   shellcmd.argv("cd", "vllm-ascend")),
                    shellcmd.argv("git", "submodule", "update", "--init", "--recursive"),
                    shellcmd.argv("pip", "install", "-v", "-e", "."),
                    shellcmd.comment(N_("serve in float16: the 310P has no BF16")),
                    shellcmd.argv("vllm", "serve", shellcmd.Placeholder("model"), "--dtype", "float16")]
        note: Optional[str] = Text(N_("Atlas 300I Duo only ([Experimental] in the vLLM-Ascend support list; the 300I "
                                      "Pro is not listed)"))
        return PlanStep("engine", title, tuple(commands), "either", version,
                        _engine_why(target, notes, fresh), (VLLM_SOURCE_BUILD,), note)
    wheel = vllm_ascend(m, vllm, version, arch)
    commands = list(wheel.lines) + [shellcmd.comment(n) for n in wheel.notes]
    if family == "A3":
        pull = shellcmd.argv("docker", "pull", image) if image else shellcmd.comment(N_("no A3 image is recorded"))
        commands = [pull, shellcmd.comment(N_("or the wheels (check that the custom operators were built for A3):")),
                    *commands]
        return PlanStep("engine", title, tuple(commands), "either", version, _engine_why(target, notes, fresh), (),
                        Text(N_("Atlas A3: the -a3 image; the plain tag is the Atlas A2 image")))
    note = Text(N_("or run the release image {image}"), image=image) if image else None
    return PlanStep("engine", title, tuple(commands), "either", version, _engine_why(target, notes, fresh), (), note)


def mindie_image(m: Matrix, family: Optional[str], version: str) -> Optional[str]:
    return next((i.image for i in m.mindie_images if i.family == family and same_ascend(i.mindie, version)), None)


def _mindie_build(m: Matrix, version: str, torch: Optional[str]) -> Any:
    from ascend_doctor.matrix.engines import find_mindie_row

    row = find_mindie_row(m, version)
    if row is None:
        return None, None
    for build in getattr(row, "builds", None) or ():
        if torch and same_public(getattr(build, "torch", None), torch):
            return row, build
    return row, None


def _mindie(m: Matrix, target: TargetStack, chip: Optional[ChipInfo], arches: Sequence[str], version: str,
            torch_changed: bool, fresh: bool) -> PlanStep:
    torch = target.version("torch")
    family = chip.family if chip is not None else None
    image = mindie_image(m, family, version)
    row, build = _mindie_build(m, version, torch)
    commands: List[str] = []
    if image:
        commands += [shellcmd.argv("docker", "pull", image),
                     shellcmd.comment(N_("or install the packages on this machine:"))]
    package = getattr(build, "package", None) if build is not None else None
    if package:
        for index, arch in enumerate(arches):
            name = package.replace("{version}", version).replace("{arch}", arch)
            line = shellcmd.argv("./" + name, "--install")
            if len(arches) > 1:
                line = shellcmd.with_comment(line, arch if index == 0 else N_("or, on {arch}").format(arch=arch))
            commands.append(line)
    else:
        abi = None
        if row is not None:
            torches = mindie_torches(m, row)
            abi = next((a for t, a, _s in torches if torch and same_public(t, torch)), None)
        fields = {"version": version, "torch": torch, "abi": abi, "page": MINDIE_DOWNLOAD}
        commands.append(shellcmd.comment(
            N_("install the MindIE {version} run package for torch {torch} (abi{abi} build) from the MindIE download "
               "page ({page})").format(**fields) if abi is not None else
            N_("install the MindIE {version} run package for torch {torch} from the MindIE download page ({page})"
               ).format(**fields)))
    commands.append(shellcmd.comment(N_("then, in every shell that starts the service:")))
    commands += [shellcmd.source(s) for s in MINDIE_ENV_SCRIPTS]
    if fresh:
        commands += [shellcmd.argv("chmod", "640", "/usr/local/Ascend/mindie/latest/mindie-service/conf/config.json"),
                     shellcmd.with_comment(shellcmd.argv("chmod", "750", shellcmd.Placeholder("weight dir")),
                                           N_("and 640 on the files inside; owned by the user that runs the service"))]
    rules = Text(N_("MindIE refuses to start when config.json or the weights are more open than 640 (folders 750) or "
                    "owned by another user; in a container give it --shm-size of at least 1 GB ({source})"),
                 source=MINDIE_RULES_SOURCE)
    support = chip.engines.get("mindie") if chip is not None else None
    naming = support.note if support is not None and support.note and "image" in support.note else ""
    note = rules if image else Text(N_("{rules}; no MindIE {version} image tag for {family} is recorded ({naming}); "
                                       "AscendHub lists them: {url}"), rules=rules, version=version, family=family,
                                    naming=naming or "-", url=ASCENDHUB_MINDIE)
    title = Text(N_("Install MindIE {version}"), version=version)
    if torch_changed and target.state.engine == "mindie":
        title = Text(N_("Install the MindIE {version} package built for torch {torch}"), version=version, torch=torch)
    why: str = Text(N_("MindIE ships one package per torch ABI: the package must match the torch of the environment"))
    sources = tuple(row.source) if row is not None else ()
    pick = target.picks.get("engine")
    if pick is not None and pick.change != KEEP:
        why = pick.reason if fresh else (pick.short or pick.reason)
    return PlanStep("engine", title, tuple(commands), "either", version, why, sources, note)


def _mindspeed(m: Matrix, target: TargetStack, version: str) -> PlanStep:
    from ascend_doctor.matrix.engines import find_mindspeed_row

    row = find_mindspeed_row(m, version)
    branch = getattr(row, "branch", None) if row is not None else None
    commands = [shellcmd.chain(shellcmd.argv("git", "clone", MINDSPEED_REPO), shellcmd.argv("cd", "MindSpeed"))]
    if branch:
        commands.append(shellcmd.argv("git", "checkout", branch))
    else:
        commands.append(shellcmd.comment(N_("check out the branch of release {version} named in the README's "
                                            "版本配套表 (git branch -r lists them), never master: master tracks "
                                            "newer CANN and PyTorch releases").format(version=version)))
    commands.append(shellcmd.argv("pip", "install", "-e", "."))
    sources = tuple(row.source) if row is not None else ()
    return PlanStep("engine", Text(N_("Install MindSpeed {version}"), version=version), tuple(commands), "either",
                    version, Text(N_("MindSpeed {version} at its release branch"), version=version), sources)
