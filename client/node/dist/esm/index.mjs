// ESM entry: re-exports the CommonJS build, so `import` and `require` share
// one DenyError class (instanceof works across both).
import cjs from "../cjs/index.js";

export const {
  Gate, Run, DenyError, gated, modelOutput, reshape, toPlain, parseExact,
} = cjs;
export default cjs;
