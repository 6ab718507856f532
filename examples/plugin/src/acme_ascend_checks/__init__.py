"""The ACME site's checks for ascend-doctor (an example plugin)."""
