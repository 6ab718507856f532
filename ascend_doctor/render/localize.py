"""A report's human text in the chosen language, at the point of display.

Check titles, messages and remediations are written in English by the checks (the English text is
the catalogue's msgid, so check modules need no change for a translation to exist). Before a
report is rendered in any format, ``localize_report`` swaps every human field for its translation:
result titles, messages and remediations, fix-plan summaries, reasons and alternatives, and
run notes. Ids, statuses, evidence, commands and versions are never touched, so the JSON stays
the same for machines; the report records its language in ``lang``.

A report read back from JSON (``report render``) may be in the other language: its texts are
converted through the catalogue, messages with values included (``ascend_doctor.i18n.convert``:
the catalogue's templates, per line and per "; " piece); text the catalogue does not know (a
command, a value, a message missing from it) is shown as it is. A report made in this run needs
no conversion: its messages were written in the chosen language, only the check titles and
static texts are looked up.
"""

from __future__ import annotations

from typing import Callable

from msgspec import structs

from ascend_doctor.i18n import convert as convert_text
from ascend_doctor.i18n import convert_command, full_width_prose, get_language, has_chinese, translate
from ascend_doctor.report import Report


def localize_report(report: Report) -> Report:
    """``report`` with its human text in the current language (the same object in English when it
    already is English: nothing is looked up)."""
    target = get_language()
    source = report.lang or "en"
    if target == "en" and source == "en":
        return report

    def command(text: str) -> str:
        """A fix-plan command: only its shell comment or the hint after it (a run writes those in
        its language) is converted, the command never."""
        if target != "en" and has_chinese(text):
            return text
        return convert_command(text, "en" if source == target else source, target)

    convert: Callable[[str], str]
    if source == "en":
        convert = translate  # exact catalogue entries first; templates only for English left over
    elif target == source:
        def convert(text: str) -> str:  # already in this language; English left in it is translated
            return translate(text, target)
    else:
        def convert(text: str) -> str:
            return convert_text(text, source, target)

    if target == "zh":  # one punctuation style: full-width in Chinese prose, whoever joined the pieces
        plain = convert

        def convert(text: str) -> str:
            return full_width_prose(plain(text))

    results = [structs.replace(r, title=convert(r.title), message=convert(r.message),
                                   remediation=convert(r.remediation)) for r in report.results]
    plan = [structs.replace(s, summary=convert(s.summary), why=convert(s.why), alternative=convert(s.alternative),
                                commands=tuple(command(c) for c in s.commands)) for s in report.fix_plan]
    return structs.replace(report, results=results, fix_plan=plan, notes=[convert(n) for n in report.notes],
                               lang=target)
