#!/bin/bash
# Runs the Python end-to-end test with Debian's python3 (which has grpcio),
# not whatever python3 comes first on PATH.
exec /usr/bin/python3 "${TEST_SRCDIR}/${TEST_WORKSPACE}/tests/python/e2e_test.py" "$@"
