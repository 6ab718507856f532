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
from typing import Any, Dict, List, Mapping, Optional, Tuple

LANGUAGES = ("en", "zh")
DOMAIN = "ascend_doctor"
LOCALE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "locale")

_current: Optional[str] = None
_catalogues: Dict[str, Any] = {}  # language -> gettext.GNUTranslations, or None when unreadable
# Converters of texts with values between languages, by (source, target), built on first use.
_reverse: Dict[Tuple[str, str], Optional[_Converter]] = {}


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


def N_plural(singular: str, plural: str) -> Tuple[str, str]:
    """Mark a plural message pair for the catalogue without translating it here (one translated
    by someone else's ``ngettext``, e.g. click's)."""
    return singular, plural


def N_(message: str) -> str:  # the gettext convention the extractor looks for
    """Mark ``message`` for the catalogue without translating it here (module-level tables whose
    values are translated where they are shown)."""
    return message


# Punctuation that joins pieces of a sentence in code: Chinese prose takes the full-width forms
# (docs/i18n.md), which carry their own spacing.
_JOINERS = {"en": {"colon": ": ", "semicolon": "; ", "stop": ".", "open": " (", "close": ")"},
            "zh": {"colon": "：", "semicolon": "；", "stop": "。", "open": "（", "close": "）"}}


def joiner(name: str) -> str:
    """A joining punctuation mark of the current language: ``colon``, ``semicolon``, ``stop``,
    ``open`` and ``close`` (a bracket around a phrase)."""
    return _JOINERS.get(get_language(), _JOINERS["en"])[name]


_HALF_WIDTH_AFTER_CHINESE = None


def full_width_prose(text: str) -> str:
    """Chinese prose with the ASCII punctuation code joined it with made full-width: a ``:``, ``;``
    or ``,`` followed by a space, or a closing ``.``, right after a Chinese character or a full-width
    bracket. Lines indented by two spaces or more are commands and stay as they are, and so does
    punctuation after a value (a version, a path, a flag)."""
    global _HALF_WIDTH_AFTER_CHINESE
    if not text or not _has_cjk(text):
        return text
    if _HALF_WIDTH_AFTER_CHINESE is None:
        import re

        _HALF_WIDTH_AFTER_CHINESE = re.compile(r"(?<=[\u3400-\u9fff\uf900-\ufaff）」”])(?:([:;,]) |(\.)$)")
    marks = {":": "：", ";": "；", ",": "，", ".": "。"}
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if not line.startswith("  "):
            lines[index] = _HALF_WIDTH_AFTER_CHINESE.sub(lambda m: marks[m.group(1) or m.group(2)], line)
    return "\n".join(lines)


def half_width_joins(text: str, marks: str = "；：") -> str:
    """``full_width_prose`` undone for the joins in ``marks``: "；" and "：" after a Chinese
    character or bracket become "; " and ": " again."""
    import re

    return re.sub(f"(?<=[\u3400-\u9fff\uf900-\ufaff）」”])([{marks}])",
                  lambda m: "; " if m.group(1) == "；" else ": ", text)


def labelled(text: str) -> str:
    """A translated label ("fix:", "修复：") followed by what separates it from its value: a space,
    none after a full-width colon."""
    return text if text.endswith("：") else text + " "


def to_english(text: str, lang: str) -> str:
    """``text``, written in ``lang``, in English: a catalogue translation gives its msgid; a
    message with values (``"驱动 23.0.7 已安装"``) is matched against the catalogue's templates and
    its values put into the English one (see ``convert``). Text that matches nothing is returned
    unchanged. Lets a report written in Chinese be shown again in English."""
    if lang == "en" or not text:
        return text
    return convert(text, lang, "en")


