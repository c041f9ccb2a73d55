// The package loads through both `import` and `require`, sharing classes.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";
import * as esm from "@toolgate/client";

const require = createRequire(import.meta.url);

test("import and require give the same API", () => {
  const cjs = require("@toolgate/client");
  for (const name of ["Gate", "Run", "DenyError", "gated"]) {
    assert.equal(typeof esm[name], "function", name);
    assert.equal(esm[name], cjs[name], name);
  }
  assert.ok(new esm.DenyError("X", "y") instanceof cjs.DenyError);
});
