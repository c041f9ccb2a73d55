#!/bin/bash
# promtool over toolgate's Prometheus rules: `check` (syntax and PromQL) or
# `test` (the unit tests of toolgate-rules_test.yaml).
set -euo pipefail
PROMTOOL="${PROMTOOL:-/usr/bin/promtool}"
if [ ! -x "$PROMTOOL" ]; then
  echo "SKIPPED: $PROMTOOL not found (Debian package prometheus;" \
       "scripts/install-deps.sh installs it)" >&2
  exit 0
fi
dir="$(dirname "$0")"
case "${1:-}" in
  check) exec "$PROMTOOL" check rules "$dir/toolgate-rules.yaml" ;;
  # promtool resolves rule_files relative to the test file's directory.
  test) exec "$PROMTOOL" test rules "$dir/toolgate-rules_test.yaml" ;;
  *) echo "usage: $0 check|test" >&2; exit 2 ;;
esac
