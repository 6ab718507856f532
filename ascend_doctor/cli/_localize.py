"""``--lang`` for every command, and ``--help`` in the chosen language.

Design (docs/i18n.md): the language is decided once per invocation, before click parses
anything, from ``--lang en|zh`` wherever it stands on the command line (``ascend-doctor --lang zh
check`` and ``ascend-doctor check --lang zh`` alike), else from the locale. The option itself is
declared on the group and added to every subcommand when it is loaded, so that click accepts and
documents it; its callback only repeats the choice.

Help texts are written in English in the command modules (``help=``, docstrings, ``epilog=``)
and are the catalogue's msgids. They are swapped for their translation on the command objects
when a command is about to be used in Chinese, and swapped back for English (the originals are
kept on the object), so that the modules stay plain click and nothing is done in English.
Click's own framing words (Usage, Options, [default: ...]) and the line wrapping of Chinese
text are handled by ``_helpformat.LocalizedHelpFormatter``, imported only then.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Dict, List, Optional, Sequence, TypeVar

import click

from ascend_doctor import i18n
from ascend_doctor.i18n import N_

F = TypeVar("F", bound=Callable[..., Any])

LANG_HELP = N_("Language of messages and help: en or zh (default: from LC_ALL, LC_MESSAGES or LANG).")
_ORIGINALS = "_ascend_doctor_english"


def language_from_args(args: Sequence[str]) -> Optional[str]:
    """The last valid ``--lang X`` / ``--lang=X`` before ``--`` (None: not given, or not a
    language: click then reports the bad value itself)."""
    found: Optional[str] = None
    for index, arg in enumerate(args):
        if arg == "--":
            break
        if arg == "--lang" and index + 1 < len(args):
            found = args[index + 1]
        elif arg.startswith("--lang="):
            found = arg.split("=", 1)[1]
    return found if found in i18n.LANGUAGES else None


def start_language(args: Sequence[str]) -> str:
    """Decide the language of this invocation (``--lang``, else the locale) and return it."""
    return i18n.set_language(language_from_args(args))


def _set_from_option(_ctx: click.Context, _param: click.Parameter, value: Optional[str]) -> None:
    if value:
        i18n.set_language(value)


def make_lang_option() -> click.Option:
    return click.Option(["--lang"], type=click.Choice(i18n.LANGUAGES), default=None, expose_value=False,
                        is_eager=True, callback=_set_from_option, metavar="en|zh", help=LANG_HELP)


def lang_option(func: F) -> F:
    """Decorator: ``--lang en|zh`` on a command (the top-level group uses it)."""
    params: List[click.Parameter] = func.__dict__.setdefault("__click_params__", [])
    params.append(make_lang_option())
    return func


def add_lang_option(command: click.Command) -> None:
    """Give ``command`` (and every subcommand of a group) a ``--lang`` option, once."""
    if not any(param.name == "lang" for param in command.params):
        command.params.append(make_lang_option())
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            add_lang_option(sub)


def localize_command(command: click.Command) -> None:
    """Show ``command``'s help texts (and its subcommands') in the current language.

    Nothing happens in English for a command that was never shown in another language."""
    lang = i18n.get_language()
    saved: Optional[Dict[str, Any]] = getattr(command, _ORIGINALS, None)
    if lang == "en" and saved is None:
        return
    if saved is None:
        saved = {"help": command.help, "epilog": command.epilog, "short_help": command.short_help,
                 "params": [(param, getattr(param, "help", None)) for param in command.params]}
        setattr(command, _ORIGINALS, saved)
    command.help = translate_help(saved["help"])
    command.epilog = translate_help(saved["epilog"])
    if saved["short_help"]:
        command.short_help = translate_help(saved["short_help"])
    elif lang != "en" and command.help:
        # click shortens the first sentence at a ". "; a Chinese one ends with "。".
        command.short_help = first_sentence(command.help)
    else:
        command.short_help = None
    for param, text in saved["params"]:
        if text is not None and isinstance(param, click.Option):
            param.help = translate_help(text)
    if lang != "en":
        from ascend_doctor.cli._helpformat import localize_click_messages

        localize_click_messages()
    if command.context_class is click.Context:  # only ever in another language: English stays click's own
        from ascend_doctor.cli._helpformat import LocalizedContext

        command.context_class = LocalizedContext
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            localize_command(sub)


def help_key(text: str) -> str:
    """The catalogue key of a help text: as click shows it (docstring indentation removed)."""
    return inspect.cleandoc(text)


def translate_help(text: Optional[str]) -> Optional[str]:
    """A help text in the current language; the original object when there is no translation
    (so English output is exactly what click would print)."""
    if not text or i18n.get_language() == "en":
        return text
    key = help_key(text)
    translated = i18n.gettext(key)
    return text if translated == key else translated


def first_sentence(text: str) -> str:
    paragraph = text.strip().split("\n\n", 1)[0].replace("\n", "")
    end = paragraph.find("。")
    return paragraph[: end + 1] if end >= 0 else paragraph
