#!/bin/bash
# Builds examples/go offline with Debian's Go packages only:
#   golang-go, golang-google-grpc-dev, golang-google-protobuf-dev,
#   golang-github-golang-protobuf-1-5-dev, protoc-gen-go-grpc,
#   protobuf-compiler.
# golang-github-golang-protobuf-1-5-dev, not golang-goprotobuf-dev (1.3):
# grpc 1.33's codec goes through github.com/golang/protobuf, and 1.3 cannot
# marshal APIv2 messages (it panics "protobuf tag not enough fields").
# GOPATH mode (GO111MODULE=off) over /usr/share/gocode: Debian ships Go
# libraries as GOPATH sources, with no module proxy needed. protoc-gen-go
# (APIv2) is built from golang-google-protobuf-dev's source because Debian's
# /usr/bin/protoc-gen-go may be the v1.3 one (protoc-gen-go-1-3).
#   examples/go/build.sh OUT_DIR   -> OUT_DIR/toolgate-go-example
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="$(mkdir -p "${1:?give an output directory}" && cd "$1" && pwd)"
work="$out/gopath"
pkg="$work/src/github.com/toolgate/toolgate/gen/go/toolgate/v1"
mkdir -p "$pkg" "$work/src/toolgate-go-example" "$work/bin"
export GO111MODULE=off GOPATH="$work:/usr/share/gocode" GOFLAGS=
export GOCACHE="${GOCACHE:-$out/gocache}" GOPROXY=off
go build -o "$work/bin/protoc-gen-go" google.golang.org/protobuf/cmd/protoc-gen-go
/usr/bin/protoc -I"$repo/proto" \
  --plugin=protoc-gen-go="$work/bin/protoc-gen-go" \
  --plugin=protoc-gen-go-grpc=/usr/bin/protoc-gen-go-grpc \
  --go_out="$work/src" --go-grpc_out="$work/src" \
  "$repo/proto/toolgate/v1/toolgate.proto"
cp "$here/main.go" "$work/src/toolgate-go-example/"
go build -o "$out/toolgate-go-example" toolgate-go-example
