#!/bin/bash
# The MCP gateway tests (toolgatectl mcp-proxy) with the MCP TypeScript
# SDK's client against server-everything, server-filesystem and a hostile
# server (versions pinned in package-lock.json; `npm ci` first). Needs
# bazel-bin/client/toolgatectl and bazel-bin/server/toolgate (or
# TOOLGATE_CTL / TOOLGATE_SERVER). Transcripts of every session (the bytes
# the host and the server saw) land in transcripts/. Ends with
# "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")"
rm -rf transcripts
out=$(node --test --test-concurrency=2 --test-reporter=tap "${@:-.}" 2>&1)
echo "$out" | grep -vE '^ {4,}(at |\.\.\.)' | tail -200
pass=$(grep -E '^# pass [0-9]+' <<<"$out" | awk '{print $3}')
fail=$(grep -E '^# fail [0-9]+' <<<"$out" | awk '{print $3}')
echo "${pass:-0} passed, ${fail:-1} failed"
[ "${fail:-1}" -eq 0 ] && [ "${pass:-0}" -gt 0 ]
