"""Redaction before sharing: secrets (``secrets``) and identities (``identity``); see docs/redaction.md."""