def translate(text: str, lang: Optional[str] = None) -> str:
    """English ``text`` in ``lang`` (default: the current language), also when it is a message
    with values filled in (``"driver 23.0.7 is installed"``): for a report made in English and
    shown in Chinese. In English, or for text that already has Chinese in it, ``text`` itself."""
    target = lang or get_language()
    if target == "en" or not text:
        return text
    catalogue = _catalogue(target)
    exact = text if catalogue is None else str(catalogue.gettext(text))
    if exact != text or _has_cjk(text):
        return exact
    return convert(text, "en", target)


def convert_command(text: str, source: str, target: str) -> str:
    """A command line with its shell comment or its hint after two spaces ("export X=1   # why",
    "pip install ...  (matrix show lists the pairs)") in ``target``: only that comment or hint,
    when it is a catalogue message; the command itself is never touched."""
    if source == target or not text:
        return text
    converter = _converter(source, target)
    if converter is None or ("#" not in text and "  " not in text):
        return text
    return "\n".join(converter._comment(line) or line for line in text.split("\n"))


def convert(text: str, source: str, target: str) -> str:
    """``text`` from language ``source`` into ``target`` through the catalogue.

    In order: the whole text as a catalogue entry; the whole text against the templates (the
    entries with ``{field}``s, compiled to anchored regular expressions on first use, found by
    their literal prefix; the most specific that matches wins, its values are kept verbatim and
    put into the other language's template); then line by line (a run of lines may be one
    multi-line entry), and a line that matches nothing piece by piece between ``"; "``. What
    matches nothing stays as it is (commands, paths, values, text the catalogue lacks).
    """
    if source == target or not text:
        return text
    converter = _converter(source, target)
    if converter is None:
        return text
    converted = converter.convert(text)
    if source == "zh" and _has_cjk(converted):
        # full_width_prose may have turned the "; " that joined two messages into "；": the
        # catalogue knows the pieces, so try again with the joins as code wrote them.
        for marks in ("；", "；："):
            joined_as_written = half_width_joins(text, marks)
            if joined_as_written != text:
                retry = converter.convert(joined_as_written)
                if _cjk_count(retry) < _cjk_count(converted):
                    converted = retry
    return converted


def _cjk_count(text: str) -> int:
    return sum(1 for ch in text if "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff")


def has_chinese(text: str) -> bool:
    """Whether ``text`` holds a Chinese character."""
    return _has_cjk(text)


def _has_cjk(text: str) -> bool:
    return any("\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff" for ch in text)


