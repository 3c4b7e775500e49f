#!/bin/sh
# The README's picture: docs/plot-winner.svg, `hap plot` of patterns/winner.json.
#   sh scripts/plot-docs.sh HAP            regenerate it (make plot-docs)
#   sh scripts/plot-docs.sh HAP --check    fail if it is stale (make test)
# The plot is deterministic (the same pattern gives the same text), so a stale picture is one
# that no longer matches what hap draws.
set -eu
hap=$1
committed=docs/plot-winner.svg
if [ "${2:-}" = "--check" ]; then
  fresh=$(mktemp "${TMPDIR:-/tmp}/hap-plot-docs.XXXXXX")
  trap 'rm -f "$fresh"' EXIT
  "$hap" plot patterns/winner.json --theme auto --quiet -o - > "$fresh"
  if ! cmp -s "$fresh" "$committed"; then
    echo "error: $committed is stale (hap plot draws it differently now); run 'make plot-docs' and commit it" >&2
    exit 1
  fi
  echo "$committed is up to date"
else
  "$hap" plot patterns/winner.json --theme auto -o "$committed"
fi
