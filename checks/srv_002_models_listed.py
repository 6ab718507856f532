"""ASC-SRV-002: /v1/models lists the model being probed."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.i18n import _

from ._probe import ProbeCheckContext, hints, probe_facts

CHECK = CheckSpec(
    id="ASC-SRV-002",
    title="/v1/models lists the model being probed",
    suite="probe",
    what="Reads the OpenAI model list (GET /v1/models): the served names, the engine (owned_by: \"vllm\" or "
         "\"MindIE Server\") and vLLM's max_model_len; --model must be one of the names (default: the first).",
    why="Clients address the model by its served name: a name the engine does not serve fails every request, "
        "and a missing API key fails them all the same way.",
    fix="Use a served name with --model (vLLM: --served-model-name; MindIE: ModelConfig.modelName); give the "
        "API key with --api-key or ASCEND_DOCTOR_API_KEY.",
)


def run(ctx: ProbeCheckContext) -> Iterator[Finding]:
    facts = probe_facts(ctx)
    info = facts.models
    if info is None or info.answer.status is None:
        raise NotApplicable(facts.not_measured(_("the model list")))
    status = info.answer.status
    if status in (401, 403):
        yield Finding.fail(
            _("GET /v1/models was refused (HTTP {status}): the endpoint wants an API key").format(status=status),
            _("Give the key the service was started with: `ascend-doctor probe URL --api-key KEY`, or "
              "`export ASCEND_DOCTOR_API_KEY=KEY` (vLLM: the value of --api-key / $VLLM_API_KEY)."),
            status=status)
        return
    if status != 200:
        yield Finding.warn(_("GET /v1/models answered HTTP {status} ({detail}); the model name cannot be "
                             "checked").format(status=status, detail=info.answer.detail),
                           _("Name the model with --model; see the engine's log ({logs}) for why the list is not "
                             "served.").format(logs=hints(facts).logs), status=status)
        return
    if info.parse_error:
        yield Finding.fail(info.parse_error, _("The endpoint is not an OpenAI-compatible server, or a proxy in front "
                                               "of it rewrites answers: probe the engine's own port."), status=status)
        return
    names = [m.id for m in info.models]
    if not names:
        yield Finding.fail(_("/v1/models lists no model"),
                           _("The engine runs without a loaded model: see its log ({logs}).").format(
                               logs=hints(facts).logs))
        return
    served = info.find(facts.model)
    engine = hints(facts).name if facts.engine else _("engine not recognised")
    if served is None:
        yield Finding.fail(_("model {model} is not served here; served: {served}").format(
                               model=repr(facts.model), served=", ".join(names[:10])),
                           _("Probe a served name: --model {name} (vLLM sets the name with --served-model-name; "
                             "MindIE with ModelConfig.modelName).").format(name=names[0]), served=names)
        return
    text = (_("serves {models} ({engine}, max_model_len {length}); probing {model}") if served.max_model_len else
            _("serves {models} ({engine}); probing {model}"))
    yield Finding.passed(text.format(models=", ".join(names[:10]), engine=engine, length=served.max_model_len,
                                     model=facts.model),
                         served=names, engine=facts.engine, max_model_len=served.max_model_len)
