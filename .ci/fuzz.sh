#!/usr/bin/env bash
# Runs every fuzz target of the module for a bounded time each. Crashers that
# the fuzzer finds are written under the package's testdata/fuzz and must be
# committed as regression inputs once fixed.
set -euo pipefail
fuzztime=${1:-20s}
cd "$(dirname "$0")/.."
status=0
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  targets=$(grep -hoE '^func (Fuzz[A-Za-z0-9_]+)\(f \*testing\.F\)' "$dir"/*_test.go 2>/dev/null | sed -E 's/^func (Fuzz[A-Za-z0-9_]+).*/\1/' || true)
  for t in $targets; do
    echo "fuzz: $pkg $t ($fuzztime)"
    if ! go test -run '^$' -fuzz "^${t}\$" -fuzztime "$fuzztime" "$pkg"; then
      echo "fuzz: $pkg $t FAILED" >&2
      status=1
    fi
  done
done
exit $status
