// The proto the package ships is the repository's, byte for byte.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { test } from "node:test";
import { REPO } from "./server.mjs";

const require = createRequire(import.meta.url);

test("shipped proto matches proto/toolgate/v1/toolgate.proto", () => {
  const pkg = path.dirname(require.resolve("@toolgate/client/package.json"));
  const rel = "toolgate/v1/toolgate.proto";
  const want = readFileSync(path.join(process.env.TOOLGATE_PROTO_DIR ??
    path.join(REPO, "proto"), rel));
  assert.ok(readFileSync(path.join(pkg, "proto", rel)).equals(want),
    "run npm run build: the shipped proto is stale");
});
