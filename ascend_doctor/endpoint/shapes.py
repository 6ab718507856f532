"""What OpenAI-compatible servers send back, reduced to the parts the probe measures (pure).

Reasoning models (DeepSeek-R1 and its distills) put their chain of thought in a field next to
``content``. Its name depends on the server:

* ``reasoning_content``: the DeepSeek API (api-docs.deepseek.com "推理模型 (deepseek-reasoner)")
  and vLLM up to 0.10 with ``--reasoning-parser deepseek_r1`` (docs.vllm.ai "Reasoning Outputs");
* ``reasoning``: vLLM 0.11 and later ("reasoning used to be called reasoning_content",
  docs.vllm.ai/en/v0.11.2/features/reasoning_outputs);
* neither: a server without a reasoning parser returns the raw text, thinking included, between
  ``<think>`` and ``</think>`` in ``content``; R1's chat template already opens ``<think>`` in the
  prompt, so the reply often holds only the closing tag.

The same fields appear in ``choices[0].message`` (non-streaming) and ``choices[0].delta``
(streaming); the legacy ``/v1/completions`` API has ``choices[0].text``.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Tuple

from msgspec import Struct

from ascend_doctor.i18n import _

REASONING_FIELDS = ("reasoning_content", "reasoning")
THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"


class Usage(Struct, frozen=True):
    prompt_tokens: Optional[int] = None
    completion_tokens: Optional[int] = None


class Parts(Struct, frozen=True):
    """One reply or one streamed chunk, reduced."""

    content: str = ""
    reasoning: str = ""
    reasoning_field: Optional[str] = None  # which field carried the reasoning
    finish_reason: Optional[str] = None
    usage: Optional[Usage] = None
    error: Optional[str] = None  # an in-band error object (vLLM sends one inside the stream)
    model: Optional[str] = None
    has_choice: bool = False


def parse_usage(value: Any) -> Optional[Usage]:
    if not isinstance(value, Mapping):
        return None
    return Usage(_int(value.get("prompt_tokens")), _int(value.get("completion_tokens")))


def parse_reply(obj: Any) -> Parts:
    """A non-streaming ``chat.completion`` or ``text_completion`` object."""
    return _parse(obj, "message")


def parse_chunk(obj: Any) -> Parts:
    """One streamed ``chat.completion.chunk`` (or completions chunk)."""
    return _parse(obj, "delta")


def _parse(obj: Any, key: str) -> Parts:
    if not isinstance(obj, Mapping):
        return Parts(error=_("the server sent a JSON value that is not an object"))
    error = _error_text(obj.get("error"))
    usage = parse_usage(obj.get("usage"))
    model = obj.get("model") if isinstance(obj.get("model"), str) else None
    choices = obj.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        return Parts(usage=usage, error=error, model=model)
    choice = choices[0]
    finish = choice.get("finish_reason")
    finish_reason = finish if isinstance(finish, str) and finish else None
    body = choice.get(key)
    content = reasoning = ""
    field = None
    if isinstance(body, Mapping):
        content = _text(body.get("content"))
        for name in REASONING_FIELDS:
            text = _text(body.get(name))
            if text:
                reasoning, field = text, name
                break
    elif isinstance(choice.get("text"), str):  # /v1/completions
        content = choice["text"]
    return Parts(content, reasoning, field, finish_reason, usage, error, model, True)


def split_think(content: str) -> Tuple[str, str, bool]:
    """(reasoning, answer, found) from a reply whose thinking is inline between think tags.

    ``<think>abc</think>xyz`` and ``abc</think>xyz`` (the template opened the tag) give
    ("abc", "xyz"); ``<think>abc`` with no closing tag is all reasoning (cut while thinking).
    """
    stripped = content.lstrip()
    if THINK_CLOSE in content:
        before, _close, after = content.partition(THINK_CLOSE)
        before = before.strip()
        if before.startswith(THINK_OPEN):
            before = before[len(THINK_OPEN):]
        return before.strip(), after.strip(), True
    if stripped.startswith(THINK_OPEN):
        return stripped[len(THINK_OPEN):].strip(), "", True
    return "", content, False


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _int(value: Any) -> Optional[int]:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _error_text(value: Any) -> Optional[str]:
    if value is None:
        return None
    if isinstance(value, Mapping):
        message = value.get("message")
        code = value.get("code") or value.get("type")
        text = str(message) if message is not None else str(dict(value))
        return f"{text} ({code})" if code else text
    return str(value)


def error_message(obj: Any) -> str:
    """The message of an error body (OpenAI ``{"error": {...}}``, FastAPI ``{"detail": ...}``,
    MindIE / plain ``{"message": ...}``), for quoting in a finding."""
    if isinstance(obj, Mapping):
        for key in ("error", "detail", "message", "msg"):
            if obj.get(key):
                text = _error_text(obj[key]) if key == "error" else str(obj[key])
                return text or ""
        return str(dict(obj))[:300]
    return str(obj)[:300]
