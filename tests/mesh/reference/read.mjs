// The reference reading of mesh requests: what an MCP server built on the
// MCP TypeScript SDK reads from the bytes toolgate's ext_authz sees.
//
//   node read.mjs cases.json > readings.json
//
// A body case ({"name", "body_b64", "content_type"?}) is decoded as
// express.json() (body-parser, the SDK's createMcpExpressApp) decodes it:
// the Content-Type's charset (utf-8 by default, any "utf-*" accepted,
// through iconv-lite), then JSON.parse, then each message through the SDK's
// JSONRPCMessageSchema (a batch of more than 100 is refused, as the SDK's
// transport does). A path case ({"name", "path"}) is read as an HTTP
// server's router reads a REST route /tools/:name: WHATWG URL parsing
// (pathname, search, hash), the segment after /tools/ through
// decodeURIComponent.
import {readFileSync} from 'node:fs';
import {createRequire} from 'node:module';
import {fileURLToPath} from 'node:url';
import {JSONRPCMessageSchema} from '@modelcontextprotocol/sdk/types.js';

// The SDK's own copies of body-parser's decoders.
const sdkRoot = fileURLToPath(new URL('./node_modules/@modelcontextprotocol/sdk/', import.meta.url));
const sdkRequire = createRequire(sdkRoot + 'package.json');
const iconv = sdkRequire('iconv-lite');
const contentType = sdkRequire('content-type');
const sdkVersion = JSON.parse(readFileSync(sdkRoot + 'package.json', 'utf8')).version;

function charsetOf(header) {
  if (!header) return 'utf-8';
  try {
    return (contentType.parse(header).parameters.charset || 'utf-8').toLowerCase();
  } catch {
    return null;  // body-parser answers 400
  }
}

function kindOf(m) {
  if ('method' in m) return 'id' in m ? 'request' : 'notification';
  return 'response';
}

function readBody(c) {
  const bytes = Buffer.from(c.body_b64, 'base64');
  const charset = charsetOf(c.content_type);
  if (charset === null || !charset.startsWith('utf-') || !iconv.encodingExists(charset)) {
    return {accepted: false, why: 'charset'};
  }
  let raw;
  try {
    raw = JSON.parse(iconv.decode(bytes, charset));
  } catch {
    return {accepted: false, why: 'json'};
  }
  const batch = Array.isArray(raw);
  const list = batch ? raw : [raw];
  if (batch && list.length > 100) return {accepted: false, why: 'batch_size'};
  const messages = [];
  for (const m of list) {
    const r = JSONRPCMessageSchema.safeParse(m);
    if (!r.success) return {accepted: false, why: 'schema'};
    const out = {kind: kindOf(r.data)};
    if ('id' in r.data) out.id = r.data.id;
    if ('method' in r.data) out.method = r.data.method;
    if ('params' in r.data) out.params = r.data.params;
    messages.push(out);
  }
  // JSON.stringify is how the values read reach the tool: numbers as the
  // doubles JSON.parse made of them.
  return {accepted: true, batch, messages: JSON.parse(JSON.stringify(messages))};
}

function readPath(c) {
  const url = new URL(c.path, 'http://tools.internal');
  const out = {pathname: url.pathname, search: url.search, hash: url.hash};
  const m = /^\/tools\/([^/]+)$/.exec(url.pathname);
  if (!m) return {...out, name: null};
  try {
    return {...out, name: decodeURIComponent(m[1])};
  } catch {
    return {...out, name: null};
  }
}

const cases = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const readings = cases.map(c => ({
  name: c.name,
  reading: 'path' in c ? readPath(c) : readBody(c),
}));
process.stdout.write(JSON.stringify({sdk: sdkVersion, node: process.version, readings}, null, 1) + '\n');