class _Template:
    """One catalogue message with fields, as the language it is matched in sees it."""

    __slots__ = ("_regex", "bare", "needle", "pieces", "plural_field", "prefix", "source", "suffix", "targets",
                 "weak", "weight")

    def __init__(self, source: str, pieces: List[Tuple[str, Optional[str]]], targets: Tuple[str, ...],
                 plural_field: Optional[str]) -> None:
        self.source = source
        self.pieces = pieces  # (literal text, field name or None), in order
        self.prefix = pieces[0][0] if pieces else ""
        self.suffix = pieces[-1][0] if pieces and pieces[-1][1] is None else ""
        # The longest literal piece: a text without it cannot match (a substring test is far
        # cheaper than the regular expression, and most texts fail it).
        self.needle = max((text for text, name in pieces if name is None), key=len, default="")
        self.targets = targets  # one text, or (singular, plural) of an English plural message
        self.plural_field = plural_field
        literal = "".join(text for text, name in pieces if name is None)
        # A template that says little besides its values ("{a} and {b}", "or: {alternative}") is
        # weak: it is used only when one of its values is itself a message, after every other
        # template (a Chinese character counts as two letters).
        self.weak = sum(2 if _has_cjk(ch) else 1 for ch in literal if ch.isalpha()) < 4
        # One without a single word ("{subject}: {verdict}") only when every value is a message.
        self.bare = not any(ch.isalpha() for ch in literal)
        self.weight = (0 if self.weak else len(literal), -sum(1 for _, name in pieces if name is not None))
        self._regex: Any = None

    def match(self, text: str) -> Optional[Dict[str, str]]:
        if not text.startswith(self.prefix) or not text.endswith(self.suffix) or self.needle not in text:
            return None
        if self._regex is None:
            self._regex = {}
        first = self._values(text, ())
        if first is None or all(_balanced(value) for value in first.values()):
            return first
        # The shortest values split a bracket ("openEuler 22.03 (LTS-SP3) ({arch})"): let some
        # fields take the longest match instead, fewest first.
        import itertools

        names = list(dict.fromkeys(name for _, name in self.pieces if name is not None))[:6]
        for count in range(1, len(names) + 1):
            for greedy in itertools.combinations(names, count):
                values = self._values(text, greedy)
                if values is not None and all(_balanced(value) for value in values.values()):
                    return values
        return first

    def _values(self, text: str, greedy: Tuple[str, ...]) -> Optional[Dict[str, str]]:
        regex = self._regex.get(greedy)
        if regex is None:
            regex = self._regex[greedy] = self._compile(greedy)
        found = regex.fullmatch(text)
        if found is None:
            return None
        return {name: found.group(_group(name)) for _, name in self.pieces if name is not None}

    def _compile(self, greedy: Tuple[str, ...]) -> Any:
        import re

        parts, seen = [], set()
        for literal, name in self.pieces:
            if name is None:
                parts.append(re.escape(literal))
            elif name in seen:
                parts.append(f"(?P={_group(name)})")
            else:
                seen.add(name)
                parts.append(f"(?P<{_group(name)}>.*{'' if name in greedy else '?'})")  # a value may be empty
        return re.compile("".join(parts))

    def fill(self, values: Mapping[str, str]) -> Optional[str]:
        target = self.targets[0]
        if len(self.targets) > 1:  # English plural: the singular when the count is 1
            count = values.get(self.plural_field or "", "")
            target = self.targets[0] if count.strip() == "1" else self.targets[1]
        out = []
        for literal, name in _parse_format(target) or []:
            out.append(literal)
            if name is not None:
                if name not in values:
                    return None
                out.append(values[name])
        return "".join(out)


_BRACKETS = (("(", ")"), ("（", "）"), ("[", "]"), ("【", "】"))


def _balanced(value: str) -> bool:
    """Whether every bracket ``value`` opens it also closes, in order ("a) (b" is not)."""
    for opening, closing in _BRACKETS:
        if opening not in value and closing not in value:
            continue
        depth = 0
        for ch in value:
            depth += 1 if ch == opening else -1 if ch == closing else 0
            if depth < 0:
                return False
        if depth:
            return False
    return True


def _group(name: str) -> str:
    return "f_" + "".join(ch if ch.isalnum() else "_" for ch in name)


def _parse_format(text: str) -> Optional[List[Tuple[str, Optional[str]]]]:
    """A format string as (literal, field name or None) pieces, literals merged; None when it is
    not a valid format string."""
    import string

    pieces: List[Tuple[str, Optional[str]]] = []
    try:
        for literal, name, _spec, _conversion in string.Formatter().parse(text):
            if pieces and pieces[-1][1] is None:
                pieces[-1] = (pieces[-1][0] + literal, None)
            elif literal or not pieces:
                pieces.append((literal, None))
            if name is not None:
                if not name or pieces[-1][1] is not None:
                    return None  # "{}" or two fields side by side: cannot be told apart
                pieces.append(("", name))
                pieces.append(("", None))
    except ValueError:
        return None
    merged: List[Tuple[str, Optional[str]]] = []
    for literal, name in pieces:
        if name is None and merged and merged[-1][1] is None:
            merged[-1] = (merged[-1][0] + literal, None)
        else:
            merged.append((literal, name))
    return merged


