"""deploy/k8s: yamllint-clean, hardened, and the real binary accepts them.

For every toolgate container in every manifest, the test builds the pod's
volumes from the same file (ConfigMaps with their data, Secrets with test
certificates and a token), starts the real binary with the container's
`args` (mount paths moved under a temp dir, ports moved to free ones), and
asks it for health on the probe port and for the ConfigMap's snapshot on
the main port (over TLS when the args say so).

shared.yaml keeps its state in the Redis of redis.yaml (issue 26): the
test renders redis.yaml's config and runs its command with Debian's
redis-server, checks the probes and settings a user relies on (AOF,
noeviction, the password from the Secret), and points toolgate's
--state_store at that Redis. Until the toolgate binary lists
--state_store in its --help, the --state_store* args are checked
statically only and left out when it is started.
"""
import glob
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

import yaml

RUNFILES = os.path.join(os.environ.get("TEST_SRCDIR", ""),
                        os.environ.get("TEST_WORKSPACE", "toolgate"))
TMP = os.environ.get("TEST_TMPDIR", "/tmp")
TOOLGATE = os.path.join(RUNFILES, "server/toolgate")
TOOLGATECTL = os.path.join(RUNFILES, "client/toolgatectl")
MANIFESTS = sorted(glob.glob(os.path.join(RUNFILES, "deploy/k8s/*.yaml")))
K8S = os.path.join(RUNFILES, "deploy/k8s")
# The manifests that run toolgate (redis.yaml runs its store).
TOOLGATE_MANIFESTS = [os.path.join(K8S, n)
                      for n in ("shared.yaml", "sidecar.yaml")]
REDIS_SERVER = "/usr/bin/redis-server"
REDIS_CLI = "/usr/bin/redis-cli"
# What the Secret holds in a test: hex, as redis.yaml asks.
REDIS_PASSWORD = "0123456789abcdef0123456789abcdef"
STORE_FLAGS = ("--state_store=", "--state_store_password_file=",
               "--state_store_ca_file=", "--state_store_cert_file=",
               "--state_store_key_file=", "--state_store_timeout_ms=",
               "--state_store_key_prefix=")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def toolgate_containers(docs):
    for doc in docs:
        if doc.get("kind") != "Deployment":
            continue
        pod = doc["spec"]["template"]["spec"]
        for c in pod["containers"]:
            if "/toolgate:" in c["image"]:
                yield pod, c


def load(path):
    with open(path) as f:
        return list(yaml.safe_load_all(f))


def by_kind(docs, kind):
    return [d for d in docs if d and d.get("kind") == kind]


def selects(selector, labels):
    """A label selector with matchLabels only (what these files use)."""
    self_labels = selector.get("matchLabels", {})
    return (set(selector) <= {"matchLabels"} and bool(self_labels) and
            all(labels.get(k) == v for k, v in self_labels.items()))


def flag_value(args, name):
    values = [a.split("=", 1)[1] for a in args
              if a.startswith("--%s=" % name)]
    assert len(values) <= 1, (name, values)
    return values[0] if values else None


def bytes_of(size):
    """Redis ("768mb") and Kubernetes ("1Gi") sizes, in bytes."""
    m = re.match(r"(\d+)\s*([a-zA-Z]*)$", str(size))
    unit = {"": 1, "k": 1000, "kb": 1024, "m": 1000 ** 2, "mb": 1024 ** 2,
            "g": 1000 ** 3, "gb": 1024 ** 3, "ki": 1024, "mi": 1024 ** 2,
            "gi": 1024 ** 3}[m.group(2).lower()]
    return int(m.group(1)) * unit


def binary_knows_state_store():
    """Whether this toolgate has the state-store flags (issue 26)."""
    r = subprocess.run([TOOLGATE, "--help"], capture_output=True, text=True)
    return "--state_store" in r.stdout + r.stderr


def write_volume(path, files):
    """Files laid out as the kubelet does: NAME -> ..data/NAME."""
    os.makedirs(os.path.join(path, "..data"))
    for name, content in files.items():
        with open(os.path.join(path, "..data", name), "w") as f:
            f.write(content)
        os.symlink(os.path.join("..data", name), os.path.join(path, name))


