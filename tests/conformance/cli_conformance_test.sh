#!/bin/bash
exec /usr/bin/python3 "${TEST_SRCDIR}/${TEST_WORKSPACE}/tests/conformance/cli_conformance_test.py"
