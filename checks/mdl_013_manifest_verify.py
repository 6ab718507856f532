"""ASC-MDL-013: the weights match the manifest given with --verify (size and SHA-256 of every file)."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding

CHECK = CheckSpec(
    id="ASC-MDL-013",
    title="Weights match the manifest",
    what="Hashes every file (in parallel) and compares size and SHA-256 with the manifest given by --verify "
    "(an ascend-doctor manifest or a sha256sum file); reports each mismatched, missing or extra file.",
    why="Nodes of a cluster must hold identical weights; one corrupt or stale shard on one node gives wrong "
    "answers or a hang in collective communication, not a clear error.",
    fix="Copy the reported files again from the node the manifest was made on, then re-run "
    "`ascend-doctor check --model DIR --verify manifest.json`.",
    requires=("manifest",),
    tags=("model", "integrity", "cluster"),
)

MAX_LISTED = 20


def run(ctx: CheckContext) -> Iterator[Finding]:
    # Imported on use: every check module is imported to read CHECK, and most runs have no model.
    from ascend_doctor.model.units import human_bytes

    check = ctx.facts.get("model_manifest_check")
    if check.error:
        yield Finding.fail(f"manifest {check.manifest_path} cannot be used: {check.error}",
                           "Write a manifest on a good node: `ascend-doctor model manifest DIR -o manifest.json` "
                           "(or `cd DIR && sha256sum * > manifest.sha256`).")
        return
    result = check.result
    here = check.model_dir.rstrip("/")
    fix_copy = (f"Copy the file again from the node the manifest was made on, e.g. "
                f"`rsync -a GOOD_NODE:{here}/FILE {here}/`, then verify again.")
    bad = [(m.path, f"{m.path}: {m.reason} differs (manifest {m.expected[:16]}..., here {m.actual[:16]}...)"
            if m.reason == "sha256" else f"{m.path}: size {m.actual} bytes, manifest says {m.expected}")
           for m in result.mismatched]
    bad += [(p, f"{p}: listed in the manifest but missing here") for p in result.missing]
    bad += [(p, f"{p}: cannot be read: {e}") for p, e in result.unreadable]
    for path, message in bad[:MAX_LISTED]:
        yield Finding.fail(message, fix_copy).scoped(path)
    if len(bad) > MAX_LISTED:
        yield Finding.fail(f"{len(bad) - MAX_LISTED} more mismatched/missing/unreadable file(s)", fix_copy,
                           count=len(bad) - MAX_LISTED)
    for path in result.extra[:MAX_LISTED]:
        yield Finding.fail(f"{path}: present here but not in the manifest",
                           f"Remove it if it does not belong to the model (`mv {path} /tmp/`), or write a new "
                           "manifest on the reference node.").scoped(path)
    if len(result.extra) > MAX_LISTED:
        yield Finding.fail(f"{len(result.extra) - MAX_LISTED} more file(s) not in the manifest",
                           "Compare the directory listings of the two nodes.")
    if result.ok:
        yield Finding.passed(
            f"all {result.matched} file(s) match {check.manifest_path} ({human_bytes(result.bytes_hashed)} hashed "
            f"in {result.seconds:.1f} s)", result=result.to_dict())