def _sentences(text: str) -> Tuple[List[str], List[str]]:
    """``text`` cut after each sentence end (". " before a capital or a backtick in English;
    "。", "！", "？" in Chinese), as (sentences, the separators between them)."""
    import re

    parts: List[str] = []
    separators: List[str] = []
    start = 0
    for found in re.finditer(r"(?<=[.!?])\s+(?=[A-Z`(\u4e00-\u9fff])|(?<=[。！？])\s*(?=\S)", text):
        parts.append(text[start:found.start()])
        separators.append(found.group(0))
        start = found.end()
    parts.append(text[start:])
    return parts, separators


class _Converter:
    """Texts of one language into another: exact entries, then templates by literal prefix."""

    PREFIX = 3  # templates are filed under the first characters of their literal prefix
    CACHE = 20000  # converted texts remembered (a fleet's reports repeat the same messages)

    def __init__(self, exact: Dict[str, str], templates: List[_Template],
                 within: Optional[Dict[str, str]] = None, into_english: bool = False) -> None:
        self.exact = exact
        self.into_english = into_english
        # Where two messages translate alike but for their first letter's case ("Model weights",
        # "model weights"), the lower-case one is taken inside a sentence (a value, a list item).
        self.within: Dict[str, str] = within or {}
        self.buckets: Dict[str, List[_Template]] = {}
        for template in _unambiguous(templates):
            self.buckets.setdefault(template.prefix[:self.PREFIX], []).append(template)
        for bucket in self.buckets.values():
            bucket.sort(key=lambda t: t.weight, reverse=True)
        self.max_lines = 1 + max((k.count("\n") for k in list(exact) + [t.source for t in templates]), default=0)
        self.cache: Dict[str, str] = {}
        self.memo: Dict[Tuple[str, int, bool, bool], Optional[str]] = {}  # one()'s answers

    def one(self, text: str, depth: int = 0, whole: bool = False, strong: bool = False) -> Optional[str]:
        """``text`` converted when it is one whole message, else None. Unless ``whole``, a field
        takes in a "; " only when its value is a message itself (otherwise the text is more likely
        several messages joined: see ``line``)."""
        found = (self.within.get(text) if depth else None) or self.exact.get(text)
        if found is not None:
            return found
        if not text.strip():
            return None
        key = (text, depth, whole, strong)
        if key in self.memo:
            return self.memo[key]
        found = self._one(text, depth, whole, strong)
        if len(self.memo) < self.CACHE:
            self.memo[key] = found
        return found

    def _one(self, text: str, depth: int, whole: bool, strong: bool) -> Optional[str]:
        # Every template that matches is a reading of the text; the one that leaves the least of
        # the source language behind wins ("{engine} supports Python {pythons}" may take in a
        # whole "{subject}: {verdict}"), then the most specific.
        best: Optional[Tuple[Tuple[int, int, int, int], str]] = None
        for size in range(min(self.PREFIX, len(text)), -1, -1):
            for template in self.buckets.get(text[:size], ()):
                if best is not None and best[0][:2] == (0, 0) and template.weight <= (-best[0][2], -best[0][3]):
                    break  # buckets are sorted: nothing better follows here
                if (strong and template.weak) or template.needle not in text:
                    continue  # (the substring test first: most templates fail it)
                values = template.match(text)
                if values is None:
                    continue
                if template.weak and not all(v.strip() for v in values.values()):
                    continue  # "{a} or {b}" with nothing on one side is no message of that shape
                converted = {k: self._value(v, depth, lists=not template.weak) for k, v in values.items()}
                if not whole and any("; " in v and converted[k] == v for k, v in values.items()):
                    continue  # a value that takes in "; " must be a message itself, else see line()
                # Into English, a weak or bare template may keep plain values ("vLLM-Ascend 和
                # MindIE": the 和 can only come from a translation); into Chinese one of its values
                # must be a message itself (an English " and " or ": " can be anything).
                plain = all(converted[k] != v or self._left(v) <= (0 if self.into_english else 1)
                            for k, v in values.items())
                counted = len(values) == 1 and all(v.replace(",", "").isdigit() for v in values.values())
                if template.weak and converted == values and not (self.into_english and plain) and not counted:
                    continue  # ("{count} NPU" with a number is that message, "{a} and {b}" may be anything)
                if template.bare and (not plain or (converted == values and not self.into_english)):
                    continue
                filled = template.fill(converted)
                if filled is None:
                    continue
                # Then the reading whose values do not straddle a colon ("{engine} supports ..."
                # taking in "Python 3.11 with torch 2.1: PyTorch 2.1"), then the most specific.
                spans = sum(1 for k, v in values.items() if converted[k] == v and (": " in v or "：" in v))
                score = (self._left(filled), spans, -template.weight[0], -template.weight[1])
                if best is None or score < best[0]:
                    best = (score, filled)
        return best[1] if best is not None else None

    def _left(self, text: str) -> int:
        """How much of the source language ``text`` still holds: Chinese characters (into
        English), or English words of three letters or more (into Chinese)."""
        if self.into_english:  # Chinese characters and full-width punctuation (，：（）)
            return sum(1 for ch in text if _has_cjk(ch) or "\u3000" <= ch <= "\u303f" or "\uff00" <= ch <= "\uffef")
        import re

        return len(re.findall(r"(?<![\w./-])[a-z]{3,}(?![\w./-])", text))

    def _value(self, value: str, depth: int, lists: bool = False) -> str:
        """A field's value: a phrase that is itself a message (a translated reason inside "cannot
        be checked here: {reason}") is converted too; values (versions, paths, ids) stay."""
        if depth >= 3 or not (" " in value or _has_cjk(value)):
            return value
        found = self.within.get(value) or self.exact.get(value)
        if found is None and ", " in value:  # a list of messages ("operator compile cache, CANN logs")
            items = value.split(", ")
            converted = [self.within.get(item) or self.exact.get(item) for item in items]
            if any(c is not None for c in converted):
                found = ", ".join(c if c is not None else i for c, i in zip(converted, items))
        if found is None and lists and "; " in value:  # messages joined, each converted (not for a weak
            parts = [self.one(item, depth + 1) for item in value.split("; ")]  # template: it would take any)
            if all(p is not None for p in parts):
                found = "; ".join(p for p in parts if p is not None)
        if found is None:
            found = self.one(value, depth + 1)
        return value if found is None else found

    def line(self, text: str) -> str:
        body = text.strip()
        if not body:
            return text
        lead = text[:len(text) - len(text.lstrip())]
        trail = text[len(text.rstrip()):]
        if body.startswith(("#", "$")) or len(lead) >= 2:
            # A command or a shell comment (remediations indent their commands): only a whole
            # catalogue entry is converted, or the comment after it ("export X=1   # why").
            found = self.exact.get(body)
            if found is None and body.startswith("#"):
                found = self.one(body, strong=True)  # a "# ..." advice line that is a message itself
            if found is None:
                found = self._comment(body)
            return text if found is None else lead + found + trail
        found = self._comment(body) if "  " in body else None
        if found is not None:
            return lead + found + trail
        found = self.one(body)
        if found is None and not body.endswith((":", "：")):
            found = self._without_colon(body)
        if found is None:
            # Several messages joined ("; ", sentences), or one whose value holds "; " (sources,
            # commands): the pieces when every one of them converts, else the whole message.
            pieces = self._pieces(body)
            if pieces is not None and pieces[0] == 0:
                found = pieces[1]
            else:
                found = self.one(body, whole=True)
                if found is None and pieces is not None:
                    found = pieces[1]
        return lead + (found if found is not None else body) + trail

    def _comment(self, text: str) -> Optional[str]:
        """A command line whose shell comment or hint after two spaces is a message ("export X=1
        # in the engine's environment ...", "pip install ...  (matrix show lists the pairs)"):
        the command as it is, the comment converted; None otherwise."""
        import re

        found = re.match(r"(#\s*|.*?\S\s{2,}(?:#\s*)?)(\S.*)$", text)
        if found is None:
            return None
        comment = found.group(2)
        converted = self.exact.get(comment) or self.one(comment, strong=True)
        return None if converted is None else found.group(1) + converted

    def _without_colon(self, text: str) -> Optional[str]:
        """A message that ends with a colon, quoted without it (the fix plan takes the first line
        of a remediation as a step's summary and drops its colon)."""
        for colon in (":", "："):
            found = self.one(text + colon, strong=True)
            if found is not None and found.endswith((":", "：")):
                return found.rstrip(":：")
        return None

    def _pieces(self, text: str) -> Optional[Tuple[int, str]]:
        """(characters left unconverted, ``text`` converted as several messages joined by "; " or
        as sentences): either cut first, the reading that leaves the least unconverted wins.
        None when no piece converts."""
        best: Optional[Tuple[int, str]] = None
        for order in (("; ", "."), (".", "; ")):
            out, left = self._split(text, order)
            if left < len(text) and (best is None or left < best[0]):
                best = (left, out)
        return best

    def _split(self, text: str, order: Tuple[str, ...]) -> Tuple[str, int]:
        """(``text`` converted piece by piece, how many of its characters stayed unconverted)."""
        if not order:
            return text, len(text)
        if order[0] == "; ":
            parts = text.split("; ")
            separators = ["; "] * (len(parts) - 1)
        else:
            parts, separators = _sentences(text)
        if len(parts) < 2:
            return self._split(text, order[1:])
        out: List[str] = []
        left = 0
        index = 0
        while index < len(parts):
            # The longest run of pieces that is one message (a message may hold "; " itself).
            found: Optional[str] = None
            end = index + 1
            for stop in range(min(len(parts), index + 4), index + 1, -1):
                joined = "".join(parts[k] + separators[k] for k in range(index, stop - 1)) + parts[stop - 1]
                found = self.one(joined)
                if found is not None:
                    end = stop
                    break
            if found is None:
                found = self.one(parts[index])
            if found is None:
                found, missed = self._split(parts[index], order[1:])
                left += missed
            out.append(found + (separators[end - 1] if end - 1 < len(separators) else ""))
            index = end
        return "".join(out), left

    def convert(self, text: str) -> str:
        found = self.cache.get(text)
        if found is None:
            found = self._convert(text)
            if len(self.cache) < self.CACHE:
                self.cache[text] = found
        return found

    def _convert(self, text: str) -> str:
        if "\n" not in text:
            return self.line(text)
        found = self.one(text)
        if found is not None:
            return found
        lines = text.split("\n")
        out: List[str] = []
        i = 0
        while i < len(lines):
            for j in range(min(len(lines), i + self.max_lines), i + 1, -1):  # a multi-line message
                chunk = self.one("\n".join(lines[i:j]))
                if chunk is not None:
                    out.append(chunk)
                    i = j
                    break
            else:
                out.append(self.line(lines[i]))
                i += 1
        return "\n".join(out)




