"""Probing a serving endpoint (``ascend-doctor probe URL``).

An OpenAI-compatible client on ``requests`` (streaming over SSE, threads for concurrency,
strict time limits), the measurements it takes, and the records the ``ASC-SRV-*`` checks grade.
The pure parts (SSE line parsing, percentiles, n-gram repetition, reply shapes, URL redaction)
live in their own small modules so that they can be tested without a network.
"""
