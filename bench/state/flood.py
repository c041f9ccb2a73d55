"""Opens RUNS runs on a toolgate with --state_store=redis://... and never
closes them; then watches Redis until its memory is back at the baseline
taken before the flood (the runs, their leases and the lease zsets expire
with --run_idle_ttl_seconds). Prints one JSON line; exits 1 if memory is
not back within the deadline. Driven by bench/state/flood.sh."""
import json
import subprocess
import sys
import time
from concurrent import futures

import grpc

sys.path.insert(0, sys.argv[1])  # bazel-bin/proto
from toolgate.v1 import toolgate_pb2 as pb  # noqa: E402

ADDR, REDIS_PORT, RUNS, TTL = sys.argv[2], sys.argv[3], int(sys.argv[4]), \
    int(sys.argv[5])


def redis(*args):
    return subprocess.run(["redis-cli", "-p", REDIS_PORT] + list(args),
                          capture_output=True, text=True, check=True).stdout


def used_memory():
    for line in redis("INFO", "memory").splitlines():
        if line.startswith("used_memory:"):
            return int(line.split(":")[1])
    raise SystemExit("no used_memory in INFO")


def keys():
    return int(redis("DBSIZE").strip())


channel = grpc.insecure_channel(ADDR)
call = channel.unary_unary(
    "/toolgate.v1.ToolGate/OpenRun",
    request_serializer=lambda m: m.SerializeToString(),
    response_deserializer=pb.OpenRunResponse.FromString)
snapshot = channel.unary_unary(
    "/toolgate.v1.ToolGate/GetSnapshot",
    request_serializer=lambda m: m.SerializeToString(),
    response_deserializer=pb.GetSnapshotResponse.FromString)(
        pb.GetSnapshotRequest(name="tickets")).snapshot_id
req = pb.OpenRunRequest(snapshot_id=snapshot, model="flood")


def flood(runs):
    with futures.ThreadPoolExecutor(8) as pool:
        futs = [pool.submit(call, req, timeout=10) for _ in range(runs)]
        return sum(1 for f in futs if f.result().run_id)


# The baseline: what the store holds with no run open, once toolgate's
# connection pool is as large as the flood makes it (each connection is a
# Redis client with its buffers: not state) and a first small flood has
# expired.
flood(200)
time.sleep(2 * TTL + 1.5)
baseline, base_keys = used_memory(), keys()
start = time.time()
opened = flood(RUNS)
flood_s = time.time() - start
peak, peak_keys = used_memory(), keys()
deadline = time.time() + 2 * TTL + 30
while time.time() < deadline:
    if keys() <= base_keys and used_memory() <= baseline * 1.05 + 65536:
        break
    time.sleep(0.5)
back = time.time() - start - flood_s
result = {"runs": opened, "flood_s": round(flood_s, 1),
          "baseline_bytes": baseline, "peak_bytes": peak,
          "peak_keys": peak_keys, "after_bytes": used_memory(),
          "after_keys": keys(), "back_s_after_flood": round(back, 1),
          "idle_ttl_s": TTL}
print(json.dumps(result))
if result["after_bytes"] > baseline * 1.05 + 65536:
    print(redis("MEMORY", "STATS"), file=sys.stderr)
ok = opened == RUNS and result["after_keys"] <= base_keys and \
    result["after_bytes"] <= baseline * 1.05 + 65536
sys.exit(0 if ok else 1)
