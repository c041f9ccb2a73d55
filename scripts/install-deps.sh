#!/bin/bash
# Installs the Debian packages toolgate builds and tests with, if missing.
# Everything comes from Debian bookworm; nothing is downloaded elsewhere.
set -euo pipefail

PACKAGES=(
  bazel-bootstrap g++ libssl-dev
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libabsl-dev nlohmann-json3-dev libre2-dev libgumbo-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  python3-grpcio python3-protobuf jq
  python3-pytest python3-setuptools python3-pip  # client/python: pip install, pytest
  golang-go golang-google-grpc-dev golang-google-protobuf-dev  # examples/go
  golang-github-golang-protobuf-1-5-dev protoc-gen-go-grpc  # (1-5: grpc 1.33 codec on APIv2)
  libcmark-dev
  libmimalloc-dev  # the binaries' allocator (server/BUILD :allocator)
  prometheus-cpp-dev prometheus  # --metrics_listen; tests: promtool
  libcurl4-openssl-dev  # core/policy url checks (curl_url); tests: /metrics client
  clang-14 libclang-rt-14-dev lld-14  # tests/fuzz: libFuzzer, ASan, UBSan
  openssl yamllint python3-yaml  # tests: TLS certificates, deploy/k8s
  valgrind  # bench/load/server_instructions.sh (instructions per call)
  libhiredis-dev redis-server  # --state_store=redis:// (core/redis); tests: a real Redis
)

# client/node and examples/node need node >= 18 and npm (npm ci uses the npm
# registry). A node already on PATH (e.g. NodeSource's, which bundles npm)
# is kept: Debian's npm package would conflict with it.
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 \
  || PACKAGES+=(nodejs npm)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
