#!/bin/bash
# Runs a Python test of this package with Debian's python3, not whatever
# python3 comes first on PATH.
exec /usr/bin/python3 "${TEST_SRCDIR}/${TEST_WORKSPACE}/tests/formats/$1" "${@:2}"
