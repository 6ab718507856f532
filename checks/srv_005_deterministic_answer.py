"""ASC-SRV-005: the deterministic answer matches the one saved earlier (--save / --compare)."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable, Status
from ascend_doctor.i18n import _

from ._probe import ProbeCheckContext, probe_facts, quote

CHECK = CheckSpec(
    id="ASC-SRV-005",
    title="The deterministic answer matches the saved one",
    suite="probe",
    what="Replays the request saved with --save FILE (temperature 0, a fixed seed, no top_p) "
         "and compares the answer, reasoning included, character by character with the saved one (--compare FILE).",
    why="On the same hardware and software, greedy decoding with a fixed seed repeats itself: an answer that "
        "changes after an upgrade (CANN, operators, engine, quantized weights) shows that the numerics changed "
        "before users notice different answers.",
    fix="Compare the two stacks (`ascend-doctor check --format json` before and after); across platforms "
        "(GPU vs Ascend) judge the meaning of the answers, never the bytes.",
)


def run(ctx: ProbeCheckContext) -> Iterator[Finding]:
    facts = probe_facts(ctx)
    settings = facts.settings
    if not settings.save and not settings.compare:
        yield Finding.skip(_("nothing to compare: no --save or --compare"),
                           _("Save a reference now (`--save answer.json`) and compare after an upgrade "
                             "(`--compare answer.json`)."))
        return
    record = facts.deterministic
    if record is None:
        raise NotApplicable(facts.not_measured(_("the deterministic answer")))
    dropped = _(" (the server refused `seed`: sent without it, so only temperature 0 pins the answer)") \
        if "seed" in record.dropped_fields else ""
    comparison = record.comparison
    if settings.compare and comparison is not None:
        if not comparison.loaded or (comparison.error and comparison.same is None):
            yield Finding(Status.ERROR, _("could not compare with {file}: {error}").format(
                              file=comparison.file, error=comparison.error),
                          _("Give a file written by `ascend-doctor probe --save`."), {"file": comparison.file})
        elif comparison.same:
            yield Finding.passed(_("identical to the answer saved in {file} at {saved_at} ({count} characters)"
                                   "{seed_note}").format(file=comparison.file, saved_at=comparison.saved_at,
                                                         count=comparison.current_chars, seed_note=dropped),
                                 **comparison.to_dict())
        else:
            model_note = ""
            if comparison.saved_model and comparison.saved_model != facts.model:
                model_note = _(" The saved answer came from model {saved_model}, this one from {model}.").format(
                    saved_model=repr(comparison.saved_model), model=repr(facts.model))
            yield Finding.warn(
                _("differs from the answer saved in {file} at {saved_at}: first difference at character {position} "
                  "(saved \"{saved}\", now \"{now}\"){seed_note}.{model_note}").format(
                    file=comparison.file, saved_at=comparison.saved_at, position=comparison.first_difference,
                    saved=quote(comparison.saved_excerpt), now=quote(comparison.current_excerpt), seed_note=dropped,
                    model_note=model_note),
                _("On the same hardware, a greedy answer with a fixed seed changes only when the numerics do: "
                  "compare the stacks of both runs (`ascend-doctor check --format json` then and now: driver, "
                  "CANN, torch_npu, engine version), the weights (`ascend-doctor model verify`) and the engine's "
                  "dtype / quantization flags. Across platforms (GPU vs Ascend) answers diverge after a few dozen "
                  "tokens (different kernels round differently): compare their meaning instead."),
                **comparison.to_dict())
    if settings.save:
        if record.saved_to:
            yield Finding.passed(_("answer saved to {file} ({answer} characters of answer, {reasoning} of "
                                   "reasoning){seed_note}").format(
                                     file=record.saved_to, answer=len(record.reply.content),
                                     reasoning=len(record.reply.reasoning), seed_note=dropped),
                                 file=record.saved_to)
        else:
            yield Finding(Status.ERROR, _("the answer was not saved: {error}").format(error=record.save_error),
                          _("Give --save a writable path for a new file or an existing regular file."),
                          {"file": settings.save})
