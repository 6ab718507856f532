"""ASC-SRV-009: reasoning replies are separated from the answer and finish within max_tokens."""

from __future__ import annotations

from typing import Iterator, List

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.endpoint.records import Reply
from ascend_doctor.i18n import _

from ._probe import ProbeCheckContext, hints, probe_facts

CHECK = CheckSpec(
    id="ASC-SRV-009",
    title="Reasoning replies are separated and finish within max_tokens",
    suite="probe",
    what="For R1-style replies: where the thinking arrives (reasoning_content, reasoning, or <think> tags inside "
         "content) and whether a reply ran out of max_tokens while still thinking (finish_reason \"length\" with "
         "an empty answer).",
    why="R1 thinks before it answers and the thinking counts against max_tokens: a client with a tight "
        "max_tokens gets an empty answer, and a client that shows `content` shows the thinking when the engine "
        "does not separate it.",
    fix="Give clients room for the thinking (a larger max_tokens), ask for a direct answer in the prompt, and "
        "parse reasoning apart from content (vLLM: --reasoning-parser deepseek_r1).",
)


def run(ctx: ProbeCheckContext) -> Iterator[Finding]:
    facts = probe_facts(ctx)
    replies: List[Reply] = [r for r in facts.all_replies() if r.ok]
    if not replies:
        raise NotApplicable(facts.not_measured(_("the replies' reasoning")))
    thinking = [r for r in replies if r.reasoning]
    if not thinking:
        raise NotApplicable(_("none of {count} replies carried reasoning (not a reasoning model, or its thinking is "
                              "not returned)").format(count=len(replies)))
    look = hints(facts)
    cut = [r for r in thinking if r.finish_reason == "length" and not r.content.strip()]
    inline = [r for r in thinking if r.reasoning_source == "think_tags"]
    fields = sorted({r.reasoning_source for r in thinking if r.reasoning_source})
    evidence = {"replies": len(replies), "with_reasoning": len(thinking), "cut_while_reasoning": len(cut),
                "reasoning_sources": fields, "max_tokens": facts.settings.max_tokens}
    found = False
    if cut:
        found = True
        det = facts.deterministic
        budget = det.request.get("max_tokens") if det else facts.settings.max_tokens
        longest = max(len(r.reasoning) for r in cut)
        yield Finding.warn(
            _("{cut} of {thinking} reasoning replies used all of max_tokens ({budget}) on thinking: finish_reason "
              "\"length\", empty answer (up to {longest} characters of reasoning)").format(
                cut=len(cut), thinking=len(thinking), budget=budget, longest=longest),
            _("Clients must leave room for R1's thinking:") + "\n"
            + _("- raise max_tokens in the requests (rerun this probe with --max-tokens 2048 to see how long the "
                "thinking runs);") + "\n"
            + _("- or ask for a direct answer in the prompt (\"直接给出最终回答\");") + "\n"
            + _("- read reasoning_content / reasoning apart from content.") + "\n"
            + _("The engine's context must hold prompt + max_tokens: {limit}.").format(limit=look.context_limit),
            **evidence)
    if inline:
        found = True
        yield Finding.info(
            _("{inline} of {thinking} replies carry the thinking inside `content` (<think>…</think>): clients that "
              "show `content` show the reasoning too").format(inline=len(inline), thinking=len(thinking)),
            look.reasoning_parser, **evidence)
    if not found:
        where = " / ".join(fields)
        yield Finding.passed(_("{count} reasoning replies: thinking in `{where}`, answer in `content`, none cut by "
                               "max_tokens").format(count=len(thinking), where=where), **evidence)
