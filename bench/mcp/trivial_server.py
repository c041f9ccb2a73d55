"""The trivial MCP server of the gateway benchmark: one tool, `echo`, and
ping. As fast as Python's line loop goes; the same server answers the
direct and the proxied runs, so its own cost is on both sides."""
import json
import sys

TOOLS = {"tools": [{
    "name": "echo", "description": "Echo a text.",
    "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}},
                    "required": ["text"], "additionalProperties": False},
    "annotations": {"readOnlyHint": True}}]}
out = sys.stdout
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m or "method" not in m:
        continue
    method = m["method"]
    if method == "initialize":
        r = {"protocolVersion": m["params"]["protocolVersion"],
             "capabilities": {"tools": {}}, "serverInfo": {"name": "trivial", "version": "1"}}
    elif method == "tools/list":
        r = TOOLS
    elif method == "tools/call":
        r = {"content": [{"type": "text", "text": m["params"]["arguments"]["text"]}]}
    else:
        r = {}
    out.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}) + "\n")
    out.flush()
