"""deploy/k8s: yamllint-clean, hardened, and the real binary accepts them.

For every toolgate container in every manifest, the test builds the pod's
volumes from the same file (ConfigMaps with their data, Secrets with test
certificates and a token), starts the real binary with the container's
`args` (mount paths moved under a temp dir, ports moved to free ones), and
asks it for health on the probe port and for the ConfigMap's snapshot on
the main port (over TLS when the args say so).
"""
import glob
import os
import re
import signal
import socket
import subprocess
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
        self.assertEqual(names, ["shared.yaml", "sidecar.yaml"])

    def test_yamllint_strict(self):
        try:
            r = subprocess.run(["yamllint", "-s"] + MANIFESTS,
                               capture_output=True, text=True)
        except FileNotFoundError:
            self.fail("yamllint is not installed (scripts/install-deps.sh)")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_containers_are_hardened_and_probed(self):
        for path in MANIFESTS:
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
        for path in MANIFESTS:
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
        for path in MANIFESTS:
            docs = load(path)
            for pod, c in toolgate_containers(docs):
                with self.subTest(manifest=os.path.basename(path)):
                    self.serve(docs, pod, c)

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
            else:
                files[name] = "test-admin-token-0123456789\n"
        return files

    def serve(self, docs, pod, c):
        root = tempfile.mkdtemp(dir=TMP)
        args = list(c["args"])
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
            health = [TOOLGATECTL, "--addr",
                      "127.0.0.1:%d" % ports["health_listen"], "health"]
            self.assertTrue(self.wait_ok(health, server), "no health")
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
