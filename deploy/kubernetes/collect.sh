#!/bin/sh
# Gather the reports of deploy/kubernetes into a folder and merge them (docs/fleet.md):
#
#   deploy/kubernetes/collect.sh [reports]          # from the DaemonSet's pods (the report on each node)
#   deploy/kubernetes/collect.sh --job [reports]    # from the indexed Job's pod logs
#   ascend-doctor fleet reports/
set -eu
NAMESPACE="${ASCEND_DOCTOR_NAMESPACE:-ascend-doctor}"
MODE=daemonset
if [ "${1:-}" = "--job" ]; then MODE=job; shift; fi
OUT="${1:-reports}"
mkdir -p "$OUT"
if [ "$MODE" = job ]; then
    LABEL=app.kubernetes.io/name=ascend-doctor-once
else
    LABEL=app.kubernetes.io/name=ascend-doctor
fi
kubectl -n "$NAMESPACE" get pods -l "$LABEL" \
    -o jsonpath='{range .items[*]}{.metadata.name}{" "}{.spec.nodeName}{"\n"}{end}' |
while read -r pod node; do
    [ -n "$pod" ] || continue
    if [ "$MODE" = job ]; then
        kubectl -n "$NAMESPACE" logs "$pod" >"$OUT/$node.json" || echo "no report from $pod ($node)" >&2
    else
        kubectl -n "$NAMESPACE" exec "$pod" -- cat "/var/lib/ascend-doctor/reports/$node.json" >"$OUT/$node.json" \
            || echo "no report yet from $pod ($node)" >&2
    fi
done
echo "reports in $OUT/; merge them with: ascend-doctor fleet $OUT/" >&2
