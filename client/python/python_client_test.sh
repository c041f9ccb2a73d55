#!/bin/bash
# Installs client/python the documented way (pip, offline, no build
# isolation: the stubs are generated from proto/ during the build) into a
# scratch directory, then runs its pytest suite and examples/python's agent
# loop test against the real server. Uses Debian's /usr/bin/python3.
set -euo pipefail
R="${TEST_SRCDIR}/${TEST_WORKSPACE}"
WORK="$(mktemp -d "${TEST_TMPDIR:-/tmp}/pyclient.XXXXXX")"
# A real copy: the build writes next to setup.py, and runfiles are links.
mkdir -p "$WORK/src/client" "$WORK/src/proto/toolgate/v1"
cp -rL "$R/client/python" "$WORK/src/client/python"
cp -L "$R/proto/toolgate/v1/toolgate.proto" "$WORK/src/proto/toolgate/v1/"
/usr/bin/python3 -m pip install --quiet --no-build-isolation --no-deps \
  --no-index --no-cache-dir --disable-pip-version-check \
  --target "$WORK/site" "$WORK/src/client/python" 2>&1 | grep -v "as the 'root' user" || true
[ -f "$WORK/site/toolgate/v1/toolgate_pb2_grpc.py" ] || {
  echo "pip install did not generate the stubs"; exit 1; }
export PYTHONPATH="$WORK/site"
export TOOLGATE_SERVER="$R/server/toolgate"
export TOOLGATE_CTL="$R/client/toolgatectl"
export TOOLGATE_PROTO_DIR="$R/proto"
# tests/test_trace.py's OTLP receiver compiles OpenTelemetry's protos from
# shared/otel-proto, beside the checkout (scripts/test.sh passes it in).
if [ -z "${TOOLGATE_OTEL_PROTO_DIR:-}" ]; then
  d="$(dirname "$(readlink -f "$R/client/python/python_client_test.sh")")"
  while [ "$d" != / ] && [ ! -d "$d/shared/otel-proto/opentelemetry" ]; do
    d="$(dirname "$d")"
  done
  [ "$d" != / ] && export TOOLGATE_OTEL_PROTO_DIR="$d/shared/otel-proto"
fi
cd "$WORK"
exec /usr/bin/python3 -m pytest -q -p no:cacheprovider \
  --junitxml="${XML_OUTPUT_FILE:-$WORK/junit.xml}" \
  "$WORK/src/client/python/tests" "$R/examples/python"