def _converter(source: str, target: str) -> Optional[_Converter]:
    key = (source, target)
    if key not in _reverse:
        foreign = target if source == "en" else source
        pairs = _catalogue_pairs(foreign)
        if pairs is None:
            _reverse[key] = None
        else:
            _reverse[key] = _build_converter(pairs, to_foreign=source == "en")
    return _reverse[key]


def _build_converter(pairs: List[Tuple[str, Optional[str], List[str]]], to_foreign: bool) -> _Converter:
    """``pairs``: (English singular, English plural or None, translations)."""
    exact: Dict[str, str] = {}
    within: Dict[str, str] = {}
    templates: List[_Template] = []
    for singular, plural, translations in pairs:
        if not translations or not translations[0]:
            continue
        if to_foreign:
            sources = [(singular, translations[0])] + ([(plural, translations[-1])] if plural else [])
            for source, target in sources:
                _add(exact, within, templates, source, (target,), None)
        else:
            targets = (singular, plural) if plural else (singular,)
            for translation in translations:
                _add(exact, within, templates, translation, targets, _count_field(singular) if plural else None)
    return _Converter(exact, templates, within, into_english=not to_foreign)


def _unambiguous(templates: List[_Template]) -> List[_Template]:
    """``templates`` without those that read the same but mean different messages (two English
    messages translated alike): which one a text came from cannot be told, so neither is used."""
    by_shape: Dict[Tuple[str, ...], List[_Template]] = {}
    for template in templates:
        shape = tuple(text if name is None else "\0" for text, name in template.pieces)
        by_shape.setdefault(shape, []).append(template)
    out: List[_Template] = []
    for group in by_shape.values():
        meanings = {_meaning(t) for t in group}
        if len(meanings) == 1:
            out.append(group[0])
    return out