class K8sManifestsTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.certs = tempfile.mkdtemp(dir=TMP)
        subprocess.run([os.path.join(RUNFILES, "tests/testing/make_test_certs.sh"),
                        cls.certs], check=True)

    def test_there_are_manifests(self):
        names = [os.path.basename(m) for m in MANIFESTS]
        self.assertEqual(names, ["redis.yaml", "shared.yaml", "sidecar.yaml"])
        for path in MANIFESTS:
            runs_toolgate = any(True for _ in toolgate_containers(load(path)))
            self.assertEqual(runs_toolgate, path in TOOLGATE_MANIFESTS, path)

    def test_yamllint_strict(self):
        try:
            r = subprocess.run(["yamllint", "-s"] + MANIFESTS,
                               capture_output=True, text=True)
        except FileNotFoundError:
            self.fail("yamllint is not installed (scripts/install-deps.sh)")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_containers_are_hardened_and_probed(self):
        for path in TOOLGATE_MANIFESTS:
            docs = load(path)
            found = 0
            for pod, c in toolgate_containers(docs):
                found += 1
                with self.subTest(manifest=os.path.basename(path)):
                    sc = c["securityContext"]
                    self.assertTrue(sc["runAsNonRoot"])
                    self.assertNotEqual(sc.get("runAsUser", 0), 0)
                    self.assertTrue(sc["readOnlyRootFilesystem"])
                    self.assertFalse(sc["allowPrivilegeEscalation"])
                    self.assertEqual(sc["capabilities"]["drop"], ["ALL"])
                    self.assertIn("memory", c["resources"]["limits"])
                    self.assertIn("cpu", c["resources"]["requests"])
                    health = [a for a in c["args"]
                              if a.startswith("--health_listen=")]
                    self.assertEqual(len(health), 1)
                    port = int(health[0].rsplit(":", 1)[1])
                    for probe in ("livenessProbe", "readinessProbe"):
                        self.assertEqual(c[probe]["grpc"]["port"], port, probe)
            self.assertEqual(found, 1, path)

    def test_every_layout_has_an_approver_credential(self):
        """Issue 25, item 12: without one, the agent approved its own calls
        (sidecar) or nobody could; the token is the toolgate container's
        alone."""
        for path in TOOLGATE_MANIFESTS:
            docs = load(path)
            for pod, c in toolgate_containers(docs):
                with self.subTest(manifest=os.path.basename(path)):
                    token = [a.split("=", 1)[1] for a in c["args"]
                             if a.startswith("--admin_token_file=")]
                    self.assertEqual(len(token), 1)
                    mounts = [m for m in c["volumeMounts"]
                              if token[0].startswith(m["mountPath"] + "/")]
                    self.assertEqual(len(mounts), 1)
                    volumes = {v["name"]: v for v in pod["volumes"]}
                    self.assertIn("secret", volumes[mounts[0]["name"]])
                    for other in pod["containers"]:
                        if other is c:
                            continue
                        self.assertNotIn(
                            mounts[0]["name"],
                            [m["name"] for m in other.get("volumeMounts", [])],
                            "only toolgate may hold the admin token")

    def test_real_binary_serves_with_the_manifest_args(self):
        for path in TOOLGATE_MANIFESTS:
            docs = load(path)
            for pod, c in toolgate_containers(docs):
                with self.subTest(manifest=os.path.basename(path)):
                    self.serve(docs, pod, c)

    def test_shared_runs_three_replicas_behind_a_pdb(self):
        docs = load(os.path.join(K8S, "shared.yaml"))
        (deployment,) = by_kind(docs, "Deployment")
        self.assertEqual(deployment["spec"]["replicas"], 3)
        labels = deployment["spec"]["template"]["metadata"]["labels"]
        self.assertTrue(selects(deployment["spec"]["selector"], labels))
        pdbs = [p for p in by_kind(docs, "PodDisruptionBudget")
                if selects(p["spec"]["selector"], labels)]
        self.assertEqual(len(pdbs), 1, "one PDB over toolgate's pods")
        self.assertEqual(pdbs[0]["apiVersion"], "policy/v1")
        spec = pdbs[0]["spec"]
        if "maxUnavailable" in spec:
            self.assertEqual(spec["maxUnavailable"], 1)
        else:
            self.assertGreaterEqual(spec["minAvailable"], 2)
            self.assertLess(spec["minAvailable"], 3, "drains never finish")

    def test_shared_keeps_its_state_in_redis_yaml(self):
        docs = load(os.path.join(K8S, "shared.yaml"))
        ((pod, c),) = toolgate_containers(docs)
        redis_docs = load(os.path.join(K8S, "redis.yaml"))
        (sts,) = by_kind(redis_docs, "StatefulSet")
        redis_labels = sts["spec"]["template"]["metadata"]["labels"]
        (redis,) = sts["spec"]["template"]["spec"]["containers"]
        # Only flags of the issue-26 set, each once.
        store_args = [a for a in c["args"] if a.startswith("--state_store")]
        for a in store_args:
            self.assertTrue(a.startswith(STORE_FLAGS), a)
            flag_value(c["args"], a[2:].split("=", 1)[0])
        if binary_knows_state_store():
            usage = subprocess.run([TOOLGATE, "--help"], capture_output=True,
                                   text=True).stdout
            for a in store_args:
                self.assertIn(a.split("=", 1)[0], usage)
        # The URL names a Service of redis.yaml that selects its pod, on
        # the Service's port; no password in it (a user alone is allowed).
        url = flag_value(c["args"], "state_store")
        m = re.match(r"redis://(?:([^:@/]+)@)?([a-z0-9-]+):(\d+)(/\d+)?$",
                     url or "")
        self.assertIsNotNone(m, url)
        services = {d["metadata"]["name"]: d
                    for d in by_kind(redis_docs, "Service")}
        self.assertIn(m.group(2), services)
        service = services[m.group(2)]
        self.assertNotEqual(service["spec"].get("clusterIP"), "None",
                            "clients need the stable Service address")
        self.assertTrue(all(redis_labels.get(k) == v for k, v in
                            service["spec"]["selector"].items()))
        self.assertIn(int(m.group(3)),
                      [p["port"] for p in service["spec"]["ports"]])
        # The password file comes from the Secret redis.yaml reads.
        (ref,) = [e["valueFrom"]["secretKeyRef"] for e in redis.get("env", [])
                  if "secretKeyRef" in e.get("valueFrom", {})]
        password_file = flag_value(c["args"], "state_store_password_file")
        self.assertIsNotNone(password_file)
        (mount,) = [v for v in c["volumeMounts"]
                    if password_file.startswith(v["mountPath"] + "/")]
        volumes = {v["name"]: v for v in pod["volumes"]}
        secret = volumes[mount["name"]].get("secret")
        self.assertIsNotNone(secret, "the password must come from a Secret")
        self.assertEqual(secret["secretName"], ref["name"])
        path = password_file[len(mount["mountPath"]) + 1:]
        items = {i["path"]: i["key"] for i in secret.get("items", [])}
        self.assertEqual(items.get(path, path), ref["key"])
        # Only toolgate holds it.
        for other in pod["containers"]:
            if other is not c:
                self.assertNotIn(mount["name"], [
                    m["name"] for m in other.get("volumeMounts", [])])

    def test_redis_yaml_is_durable_bounded_and_password_protected(self):
        path = os.path.join(K8S, "redis.yaml")
        docs = load(path)
        (sts,) = by_kind(docs, "StatefulSet")
        self.assertEqual(sts["spec"]["replicas"], 1)
        pod = sts["spec"]["template"]["spec"]
        (c,) = pod["containers"]
        self.assertTrue(c["image"].startswith("redis:7"), c["image"])
        sc = c["securityContext"]
        self.assertTrue(sc["runAsNonRoot"])
        self.assertNotEqual(sc.get("runAsUser", 0), 0)
        self.assertTrue(sc["readOnlyRootFilesystem"])
        self.assertFalse(sc["allowPrivilegeEscalation"])
        self.assertEqual(sc["capabilities"]["drop"], ["ALL"])
        self.assertIn("cpu", c["resources"]["requests"])
        config = self.redis_config(docs, c)
        settings = dict(line.split(None, 1) for line in config.splitlines()
                        if line.strip() and not line.startswith("#"))
        self.assertEqual(settings["appendonly"], "yes")
        self.assertIn(settings["appendfsync"], ("everysec", "always"))
        self.assertEqual(settings["maxmemory-policy"], "noeviction")
        self.assertLess(bytes_of(settings["maxmemory"]),
                        bytes_of(c["resources"]["limits"]["memory"]))
        # AOF on a volume of the claim template, not in the container.
        claims = [t["metadata"]["name"]
                  for t in sts["spec"]["volumeClaimTemplates"]]
        (data,) = [m for m in c["volumeMounts"] if m["name"] in claims]
        self.assertEqual(settings["dir"], data["mountPath"])
        # The password: from a Secret, never a literal in the file, never
        # in argv (Kubernetes expands $(VAR) in command and args).
        (ref,) = [e for e in c.get("env", [])
                  if "secretKeyRef" in e.get("valueFrom", {})]
        with open(path) as f:
            text = f.read()
        for value in re.findall(r"requirepass\s+(\S+)", text):
            self.assertRegex(value, r"[$%]", "a literal password")
        argv = " ".join(c.get("command", []) + c.get("args", []))
        self.assertNotIn("$(" + ref["name"] + ")", argv)
        self.assertNotIn("--requirepass", argv)
        self.assertFalse([e for e in c.get("env", []) if "value" in e and
                          re.search("pass|auth", e["name"], re.I)])
        # Running it: probes pass with the Secret's password, the settings
        # are live, the password is not in the process's argv, and a wrong
        # password gets nothing.
        server, port, run = self.start_redis(docs)
        with open("/proc/%d/cmdline" % server.pid, "rb") as f:
            self.assertNotIn(REDIS_PASSWORD.encode(), f.read())
        for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
            self.assertEqual(run(c[probe]["exec"]["command"]).returncode, 0,
                             probe)
        self.assertNotEqual(
            run(c["readinessProbe"]["exec"]["command"],
                password="ffff").returncode, 0)
        for name, value in (("appendonly", "yes"),
                            ("maxmemory-policy", "noeviction"),
                            ("maxmemory", str(bytes_of(settings["maxmemory"])))):
            r = run([REDIS_CLI, "-h", "127.0.0.1", "config", "get", name])
            self.assertEqual(r.stdout.split(), [name, value], r.stderr)
        # A password the config file cannot hold verbatim: refused.
        bad = self.start_redis(docs, password="not hex", wait=False)
        self.assertNotEqual(bad.wait(timeout=10), 0)

    def redis_config(self, docs, c):
        (cm,) = [d for d in by_kind(docs, "ConfigMap")]
        (name,) = cm["data"]
        self.assertIn("redis.conf", name)
        self.assertIn("/" + name, " ".join(c["command"] + c.get("args", [])))
        return cm["data"][name]

    def start_redis(self, docs, password=REDIS_PASSWORD, wait=True):
        """redis.yaml's container run here: its config and command, mount
        paths under a temp dir, a free port, the Secret's password in the
        env it names. Returns the process, its port and a function that
        runs a probe-style command against it (or the process only, when
        not waiting for it)."""
        if not os.path.exists(REDIS_SERVER):
            self.fail("redis-server is not installed (scripts/install-deps.sh)")
        (sts,) = by_kind(docs, "StatefulSet")
        (c,) = sts["spec"]["template"]["spec"]["containers"]
        root = tempfile.mkdtemp(dir=TMP)
        port = free_port()

        def moved(text):
            for m in c["volumeMounts"]:
                text = re.sub(r"(?<![\w/.])" + re.escape(m["mountPath"]) +
                              r"(?=[/\s]|$)", root + m["mountPath"], text,
                              flags=re.M)
            return text
        config = re.sub(r"^port \d+$", "port %d" % port,
                        self.redis_config(docs, c), flags=re.M)
        config += "bind 127.0.0.1\n"
        for m in c["volumeMounts"]:
            if m["mountPath"] == "/etc/redis":
                write_volume(root + m["mountPath"],
                             {"redis.conf": moved(config)})
            else:
                os.makedirs(root + m["mountPath"])
        (ref,) = [e for e in c["env"]
                  if "secretKeyRef" in e.get("valueFrom", {})]
        env = dict(os.environ)
        env[ref["name"]] = password
        server = subprocess.Popen([moved(a) for a in c["command"] +
                                   c.get("args", [])], env=env,
                                  stdout=subprocess.DEVNULL)
        self.addCleanup(lambda: server.poll() is None and (
            server.terminate(), server.wait(timeout=30)))
        if not wait:
            return server

        def run(command, password=password):
            env = dict(os.environ)
            env[ref["name"]] = password
            command = [a.replace("-h 127.0.0.1", "-h 127.0.0.1 -p %d" % port)
                       for a in command]
            if command[0] == REDIS_CLI:
                command[1:1] = ["-p", str(port)]
            return subprocess.run(command, env=env, capture_output=True,
                                  text=True, timeout=30)
        ready = c["readinessProbe"]["exec"]["command"]
        for _ in range(100):
            self.assertIsNone(server.poll(), "redis-server exited")
            if run(ready).returncode == 0:
                break
            time.sleep(0.1)
        return server, port, run

    def volume_files(self, docs, volume, wanted):
        """What the kubelet would mount for `volume`."""
        if "configMap" in volume:
            (cm,) = [d for d in docs if d.get("kind") == "ConfigMap" and
                     d["metadata"]["name"] == volume["configMap"]["name"]]
            return cm["data"]
        self.assertIn("secret", volume)
        # Secrets are not in the repository: test certificates and a token.
        by_name = {"tls.crt": "server.crt", "tls.key": "server.key",
                   "ca.crt": "ca.crt"}
        files = {}
        for name in wanted:
            if name in by_name:
                with open(os.path.join(self.certs, by_name[name])) as f:
                    files[name] = f.read()
            elif name == "password":
                files[name] = REDIS_PASSWORD
            else:
                files[name] = "test-admin-token-0123456789\n"
        return files

    def serve(self, docs, pod, c):
        root = tempfile.mkdtemp(dir=TMP)
        args = list(c["args"])
        if any(a.startswith("--state_store=redis") for a in args):
            if binary_knows_state_store():
                # redis.yaml's Redis, run here, in place of its Service.
                _, port, _ = self.start_redis(
                    load(os.path.join(K8S, "redis.yaml")))
                args = [re.sub(r"^(--state_store=redis://(?:[^@/]+@)?)"
                               r"[^:/]+:\d+", r"\g<1>127.0.0.1:%d" % port, a)
                        for a in args]
            else:
                print("k8s_test: this toolgate has no --state_store flag "
                      "yet: starting it without the --state_store* args",
                      file=sys.stderr)
                args = [a for a in args if not a.startswith(STORE_FLAGS)]
        volumes = {v["name"]: v for v in pod["volumes"]}
        for mount in c["volumeMounts"]:
            mp = mount["mountPath"]
            wanted = [a.split("=", 1)[1][len(mp) + 1:] for a in args
                      if "=" in a and a.split("=", 1)[1].startswith(mp + "/")]
            write_volume(root + mp,
                         self.volume_files(docs, volumes[mount["name"]], wanted))
            args = [a.replace("=" + mp, "=" + root + mp) for a in args]
        ports = {}
        for i, a in enumerate(args):
            m = re.match(r"--(listen|health_listen)=(.*):(\d+)$", a)
            if m:
                ports[m.group(1)] = free_port()
                args[i] = "--%s=%s:%d" % (m.group(1), m.group(2),
                                          ports[m.group(1)])
        self.assertIn("listen", ports)
        server = subprocess.Popen([TOOLGATE] + args + ["--drain_notice_ms=0"])
        try:
            # Each probe as kubelet sends it: the service it names, if any
            # (readiness: toolgate.v1.ToolGate, which must exist).
            for probe in ("livenessProbe", "readinessProbe"):
                health = [TOOLGATECTL, "--addr",
                          "127.0.0.1:%d" % ports["health_listen"], "health"]
                service = c[probe]["grpc"].get("service")
                if service:
                    health += ["--service", service]
                self.assertTrue(self.wait_ok(health, server),
                                "%s not SERVING" % probe)
            main = [TOOLGATECTL, "--addr", "127.0.0.1:%d" % ports["listen"]]
            if any(a.startswith("--tls_cert_file=") for a in args):
                main += ["--tls_ca_file", os.path.join(self.certs, "ca.crt")]
            r = subprocess.run(main + ["get-snapshot", "--name", "docs"],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn('"name": "docs"', r.stdout)
            # Approvals: refused without the token (loopback included),
            # listed with it.
            r = subprocess.run(main + ["approvals", "list"],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 2, r.stdout)
            self.assertIn("UNAUTHENTICATED", r.stderr)
            token = [a.split("=", 1)[1] for a in args
                     if a.startswith("--admin_token_file=")]
            r = subprocess.run(main + ["--admin_token_file", token[0],
                                       "approvals", "list"],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
        finally:
            server.send_signal(signal.SIGTERM)
            self.assertEqual(server.wait(timeout=30), 0)

    def wait_ok(self, command, server):
        for _ in range(100):
            self.assertIsNone(server.poll(), "server exited")
            if subprocess.run(command, capture_output=True).returncode == 0:
                return True
            time.sleep(0.1)
        return False


if __name__ == "__main__":
    unittest.main()
