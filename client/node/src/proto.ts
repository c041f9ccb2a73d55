// Loads proto/toolgate/v1/toolgate.proto (copied from the repository at
// build time) with @grpc/proto-loader: no generated code to keep in step,
// and the .proto the package ships is the one the test compares with the
// repository's. Enums stay numbers here; types.ts names them and refuses
// any number the proto does not define.
import * as path from "path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";

export const PROTO_DIR = path.join(__dirname, "..", "..", "proto");
export const PROTO_FILE = "toolgate/v1/toolgate.proto";

const definition = protoLoader.loadSync(PROTO_FILE, {
  includeDirs: [PROTO_DIR],
  keepCase: true,
  longs: String,
  enums: Number,
  defaults: true,
  oneofs: true,
});

const loaded = grpc.loadPackageDefinition(definition) as any;

export const ToolGateClient: grpc.ServiceClientConstructor =
  loaded.toolgate.v1.ToolGate;

/** Enum number -> name, without the type's prefix (DECISION_ALLOW -> ALLOW). */
export function enumNames(type: string, prefix: string): Map<number, string> {
  const enumDef = definition[`toolgate.v1.${type}`] as any;
  const names = new Map<number, string>();
  for (const v of enumDef.type.value) {
    names.set(v.number, String(v.name).slice(prefix.length));
  }
  return names;
}

export function enumNumber(type: string, name: string): number | undefined {
  const enumDef = definition[`toolgate.v1.${type}`] as any;
  const found = enumDef.type.value.find((v: any) => v.name === name);
  return found ? found.number : undefined;
}
