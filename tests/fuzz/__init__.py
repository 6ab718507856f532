"""Property-based fuzzers for every parser of untrusted input (see harness.py)."""
