"""ASC-MDL-013: the weights match the manifest given with --verify (size and SHA-256 of every file)."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding
from ascend_doctor.i18n import _
from ascend_doctor.i18n_text import localized
from ascend_doctor.shellcmd import argv

from ._context import HostCheckContext

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


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    # Imported on use: every check module is imported to read CHECK, and most runs have no model.
    from ascend_doctor.model.units import human_bytes

    check = ctx.facts.model_manifest_check
    result = check.result
    if check.error or result is None:  # the fact holds an error or a result, never neither
        yield Finding.fail(_("manifest {manifest} cannot be used: {error}").format(
                               manifest=check.manifest_path,
                               error=localized(check.error) if check.error else _("no comparison was made")),
                           _("Write a manifest on a good node: `ascend-doctor model manifest DIR -o manifest.json` "
                             "(or `cd DIR && sha256sum * > manifest.sha256`)."))
        return
    here = check.model_dir.rstrip("/")
    fix_copy = _("Copy the file again from the node the manifest was made on, e.g. `{command}`, then verify "
                 "again.").format(command=argv("rsync", "-a", "--protect-args", f"GOOD_NODE:{here}/FILE", f"{here}/"))
    bad = [(m.path, _("{file}: {reason} differs (manifest {expected}..., here {actual}...)").format(
                file=m.path, reason=m.reason, expected=m.expected[:16], actual=m.actual[:16])
            if m.reason == "sha256" else _("{file}: size {actual} bytes, manifest says {expected}").format(
                file=m.path, actual=m.actual, expected=m.expected))
           for m in result.mismatched]
    bad += [(p, _("{file}: listed in the manifest but missing here").format(file=p)) for p in result.missing]
    bad += [(p, _("{file}: cannot be read: {error}").format(file=p, error=e)) for p, e in result.unreadable]
    for path, message in bad[:MAX_LISTED]:
        yield Finding.fail(message, fix_copy).scoped(path)
    if len(bad) > MAX_LISTED:
        yield Finding.fail(_("{count} more mismatched/missing/unreadable file(s)").format(count=len(bad) - MAX_LISTED),
                           fix_copy, count=len(bad) - MAX_LISTED)
    for path in result.extra[:MAX_LISTED]:
        yield Finding.fail(_("{file}: present here but not in the manifest").format(file=path),
                           _("Remove it if it does not belong to the model (`{command}`), or write a new "
                             "manifest on the reference node.").format(
                               command=argv("mv", "--", path, "/tmp/"))).scoped(path)
    if len(result.extra) > MAX_LISTED:
        yield Finding.fail(_("{count} more file(s) not in the manifest").format(count=len(result.extra) - MAX_LISTED),
                           _("Compare the directory listings of the two nodes."))
    if result.ok:
        yield Finding.passed(
            _("all {count} file(s) match {manifest} ({size} hashed in {seconds} s)").format(
                count=result.matched, manifest=check.manifest_path, size=human_bytes(result.bytes_hashed),
                seconds=f"{result.seconds:.1f}"),
            result=result.to_dict())
