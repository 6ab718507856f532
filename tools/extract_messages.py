#!/usr/bin/env python3
"""Collect every translatable message and update the Chinese catalogue (docs/i18n.md).

    python tools/extract_messages.py            # update ascend_doctor/locale/zh/LC_MESSAGES/ascend_doctor.po
                                                # (new messages untranslated, translations kept) and
                                                # compile the .mo next to it
    python tools/extract_messages.py --check    # exit 1 when a message lacks its translation or
                                                # the .mo is not the compiled .po (CI, tests)
    python tools/extract_messages.py --todo checks/mdl_ --out /tmp/mdl.po
                                                # the untranslated messages of the files whose path
                                                # starts with checks/mdl_, as a .po to fill in
    python tools/extract_messages.py --import /tmp/mdl.po
                                                # take the translations of a filled-in .po (several
                                                # people translating areas in parallel), then update

A fragment's translation replaces an untranslated or fuzzy entry with the same msgid; a translated
entry is only replaced when the fragment's is different and ``--import-overwrite`` is given.

Where messages come from:

* ``_("...")``, ``gettext``, ``N_`` and ``ngettext`` calls with literal strings, in
  ascend_doctor/ and checks/ (read with ``ast``; nothing is imported);
* the literal first argument of ``fail(...)``, ``click.UsageError(...)`` and
  ``click.ClickException(...)`` (the CLI translates these at the point of display);
* every ``CheckSpec(...)``'s title, what, why and fix: the English literal is the msgid, so check
  modules need no change; a field that is not a literal (an f-string) is read from the imported
  module, i.e. the text a run shows;
* the human fields of the data files the tool shows (``DATA_MESSAGES``: the error-signature
  database's titles, meanings, likely causes and ``# ...`` advice lines of its fixes; never a
  pattern, id, code or command), referenced by the YAML file and the record's id;
* every click help text of the command tree (command docstrings, ``help=``, ``epilog=``, the
  one-line table of ``ascend_doctor.cli.SUBCOMMANDS``), as click shows it (``inspect.cleandoc``).
  This imports the command modules, which is how computed help texts are found too.

A translation whose English text changed is kept as a ``fuzzy`` suggestion on the new text (not
used until a translator confirms it by removing the flag); a message that disappeared is kept at
the end as obsolete (``#~``) for reuse. The .mo is written byte-for-byte reproducibly (entries
sorted), so a test can compare it with the .po.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import importlib
import inspect
import os
import struct
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE_DIRS = ("ascend_doctor", "checks")
PO_PATH = os.path.join(ROOT, "ascend_doctor", "locale", "zh", "LC_MESSAGES", "ascend_doctor.po")
MO_PATH = PO_PATH[:-3] + ".mo"
SPEC_FIELDS = ("title", "what", "why", "fix")
GETTEXT_NAMES = {"_", "gettext", "N_"}
PLURAL_NAMES = {"ngettext", "N_plural"}
# Calls whose literal first argument is shown to the user translated (the CLI's one-line errors).
DISPLAYED_CALLS = {"fail", "UsageError", "ClickException", "BadParameter"}
CLI_DIR = os.path.join("ascend_doctor", "cli") + os.sep
# Data files whose human fields are shown translated (with ``_(value)`` where they are shown):
# file -> (the list of records, the id key, fields). A field ending in "#" holds a list of lines of
# which only the "# ..." advice lines are messages (the others are commands, never translated).
DATA_MESSAGES: Dict[str, Tuple[str, str, Tuple[str, ...]]] = {
    os.path.join("compat_matrix", "signatures.yaml"): ("signatures", "id", ("title", "meaning", "causes", "fix#")),
}
HEADER = {
    "Project-Id-Version": "ascend-doctor",
    "Language": "zh_CN",
    "MIME-Version": "1.0",
    "Content-Type": "text/plain; charset=UTF-8",
    "Content-Transfer-Encoding": "8bit",
    "Plural-Forms": "nplurals=1; plural=0;",
}


@dataclass
class Message:
    msgid: str
    plural: Optional[str] = None
    references: List[str] = field(default_factory=list)
    comments: List[str] = field(default_factory=list)  # "#." notes for the translator
    order: Tuple[int, str, int] = (9, "", 0)


@dataclass
class Entry:
    msgid: str
    msgstr: str = ""
    plural: Optional[str] = None
    plural_strs: List[str] = field(default_factory=list)
    fuzzy: bool = False
    references: List[str] = field(default_factory=list)
    comments: List[str] = field(default_factory=list)
    translator_comments: List[str] = field(default_factory=list)
    obsolete: bool = False

    @property
    def translated(self) -> bool:
        if self.fuzzy:
            return False
        if self.plural is not None:
            return bool(self.plural_strs) and all(self.plural_strs)
        return bool(self.msgstr)


# -- extraction --------------------------------------------------------------------------------


class _Collector:
    def __init__(self) -> None:
        self.messages: Dict[str, Message] = {}

    def add(self, msgid: str, reference: str, order: Tuple[int, str, int], comment: str = "",
            plural: Optional[str] = None) -> None:
        if not msgid.strip():
            return
        message = self.messages.get(msgid)
        if message is None:
            message = self.messages[msgid] = Message(msgid, plural, order=order)
        elif order < message.order:
            message.order = order
        if reference not in message.references:
            message.references.append(reference)
        if comment and comment not in message.comments:
            message.comments.append(comment)


# checks/_catalogue.py repeats every CheckSpec (built by ascend_doctor/compiled_data.py): its text is
# extracted from the check modules themselves.
GENERATED_CATALOGUE = "_catalogue.py"


def _python_files() -> Iterator[str]:
    for top in SOURCE_DIRS:
        for folder, dirs, files in os.walk(os.path.join(ROOT, top)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                if name.endswith(".py") and name != GENERATED_CATALOGUE:
                    yield os.path.join(folder, name)


def _literal(node: ast.AST) -> Optional[str]:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _call_name(node: ast.Call) -> str:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def extract_source(collector: _Collector) -> List[str]:
    """Messages marked in the source; returns problems (a CheckSpec field that is not literal
    and could not be read from the imported module)."""
    problems: List[str] = []
    for path in _python_files():
        rel = os.path.relpath(path, ROOT)
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read(), rel)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = _call_name(node)
            ref = rel  # file only: line numbers would churn the .po on every unrelated edit
            if name == "CheckSpec" and rel.startswith("checks" + os.sep):
                problems.extend(_extract_spec(collector, node, rel))
                continue
            if not node.args:
                continue
            first = _literal(node.args[0])
            if first is None:
                continue
            if name in GETTEXT_NAMES:
                # gettext(...) on an object other than ours (catalogue.gettext(message)) has no literal
                collector.add(first, ref, (3, rel, node.lineno))
            elif name in PLURAL_NAMES and len(node.args) >= 2 and _literal(node.args[1]) is not None:
                collector.add(first, ref, (3, rel, node.lineno), plural=_literal(node.args[1]))
            elif name in DISPLAYED_CALLS and rel.startswith(CLI_DIR) and \
                    (name != "fail" or isinstance(node.func, ast.Name)):
                collector.add(first, ref, (3, rel, node.lineno), "shown as a one-line error")
    return problems


def _extract_spec(collector: _Collector, node: ast.Call, rel: str) -> List[str]:
    keywords = {kw.arg: kw.value for kw in node.keywords if kw.arg}
    check_id = _literal(keywords["id"]) if "id" in keywords else None
    problems = []
    for attr in SPEC_FIELDS:
        value = keywords.get(attr)
        if value is None:
            continue
        text = _literal(value)
        if text is None:
            text = _evaluated_spec_field(rel, check_id, attr)
        if text is None:
            problems.append(f"{rel}: CheckSpec {check_id or '?'} {attr} is neither a literal nor readable "
                            "from the imported module")
            continue
        order = (1, check_id or rel, SPEC_FIELDS.index(attr))
        collector.add(text, rel, order, f"{check_id} {attr}")
    return problems


def _evaluated_spec_field(rel: str, check_id: Optional[str], attr: str) -> Optional[str]:
    module_name = "ascend_doctor.checks." + os.path.splitext(os.path.basename(rel))[0]
    try:
        module = importlib.import_module(module_name)
    except Exception:
        return None
    for value in vars(module).values():
        if type(value).__name__ == "CheckSpec" and getattr(value, "id", None) == check_id:
            text = getattr(value, attr, None)
            return text if isinstance(text, str) else None
    return None


def extract_data(collector: _Collector) -> List[str]:
    """The human fields of ``DATA_MESSAGES``; returns problems (an unreadable file)."""
    import yaml

    problems: List[str] = []
    for rel, (section, id_key, fields) in DATA_MESSAGES.items():
        try:
            with open(os.path.join(ROOT, rel), encoding="utf-8") as fh:
                data = yaml.safe_load(fh)
        except (OSError, yaml.YAMLError) as exc:
            problems.append(f"{rel}: cannot be read: {exc}")
            continue
        records = data.get(section, []) if isinstance(data, dict) else []
        for number, record in enumerate(records if isinstance(records, list) else []):
            if not isinstance(record, dict):
                continue
            record_id = str(record.get(id_key, number))
            for index, spec in enumerate(fields):
                name = spec.rstrip("#")
                value = record.get(name)
                values = value if isinstance(value, list) else [value]
                for text in values:
                    if not isinstance(text, str) or (spec.endswith("#") and not text.startswith("#")):
                        continue
                    collector.add(text, rel, (4, rel, number * 10 + index), f"{record_id} {name}")
    return problems


def extract_cli(collector: _Collector) -> None:
    """Every help text of the command tree, keyed as click shows it."""
    import click

    from ascend_doctor import i18n
    from ascend_doctor.cli import SUBCOMMANDS, main
    from ascend_doctor.cli._localize import localize_command

    i18n.set_language("en")  # the English originals, even if this process showed Chinese help before

    def walk(command: click.Command, path: str) -> None:
        localize_command(command)
        for attr in ("help", "epilog", "short_help"):
            text = getattr(command, attr)
            if text:
                collector.add(inspect.cleandoc(text), f"cli: {path} ({attr})", (2, path, 0))
        for param in command.params:
            text = getattr(param, "help", None)
            if text and isinstance(param, click.Option):
                collector.add(inspect.cleandoc(text), f"cli: {path} {param.opts[-1]}", (2, path, 1))
        if isinstance(command, click.Group):
            for name in sorted(command.commands):
                walk(command.commands[name], f"{path} {name}")

    walk(main, "ascend-doctor")
    for name in sorted(SUBCOMMANDS):
        module_name, attr, short = SUBCOMMANDS[name]
        collector.add(short, f"cli: ascend-doctor --help ({name})", (2, "ascend-doctor", 2))
        walk(getattr(importlib.import_module(module_name), attr), f"ascend-doctor {name}")


def extract_all() -> Tuple[List[Message], List[str]]:
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    collector = _Collector()
    problems = extract_source(collector)
    problems.extend(extract_data(collector))
    extract_cli(collector)
    messages = sorted(collector.messages.values(), key=lambda m: (m.order, m.msgid))
    return messages, problems


# -- .po reading and writing -------------------------------------------------------------------


def _unquote(text: str) -> str:
    body = text.strip()
    if not (body.startswith('"') and body.endswith('"')):
        raise ValueError(f"not a quoted PO string: {text!r}")
    out = []
    chars = iter(body[1:-1])
    for ch in chars:
        if ch != "\\":
            out.append(ch)
            continue
        nxt = next(chars, "")
        out.append({"n": "\n", "t": "\t", '"': '"', "\\": "\\", "r": "\r"}.get(nxt, "\\" + nxt))
    return "".join(out)


def read_po(path: str) -> Tuple[Dict[str, str], List[Entry]]:
    """(header fields, entries) of a .po file."""
    if not os.path.exists(path):
        return dict(HEADER), []
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    entries: List[Entry] = []
    current: Dict[str, object] = {}
    key: Optional[str] = None

    def flush() -> None:
        nonlocal current, key
        if "msgid" in current:
            plural = current.get("msgid_plural")
            entries.append(Entry(
                msgid=str(current["msgid"]), msgstr=str(current.get("msgstr", "")),
                plural=plural if isinstance(plural, str) else None,
                plural_strs=[str(current[k]) for k in sorted(c for c in current if c.startswith("msgstr["))],
                fuzzy=bool(current.get("fuzzy")), references=list(current.get("refs", [])),  # type: ignore[call-overload]
                comments=list(current.get("notes", [])),  # type: ignore[call-overload]
                translator_comments=list(current.get("tcomments", [])),  # type: ignore[call-overload]
                obsolete=bool(current.get("obsolete"))))
        current, key = {}, None

    for raw in lines:
        line = raw.rstrip("\r")
        obsolete = line.startswith("#~")
        if obsolete:
            line = line[2:].lstrip()
            current["obsolete"] = True
        if not line.strip():
            flush()
            continue
        if line.startswith("#,"):
            if "fuzzy" in line:
                current["fuzzy"] = True
            continue
        if line.startswith("#:"):
            current.setdefault("refs", []).append(line[2:].strip())  # type: ignore[attr-defined]
            continue
        if line.startswith("#."):
            current.setdefault("notes", []).append(line[2:].strip())  # type: ignore[attr-defined]
            continue
        if line.startswith("#"):
            current.setdefault("tcomments", []).append(line[1:].strip())  # type: ignore[attr-defined]
            continue
        if line.startswith('"'):
            if key is None:
                raise ValueError(f"{path}: string without a keyword: {raw!r}")
            current[key] = str(current[key]) + _unquote(line)
            continue
        word, _, rest = line.partition(" ")
        if word == "msgid" and "msgid" in current and ("msgstr" in current or "msgstr[0]" in current):
            flush()  # entries not separated by a blank line
        key = word
        current[key] = _unquote(rest)
    flush()
    header: Dict[str, str] = {}
    body: List[Entry] = []
    for entry in entries:
        if entry.msgid == "" and not entry.obsolete:
            for row in entry.msgstr.split("\n"):
                name, sep, value = row.partition(":")
                if sep:
                    header[name.strip()] = value.strip()
        else:
            body.append(entry)
    return header, body


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t").replace("\r", "\\r") \
        .replace("\n", "\\n") + '"'


def _po_string(keyword: str, text: str, prefix: str = "") -> List[str]:
    if "\n" not in text[:-1]:
        return [f"{prefix}{keyword} {_quote(text)}"]
    pieces = text.split("\n")
    chunks = [piece + "\n" for piece in pieces[:-1]] + ([pieces[-1]] if pieces[-1] else [])
    return [f'{prefix}{keyword} ""'] + [prefix + _quote(chunk) for chunk in chunks]


def write_po(path: str, header: Dict[str, str], entries: Sequence[Entry]) -> str:
    out: List[str] = [
        "# Simplified Chinese messages of ascend-doctor. Source of the compiled .mo next to it.",
        "# Update with: python tools/extract_messages.py  (docs/i18n.md: terminology and rules)",
        'msgid ""',
        'msgstr ""',
    ]
    fields = dict(HEADER)
    fields.update({k: v for k, v in header.items() if k not in ("POT-Creation-Date", "PO-Revision-Date")})
    out.extend(_quote(f"{name}: {value}\n") for name, value in fields.items())
    for entry in entries:
        prefix = "#~ " if entry.obsolete else ""
        out.append("")
        out.extend(f"# {c}" if c else "#" for c in entry.translator_comments)
        if not entry.obsolete:
            out.extend(f"#. {c}" for c in entry.comments)
            out.extend(f"#: {r}" for r in entry.references)
        if entry.fuzzy:
            out.append("#, fuzzy")
        out.extend(_po_string("msgid", entry.msgid, prefix))
        if entry.plural is not None:
            out.extend(_po_string("msgid_plural", entry.plural, prefix))
            for index, text in enumerate(entry.plural_strs or [""]):
                out.extend(_po_string(f"msgstr[{index}]", text, prefix))
        else:
            out.extend(_po_string("msgstr", entry.msgstr, prefix))
    text = "\n".join(out) + "\n"
    if path:
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
    return text


def merge(messages: Sequence[Message], old_entries: Sequence[Entry]) -> List[Entry]:
    """The catalogue for ``messages``: translations kept, new texts untranslated (or fuzzy from
    a close old text), vanished texts obsolete at the end."""
    old = {e.msgid: e for e in old_entries}
    used = set()
    merged: List[Entry] = []
    candidates = [e for e in old_entries if e.translated or (e.obsolete and (e.msgstr or e.plural_strs))]
    for message in messages:
        previous = old.get(message.msgid)
        entry = Entry(message.msgid, plural=message.plural, references=list(message.references),
                      comments=list(message.comments))
        if previous is not None:
            used.add(previous.msgid)
            entry.msgstr, entry.plural_strs = previous.msgstr, list(previous.plural_strs)
            entry.fuzzy = previous.fuzzy
            entry.translator_comments = list(previous.translator_comments)
        else:
            close = _closest(message.msgid, candidates)
            if close is not None:
                entry.msgstr, entry.plural_strs, entry.fuzzy = close.msgstr, list(close.plural_strs), True
        if entry.plural is not None and not entry.plural_strs:
            entry.plural_strs = [""]
        merged.append(entry)
    for previous in old_entries:
        if previous.msgid not in used and (previous.msgstr or any(previous.plural_strs)):
            previous.obsolete = True
            previous.references, previous.comments = [], []
            merged.append(previous)
    return merged


def _closest(msgid: str, candidates: Sequence[Entry]) -> Optional[Entry]:
    best, best_ratio = None, 0.0
    for candidate in candidates:
        if abs(len(candidate.msgid) - len(msgid)) > max(len(msgid), 20) // 3:
            continue
        matcher = difflib.SequenceMatcher(None, msgid, candidate.msgid, autojunk=False)
        if matcher.real_quick_ratio() < 0.8 or matcher.quick_ratio() < 0.8:
            continue
        ratio = matcher.ratio()
        if ratio > best_ratio:
            best, best_ratio = candidate, ratio
    return best if best_ratio >= 0.8 else None


# -- .mo ---------------------------------------------------------------------------------------


def compile_mo(header: Dict[str, str], entries: Iterable[Entry]) -> bytes:
    """GNU .mo bytes of the translated, non-fuzzy, non-obsolete entries (sorted: reproducible)."""
    fields = dict(HEADER)
    fields.update({k: v for k, v in header.items() if k not in ("POT-Creation-Date", "PO-Revision-Date")})
    pairs: Dict[bytes, bytes] = {b"": "".join(f"{k}: {v}\n" for k, v in fields.items()).encode("utf-8")}
    for entry in entries:
        if entry.obsolete or not entry.translated:
            continue
        if entry.plural is not None:
            key = (entry.msgid + "\0" + entry.plural).encode("utf-8")
            pairs[key] = "\0".join(entry.plural_strs).encode("utf-8")
        else:
            pairs[entry.msgid.encode("utf-8")] = entry.msgstr.encode("utf-8")
    keys = sorted(pairs)
    ids = b""
    strs = b""
    offsets = []
    for key in keys:
        offsets.append((len(ids), len(key), len(strs), len(pairs[key])))
        ids += key + b"\0"
        strs += pairs[key] + b"\0"
    count = len(keys)
    key_start = 7 * 4 + 16 * count
    value_start = key_start + len(ids)
    key_table = []
    value_table = []
    for id_off, id_len, str_off, str_len in offsets:
        key_table += [id_len, key_start + id_off]
        value_table += [str_len, value_start + str_off]
    head = struct.pack("Iiiiiii", 0x950412DE, 0, count, 7 * 4, 7 * 4 + count * 8, 0, 0)
    return head + struct.pack(f"{len(key_table)}i", *key_table) + \
        struct.pack(f"{len(value_table)}i", *value_table) + ids + strs


# -- command line ------------------------------------------------------------------------------


def import_fragments(entries: Sequence[Entry], fragments: Sequence[str], overwrite: bool) -> int:
    """Fill ``entries`` from the translated entries of the .po files ``fragments``; returns how many
    entries changed."""
    by_id = {e.msgid: e for e in entries if not e.obsolete}
    changed = 0
    for fragment in fragments:
        _, incoming = read_po(fragment)
        for source in incoming:
            target = by_id.get(source.msgid)
            if target is None or source.obsolete or not source.translated:
                continue
            if target.translated and not overwrite:
                continue
            if (target.msgstr, target.plural_strs, target.fuzzy) == (source.msgstr, source.plural_strs, False):
                continue
            target.msgstr, target.plural_strs, target.fuzzy = source.msgstr, list(source.plural_strs), False
            changed += 1
    return changed


def write_todo(entries: Sequence[Entry], prefixes: Sequence[str], out: str) -> int:
    """Write the untranslated (or fuzzy) entries referenced from files under ``prefixes`` to ``out``
    as a .po fragment (fuzzy suggestions kept, flagged); returns how many."""
    norm = [p.replace("/", os.sep) for p in prefixes]
    todo = [e for e in entries if not e.obsolete and not e.translated
            and any(ref.startswith(p) for ref in e.references for p in norm)]
    with open(out, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(write_po("", dict(HEADER), todo))
    return len(todo)


def update(check_only: bool, fragments: Sequence[str] = (), overwrite: bool = False,
           todo: Sequence[str] = (), todo_out: str = "") -> int:
    messages, problems = extract_all()
    header, old_entries = read_po(PO_PATH)
    merged = merge(messages, old_entries)
    if todo:
        count = write_todo(merged, todo, todo_out)
        print(f"{count} messages to translate written to {todo_out}")
        return 0
    if fragments:
        print(f"{import_fragments(merged, fragments, overwrite)} translations imported")
    po_text = write_po("", header, merged)
    mo_bytes = compile_mo(header, merged)
    for problem in problems:
        print(f"extract_messages: {problem}", file=sys.stderr)
    live = [e for e in merged if not e.obsolete]
    missing = [e for e in live if not e.translated]
    if check_only:
        # Fails on what a user would see: a message without its translation (missing below) or a
        # .mo that is not the .po. Entries of texts no longer in the source only get a note: with
        # several people editing checks, an old translation does no harm until the next update.
        current_mo = Path(MO_PATH).read_bytes() if os.path.exists(MO_PATH) else b""
        stale = []
        if current_mo != compile_mo(header, old_entries):
            stale.append(os.path.relpath(MO_PATH, ROOT))
        for name in stale:
            print(f"extract_messages: {name} is out of date: run python tools/extract_messages.py", file=sys.stderr)
        extracted = {m.msgid for m in messages}
        unused = [e for e in old_entries if not e.obsolete and e.msgid not in extracted]
        if unused:
            print(f"extract_messages: note: {len(unused)} catalogue entries are no longer in the source "
                  "(the next update keeps them as obsolete)", file=sys.stderr)
        for entry in missing:
            print(f"extract_messages: untranslated: {entry.msgid[:100]!r} ({', '.join(entry.references[:2])})",
                  file=sys.stderr)
        return 1 if stale or missing or problems else 0
    os.makedirs(os.path.dirname(PO_PATH), exist_ok=True)
    with open(PO_PATH, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(po_text)
    with open(MO_PATH, "wb") as fh:
        fh.write(mo_bytes)
    print(f"{len(live)} messages, {len(live) - len(missing)} translated, {len(missing)} to translate "
          f"({sum(1 for e in live if e.fuzzy)} fuzzy); {sum(1 for e in merged if e.obsolete)} obsolete kept")
    return 1 if problems else 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when out of date or incomplete")
    parser.add_argument("--import", dest="fragments", action="append", default=[], metavar="PO",
                        help="take the translations of this .po fragment (repeatable), then update")
    parser.add_argument("--import-overwrite", action="store_true",
                        help="let a fragment replace a translation the catalogue already has")
    parser.add_argument("--todo", action="append", default=[], metavar="PATH_PREFIX",
                        help="write the untranslated messages of these source files to --out instead")
    parser.add_argument("--out", default="", metavar="PO", help="where --todo writes")
    args = parser.parse_args(argv)
    if args.todo and not args.out:
        parser.error("--todo needs --out")
    return update(args.check, args.fragments, args.import_overwrite, args.todo, args.out)


if __name__ == "__main__":
    sys.exit(main())