def _meaning(template: _Template) -> Tuple[str, ...]:
    """The targets with each field named by its place in the source (field names may differ)."""
    order: Dict[str, str] = {}
    for _, name in template.pieces:
        if name is not None and name not in order:
            order[name] = str(len(order))
    out = []
    for target in template.targets:
        pieces = _parse_format(target) or []
        out.append("".join(text if name is None else "{" + order.get(name, "?" + name) + "}" for text, name in pieces))
    return tuple(out)


def _add_exact(exact: Dict[str, str], within: Dict[str, str], source: str, target: str) -> None:
    old = exact.setdefault(source, target)
    if old != target and old.lower() == target.lower():  # "Model weights" / "model weights"
        lower, upper = (old, target) if old[:1].islower() else (target, old)
        exact[source], within[source] = upper, lower


def _add(exact: Dict[str, str], within: Dict[str, str], templates: List[_Template], source: str,
         targets: Tuple[str, ...], plural_field: Optional[str]) -> None:
    if "{" not in source and "}" not in source and len(targets) == 1:
        _add_exact(exact, within, source, targets[0])
        return
    pieces = _parse_format(source)
    if pieces is None or not any(name for _, name in pieces):
        if len(targets) == 1:
            _add_exact(exact, within, source.replace("{{", "{").replace("}}", "}"), targets[0])
        return
    # A template must have some text of its own ("{a} {b}" would match anything).
    if not "".join(text for text, name in pieces if name is None).strip():
        return
    templates.append(_Template(source, pieces, targets, plural_field))


