"""The deterministic answer on disk (--save FILE) and its comparison later (--compare FILE).

The file is JSON: the request as sent (prompt, max_tokens, temperature 0, seed; no top_p) and
the answer (content, reasoning, finish reason, token count), plus where and when it was taken.
Comparing replays the saved request, so that only the service changed between the two runs.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import stat
from typing import Any, Dict, Optional, Tuple

from ascend_doctor import __version__, boundedjson
from ascend_doctor.endpoint.records import Comparison, Reply
from ascend_doctor.i18n import _

FORMAT = "ascend-doctor-probe-answer"
FORMAT_VERSION = 1
MAX_FILE_BYTES = 4 * 1024 * 1024
EXCERPT = 60


class AnswerFileError(Exception):
    """The file cannot be read or written (one line, for the report)."""


def answer_record(endpoint: str, model: Optional[str], api_path: str, request: Dict[str, Any],
                  reply: Reply) -> Dict[str, Any]:
    text = answer_text(reply.content, reply.reasoning)
    return {
        "format": FORMAT, "version": FORMAT_VERSION, "tool_version": __version__,
        "saved_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "endpoint": endpoint, "model": model, "path": api_path, "request": request,
        "answer": {"content": reply.content, "reasoning": reply.reasoning, "finish_reason": reply.finish_reason,
                   "completion_tokens": reply.completion_tokens,
                   "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()},
    }


def answer_text(content: str, reasoning: str) -> str:
    """What is compared: the reasoning (if any) and the answer, in that order."""
    return f"{reasoning}\n</think>\n{content}" if reasoning else content


def save(path: str, record: Dict[str, Any]) -> None:
    """Write atomically; never over anything but a regular file, never through a link (we may run
    as root): safeio's writer, as every output of the tool."""
    from ascend_doctor import safeio

    text = json.dumps(record, ensure_ascii=False, indent=2) + "\n"
    try:
        with safeio.atomic_output(path, "--save") as fh:
            fh.write(text.encode("utf-8"))
    except safeio.OutputRefused as exc:
        raise AnswerFileError(str(exc)) from exc
    except OSError as exc:
        raise AnswerFileError(_("cannot write {path}: {error}").format(
            path=path, error=safeio.describe_os_error(exc))) from exc


def load(path: str) -> Dict[str, Any]:
    """Read a saved answer: a regular file, at most 4 MiB, of our format."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise AnswerFileError(_("cannot read {path}: {error}").format(path=path, error=exc.strerror or exc)) from exc
    if not stat.S_ISREG(st.st_mode):
        raise AnswerFileError(_("{path} is not a regular file").format(path=path))
    if st.st_size > MAX_FILE_BYTES:
        raise AnswerFileError(_("{path} is larger than {size} MiB: not a saved answer").format(
            path=path, size=MAX_FILE_BYTES >> 20))
    try:
        with open(path, encoding="utf-8") as fh:
            data = boundedjson.loads(fh.read(MAX_FILE_BYTES + 1), what=path, max_chars=MAX_FILE_BYTES)
    except (OSError, UnicodeDecodeError) as exc:
        raise AnswerFileError(_("cannot read {path}: {error}").format(path=path, error=exc)) from exc
    except ValueError as exc:
        raise AnswerFileError(_("{path} is not JSON ({error})").format(path=path, error=exc)) from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise AnswerFileError(_("{path} is not an answer saved by `ascend-doctor probe --save`").format(path=path))
    if not isinstance(data.get("request"), dict) or not isinstance(data.get("answer"), dict):
        raise AnswerFileError(_("{path} lacks the request or the answer").format(path=path))
    return data


def compare(path: str, saved: Dict[str, Any], reply: Reply) -> Comparison:
    answer = saved.get("answer") or {}
    before = answer_text(str(answer.get("content") or ""), str(answer.get("reasoning") or ""))
    now = answer_text(reply.content, reply.reasoning)
    index, before_excerpt, now_excerpt = first_difference(before, now)
    return Comparison(file=path, loaded=True, saved_model=_str(saved.get("model")),
                      saved_at=_str(saved.get("saved_at")), saved_endpoint=_str(saved.get("endpoint")),
                      same=index is None, first_difference=index, saved_excerpt=before_excerpt,
                      current_excerpt=now_excerpt, saved_chars=len(before), current_chars=len(now))


def first_difference(a: str, b: str) -> Tuple[Optional[int], str, str]:
    """Where two texts first differ (None when equal) and an excerpt of each from a little before."""
    if a == b:
        return None, "", ""
    limit = min(len(a), len(b))
    index = next((i for i in range(limit) if a[i] != b[i]), limit)
    start = max(0, index - EXCERPT // 3)
    return index, a[start:start + EXCERPT], b[start:start + EXCERPT]


def _str(value: Any) -> Optional[str]:
    return value if isinstance(value, str) else None
