"""Reading the real samples copied into tests/samples/ (each opens with a source header)."""

from __future__ import annotations

from pathlib import Path

SAMPLES = Path(__file__).resolve().parent / "samples"


def sample_body(rel: str) -> str:
    """The sample's content: what follows the `# ---` line, without the shell prompt lines
    (`# cat ...`) the authors pasted."""
    lines = (SAMPLES / rel).read_text(encoding="utf-8").splitlines()
    body = lines[lines.index("# ---") + 1:]
    return "".join(line + "\n" for line in body if not line.startswith("#"))
