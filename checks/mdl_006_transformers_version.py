"""ASC-MDL-006: config.json was written by a newer transformers than the one installed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Optional

from ascend_doctor import shellcmd
from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._model import require_model

if TYPE_CHECKING:
    from ascend_doctor.host.base import PythonEnv
    from ascend_doctor.model.records import ModelFacts

CHECK = CheckSpec(
    id="ASC-MDL-006",
    title="Installed transformers is not older than the model's",
    what="Compares `transformers_version` in config.json with transformers in the target Python.",
    why="A config written by a newer transformers can use fields or model types the installed one does not "
    "know; msmodelslim's DeepSeek scripts need transformers 4.48.2 (msit DeepSeek README, hiascend "
    "quantization article).",
    fix="Install a transformers at least as new as config.json's, within what your vLLM/MindIE release "
    "supports, e.g. `pip install transformers==4.48.2` for msmodelslim DeepSeek quantization.",
    requires=("model",),
    tags=("model", "fit"),
)


def _env(ctx: HostCheckContext) -> Optional[PythonEnv]:
    try:
        return ctx.facts.maybe(Facts.python_env)
    except KeyError:
        return None


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    # Imported on use: every check module is imported to read CHECK, and most runs have no model.
    from packaging.version import InvalidVersion, Version

    facts: ModelFacts = ctx.facts.model
    require_model(facts)
    wanted = facts.config_value("transformers_version")
    if not isinstance(wanted, str) or not wanted:
        raise NotApplicable(_("config.json has no transformers_version"))
    env = _env(ctx)
    installed = env.package("transformers") if env is not None else None
    if not installed:
        raise NotApplicable(_("transformers is not installed in the target Python (or it could not be inspected)"))
    try:
        newer = Version(wanted) > Version(installed)
    except InvalidVersion:
        raise NotApplicable(_("cannot compare transformers versions {wanted} and {installed}").format(
            wanted=repr(wanted), installed=repr(installed))) from None
    if newer:
        yield Finding.warn(
            _("config.json was written by transformers {wanted}; the target Python has {installed}").format(
                wanted=wanted, installed=installed),
            shellcmd.with_comment(
                shellcmd.argv("pip", "install", "transformers>=" + shellcmd.shaped(wanted, "version")),
                _("stay within the range your vLLM / MindIE release supports")),
            config_version=wanted, installed=installed,
        )
        return
    yield Finding.passed(_("transformers {installed} installed; config.json written by {wanted}").format(
        installed=installed, wanted=wanted))
