// AJV side of bench/ajv_compare.sh: same corpus, same pass count, same
// measurements as //bench/schema:bytes_to_verdict (JSON.parse + validate,
// and validate-only on pre-parsed instances), in ns per instance.
//
//   node ajv_bench.js AJV_NODE_MODULES SCHEMA.json INSTANCES.jsonl PASSES
'use strict';
const fs = require('fs');
const path = require('path');
const [modules, schemaPath, instancesPath, passesArg] = process.argv.slice(2);
const passes = Number(passesArg || 10);
const schema = JSON.parse(fs.readFileSync(schemaPath, 'utf8'));
const is2020 = String(schema.$schema || '').includes('2020-12');
const Ajv = is2020 ? require(path.join(modules, 'ajv/dist/2020')).default
                   : require(path.join(modules, 'ajv')).default;
// Formats stay annotations, as in toolgate's default; strict off because
// SchemaStore schemas use keywords AJV's strict mode rejects.
const ajv = new Ajv({strict: false, validateFormats: false, allErrors: false});
const validate = ajv.compile(schema);
const lines = fs.readFileSync(instancesPath, 'utf8').split('\n').filter(l => l.length > 0);
const parsed = lines.map(l => JSON.parse(l));
const parseValidate = () => {
  let v = 0;
  for (const l of lines) v += validate(JSON.parse(l)) ? 1 : 0;
  return v;
};
const validateOnly = () => {
  let v = 0;
  for (const d of parsed) v += validate(d) ? 1 : 0;
  return v;
};
let valid = parseValidate();
validateOnly();
const t0 = process.hrtime.bigint();
for (let p = 0; p < passes; ++p) valid = parseValidate();
const t1 = process.hrtime.bigint();
for (let p = 0; p < passes; ++p) valid = validateOnly();
const t2 = process.hrtime.bigint();
const n = lines.length * passes;
console.log(JSON.stringify({
  instances: lines.length, valid, passes,
  parse_validate_ns: Number(t1 - t0) / n, validate_ns: Number(t2 - t1) / n,
}));
