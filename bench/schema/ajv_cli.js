// AJV side of bench/ajv_cli_compare.sh: what `toolgatectl schema check`
// does, as a Node process. Reads JSON Lines on stdin; for each line prints
// {"valid":true} or {"valid":false,"violations":[...]} (every error, as
// toolgatectl lists every violation); a line that is not JSON is invalid.
//
//   node ajv_cli.js AJV_NODE_MODULES SCHEMA.json < INSTANCES.jsonl
'use strict';
const fs = require('fs');
const path = require('path');
const [modules, schemaPath] = process.argv.slice(2);
const schema = JSON.parse(fs.readFileSync(schemaPath, 'utf8'));
const is2020 = String(schema.$schema || '').includes('2020-12');
const Ajv = is2020 ? require(path.join(modules, 'ajv/dist/2020')).default
                   : require(path.join(modules, 'ajv')).default;
// As in ajv_bench.js: formats annotate, strict off for SchemaStore schemas.
const options = {strict: false, validateFormats: false};
const first = new Ajv({...options, allErrors: false}).compile(schema);
const all = new Ajv({...options, allErrors: true}).compile(schema);
const out = [];
const flush = () => { fs.writeSync(1, out.join('')); out.length = 0; };
for (const line of fs.readFileSync(0, 'utf8').split('\n')) {
  if (line.trim() === '') continue;
  let value;
  try {
    value = JSON.parse(line);
  } catch (e) {
    out.push(JSON.stringify({valid: false, violations: [{keyword: 'invalid_json', message: e.message}]}) + '\n');
    continue;
  }
  if (first(value)) {
    out.push('{"valid":true}\n');
  } else {
    all(value);
    out.push(JSON.stringify({valid: false, violations: all.errors}) + '\n');
  }
  if (out.length >= 4096) flush();
}
flush();