def _count_field(singular: str) -> Optional[str]:
    names = [name for _, name in _parse_format(singular) or [] if name]
    for preferred in ("count", "n", "number"):
        if preferred in names:
            return preferred
    return names[0] if names else None


def _catalogue_pairs(lang: str) -> Optional[List[Tuple[str, Optional[str], List[str]]]]:
    """The entries of the ``lang`` catalogue as (English, English plural, translations): read from
    the .mo itself, since ``GNUTranslations`` drops the English plural of plural entries."""
    path = catalogue_path(lang)
    try:
        with open(path, "rb") as fh:
            data = fh.read()
        import struct

        magic = struct.unpack("<I", data[:4])[0]
        order = "<" if magic == 0x950412DE else ">"
        _magic, _version, count, key_table, value_table = struct.unpack(order + "5I", data[:20])
        pairs = []
        for index in range(count):
            key_len, key_off = struct.unpack(order + "2I", data[key_table + 8 * index:key_table + 8 * index + 8])
            val_len, val_off = struct.unpack(order + "2I", data[value_table + 8 * index:value_table + 8 * index + 8])
            key = data[key_off:key_off + key_len].decode("utf-8")
            value = data[val_off:val_off + val_len].decode("utf-8")
            if not key:
                continue  # the header
            singular, _, plural = key.partition("\0")
            pairs.append((singular, plural or None, value.split("\0")))
        return pairs
    except Exception:  # _catalogue() has already warned about a missing or damaged catalogue
        _catalogue(lang)
        return None


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
