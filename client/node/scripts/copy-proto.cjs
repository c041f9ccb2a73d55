// Copies the one proto (../../proto) into this package at build time, so
// the published package loads exactly the contract it was built from.
// test/proto.test.mjs fails if the copy differs from the repository's.
const fs = require("fs");
const path = require("path");
const from = process.env.TOOLGATE_PROTO_DIR ||
  path.join(__dirname, "..", "..", "..", "proto");
const rel = path.join("toolgate", "v1", "toolgate.proto");
const to = path.join(__dirname, "..", "proto");
fs.mkdirSync(path.join(to, "toolgate", "v1"), { recursive: true });
fs.copyFileSync(path.join(from, rel), path.join(to, rel));
