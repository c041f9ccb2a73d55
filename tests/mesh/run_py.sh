#!/bin/bash
# Runs a Python test of this folder with Debian's python3 (grpcio,
# protobuf, yaml), not whatever python3 comes first on PATH.
cd "${TEST_SRCDIR}/${TEST_WORKSPACE}/tests/mesh" || exit 1
exec /usr/bin/python3 "$@"
