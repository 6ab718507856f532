"""Messages in English and Simplified Chinese (``--lang en|zh``), from a gettext catalogue.

English is the source language: every message is written in English in the code and is its own
key (the gettext ``msgid``). Chinese comes from ``ascend_doctor/locale/zh/LC_MESSAGES/
ascend_doctor.mo``, compiled from the ``.po`` next to it (see docs/i18n.md and
tools/extract_messages.py). A message missing from the catalogue is shown in English.

Start-up cost matters (``ascend-doctor --version`` is timed in bench/): in English nothing is
loaded, ``_()`` returns its argument; the catalogue (and the ``gettext`` module) is read on the
first message translated into Chinese.

Messages with values use named fields filled after translation, so that a translator can move
them: ``_("driver {version} is installed").format(version=v)``.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Dict, Mapping, Optional

LANGUAGES = ("en", "zh")
DOMAIN = "ascend_doctor"
LOCALE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "locale")

_current: Optional[str] = None
_catalogues: Dict[str, Any] = {}  # language -> gettext.GNUTranslations, or None when unreadable
_reverse: Dict[str, Dict[str, str]] = {}  # language -> translation -> English


def language_from_env(environ: Optional[Mapping[str, str]] = None) -> str:
    """The language the locale asks for: the first of LC_ALL, LC_MESSAGES, LANG that is set
    decides (the POSIX order); a value starting with ``zh`` means Chinese, anything else English."""
    env = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "")
        if value:
            return "zh" if value.strip().lower().startswith("zh") else "en"
    return "en"


def set_language(lang: Optional[str]) -> str:
    """Use ``lang`` ("en" or "zh") from now on; ``None``: the locale's language. Returns it."""
    global _current
    if lang is None:
        _current = language_from_env()
    elif lang in LANGUAGES:
        _current = lang
    else:
        raise ValueError(f"unknown language {lang!r} (choose from {', '.join(LANGUAGES)})")
    return _current


def get_language() -> str:
    """The language messages are shown in (the locale's until ``set_language`` is called)."""
    return _current if _current is not None else set_language(None)


def gettext(message: str) -> str:
    """``message`` in the current language (English when the catalogue lacks it)."""
    lang = _current if _current is not None else get_language()
    if lang == "en" or not message:  # "" is the catalogue header's key, never a message
        return message
    catalogue = _catalogue(lang)
    return message if catalogue is None else str(catalogue.gettext(message))


_ = gettext


def ngettext(singular: str, plural: str, count: int) -> str:
    """The form of a message for ``count`` (Chinese has one form; English two)."""
    lang = _current if _current is not None else get_language()
    if lang != "en":
        catalogue = _catalogue(lang)
        if catalogue is not None:
            return str(catalogue.ngettext(singular, plural, count))
    return singular if count == 1 else plural


def N_(message: str) -> str:  # the gettext convention the extractor looks for
    """Mark ``message`` for the catalogue without translating it here (module-level tables whose
    values are translated where they are shown)."""
    return message


def to_english(text: str, lang: str) -> str:
    """The English message ``text`` translates in ``lang`` (``text`` itself when it is not a
    catalogue translation): lets a report written in Chinese be shown again in English."""
    if lang == "en" or not text:
        return text
    reverse = _reverse.get(lang)
    if reverse is None:
        catalogue = _catalogue(lang)
        # GNUTranslations keeps msgid -> msgstr in _catalog (unchanged since Python 2); plural
        # entries are keyed by (msgid, n) and are left out.
        entries = getattr(catalogue, "_catalog", {}) if catalogue is not None else {}
        reverse = {str(v): k for k, v in entries.items() if isinstance(k, str) and k}
        _reverse[lang] = reverse
    return reverse.get(text, text)


def catalogue_path(lang: str) -> str:
    return os.path.join(LOCALE_DIR, lang, "LC_MESSAGES", DOMAIN + ".mo")


def _catalogue(lang: str) -> Any:
    if lang in _catalogues:
        return _catalogues[lang]
    path = catalogue_path(lang)
    catalogue: Any = None
    try:
        import gettext as _gettext

        with open(path, "rb") as fh:
            catalogue = _gettext.GNUTranslations(fh)
    except Exception as exc:  # missing or damaged catalogue: English, one warning, never a traceback
        sys.stderr.write(f"ascend-doctor: warning: cannot read the {lang} message catalogue {path} "
                         f"({type(exc).__name__}: {exc}); messages are shown in English\n")
    _catalogues[lang] = catalogue
    return catalogue
