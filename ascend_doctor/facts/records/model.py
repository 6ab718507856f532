"""The records of the ``model`` facts, apart from their providers (ascend_doctor/facts/model.py):
the registry of facts (ascend_doctor/facts/__init__.py) names their types without importing a provider,
and no record imports the registry."""

from __future__ import annotations

from typing import Dict, Optional

from msgspec import Struct

from ascend_doctor.model.manifest import VerifyResult


class ManifestCheck(Struct, frozen=True):
    """The outcome of ``--verify``: the comparison, or why the manifest could not be used."""

    manifest_path: str
    model_dir: str
    result: Optional[VerifyResult] = None
    error: Optional[str] = None
    # What the manifest says the weights are (manifest_digest): equal on nodes verified against the
    # same weights, whatever file format or name the manifest had (`ascend-doctor fleet` compares it).
    digest: Optional[str] = None

    def to_dict(self) -> Dict[str, object]:
        return {
            "manifest": self.manifest_path,
            "model_dir": self.model_dir,
            "error": self.error,
            "result": self.result.to_dict() if self.result else None,
            "digest": self.digest,
        }
