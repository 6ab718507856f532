"""``checks`` and ``explain``: the check catalogue as a list and one check's documentation.

JSON contracts: docs/checks-schema.json and docs/explain-schema.json. Check texts are English in
checks/ (the literal is the catalogue's msgid) and are shown here in the run's language, in both
formats (docs/i18n.md); ids, requirements and module names are never translated.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from ascend_doctor.i18n import gettext as _
from ascend_doctor.render import JSON, TEXT, unknown_format

if TYPE_CHECKING:
    from ascend_doctor.checkapi import Check, CheckSpec


def render_checks(catalogue: Sequence[Check], fmt: str) -> str:
    """``ascend-doctor checks``: every check, sorted as the registry lists them."""
    if fmt == JSON:
        from ascend_doctor.render.json import json_document

        # "package": only a plugin's checks have one (the distribution that installed them).
        return json_document([{"id": c.spec.id, "title": _(c.spec.title), "requires": list(c.spec.requires),
                               "module": c.module, **({"package": c.package} if c.package else {})}
                              for c in catalogue])
    if fmt == TEXT:
        width = max((len(c.spec.id) for c in catalogue), default=10)
        needs = _("needs:")
        plugin = _("plugin:")
        lines = [f"{c.spec.id:<{width}}  {_(c.spec.title)}"
                 + (f"  ({needs} {', '.join(c.spec.requires)})" if c.spec.requires else "")
                 + (f"  [{plugin} {c.package}]" if c.package else "") for c in catalogue]
        lines.append("\n" + _("{count} checks. `ascend-doctor explain ID` tells what one does and how to fix "
                              "it.").format(count=len(catalogue)))
        return "\n".join(lines)
    raise unknown_format(fmt)


def render_explain(spec: CheckSpec, fmt: str) -> str:
    """``ascend-doctor explain ID``: what a check verifies, why it matters and how to fix it."""
    title, what, why, fix = _(spec.title), _(spec.what), _(spec.why), _(spec.fix)
    if fmt == JSON:
        from ascend_doctor.render.json import json_document

        return json_document({"id": spec.id, "title": title, "what": what, "why": why, "fix": fix,
                              "requires": list(spec.requires)})
    if fmt == TEXT:
        text = (f"{spec.id}: {title}\n\n{_('What it checks')}\n  {_indent(what)}\n\n{_('Why it matters')}\n  "
                f"{_indent(why)}\n\n{_('How to fix')}\n  {_indent(fix)}\n")
        if spec.requires:
            text += "\n" + _("Runs when:") + f" {', '.join(spec.requires)}\n"
        return text
    raise unknown_format(fmt)


def _indent(text: str) -> str:
    import textwrap

    return textwrap.dedent(text).strip().replace("\n", "\n  ")
