"""English text that can still be shown translated: for the layers that make sentences but must
not decide their language (parsers, model inspection, memory planning).

A parser's problem message or a model's provenance label is data first: it lands in JSON
(facts, evidence) that must read the same in every language, and it is built before anything
knows where it will be shown. ``Text`` is that English string - a ``str``, equal to it,
serialised as it - which also remembers its catalogue template and fields, so the check that
shows it to a person can call ``localized()`` for the run's language:

    problem = Text(N_("{path} does not exist"), path=path)   # data: "/x does not exist"
    message = localized(problem)                              # in a zh run: "/x 不存在"

The template is marked with ``N_`` so that tools/extract_messages.py puts it in the catalogue.
Fields that are themselves ``Text`` are translated too. Anything derived from a ``Text`` by
``str`` operations (``+``, f-strings, ``join``, ``str()``) is plain English again: translate the
parts, then join them.
"""

from __future__ import annotations

from typing import Any, Dict

from ascend_doctor.i18n import gettext


class Text(str):
    """``template.format(**fields)`` in English, remembering ``template`` and ``fields``."""

    template: str
    fields: Dict[str, Any]

    def __new__(cls, template: str, **fields: Any) -> Text:
        self = super().__new__(cls, template.format(**fields) if fields else template)
        self.template = template
        self.fields = fields
        return self

    def __reduce__(self) -> Any:  # pickle / copy keep the template (str's own reduce would drop it)
        return (_rebuild, (self.template, self.fields))


def _rebuild(template: str, fields: Dict[str, Any]) -> Text:
    return Text(template, **fields)


def localized(value: Any) -> str:
    """``value`` for people in the current language: a ``Text`` (or an exception raised with one)
    translated with its fields, any other value as ``str(value)``."""
    if isinstance(value, BaseException) and len(value.args) == 1 and isinstance(value.args[0], Text):
        value = value.args[0]
    if isinstance(value, Text):
        fields = {name: localized(field) if isinstance(field, Text) else field for name, field in value.fields.items()}
        translated = gettext(value.template)
        return translated.format(**fields) if fields else translated
    return str(value)
