"""The image's runtime layer, without a container engine.

Builds the file set deploy/Dockerfile ships (scripts/build-rootfs.sh),
checks the Dockerfile ships exactly that set, then starts the server the way
the image would (ENTRYPOINT + CMD, as USER) under chroot, runs the image's
HEALTHCHECK command in it until SERVING, and gets decisions from it with
the toolgatectl inside.
"""
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import unittest

RUNFILES = os.path.join(os.environ.get("TEST_SRCDIR", ""),
                        os.environ.get("TEST_WORKSPACE", "toolgate"))
TMP = os.environ.get("TEST_TMPDIR", "/tmp")


def runfile(path):
    return os.path.join(RUNFILES, path)


def parse_dockerfile(path):
    """[(stage FROM line, [(INSTRUCTION, rest)])], continuations joined."""
    with open(path) as f:
        text = re.sub(r"\\\n", " ", f.read())
    stages = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        word, _, rest = line.partition(" ")
        word = word.upper()
        if word == "FROM":
            stages.append((rest.strip(), []))
        else:
            stages[-1][1].append((word, rest.strip()))
    return stages


def exec_form(rest):
    """The JSON argv of an exec-form instruction (a shell form is an error)."""
    argv = json.loads(rest)
    assert isinstance(argv, list) and all(isinstance(a, str) for a in argv)
    return argv


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RootfsTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.root = os.path.join(TMP, "rootfs")
        subprocess.run([runfile("scripts/build-rootfs.sh"), cls.root,
                        runfile("server/toolgate"),
                        runfile("client/toolgatectl")], check=True)
        cls.build, cls.runtime = parse_dockerfile(runfile("deploy/Dockerfile"))
        # gcc links the sanitizer runtimes as libasan.so/libtsan.so, clang
        # into the binary; either way it names their entry points.
        with open(runfile("server/toolgate"), "rb") as binary:
            data = binary.read()
        cls.sanitized = b"__asan_init" in data or b"__tsan_init" in data

    def instructions(self, stage, word):
        return [rest for w, rest in stage[1] if w == word]

    def test_dockerfile_ships_exactly_the_rootfs(self):
        self.assertEqual(self.build[0], "debian:bookworm AS build")
        self.assertEqual(self.runtime[0], "debian:bookworm-slim")
        self.assertIn("scripts/build-rootfs.sh /rootfs bazel-bin/server/toolgate "
                      "bazel-bin/client/toolgatectl",
                      self.instructions(self.build, "RUN"))
        # The runtime stage adds nothing but the tested tree.
        self.assertEqual(self.instructions(self.runtime, "COPY"),
                         ["--from=build /rootfs/ /"])
        for word in ("RUN", "ADD"):
            self.assertEqual(self.instructions(self.runtime, word), [], word)

    def test_rootfs_holds_only_binaries_libraries_and_accounts(self):
        # libcurl is dlopened for url rules: it and what it needs ship too.
        curl = os.path.realpath(
            subprocess.run(["sh", "-c", "ldconfig -p | awk '$1 == \"libcurl.so.4\""
                            " && /x86-64/ { print $NF; exit }'"],
                           check=True, capture_output=True, text=True)
            .stdout.strip())
        ldd = subprocess.run(["ldd", runfile("server/toolgate"),
                              runfile("client/toolgatectl"), curl],
                             check=True, capture_output=True, text=True).stdout
        libs = {os.path.realpath(p) for p in re.findall(r"(/\S+) \(0x", ldd)}
        libs.add(curl)
        allowed = libs | {"/usr/local/bin/toolgate", "/usr/local/bin/toolgatectl",
                          "/etc/passwd", "/etc/group"}
        found = set()
        for dirpath, _, files in os.walk(self.root):
            for name in files:
                path = os.path.join(dirpath, name)
                if not os.path.islink(path):
                    found.add("/" + os.path.relpath(path, self.root))
        self.assertEqual(found - allowed, set())
        self.assertEqual(allowed - found, set())

    def test_server_runs_from_the_rootfs_as_the_image_user(self):
        if os.geteuid() != 0:
            self.skipTest("chroot needs root (CI runs as root); the server "
                          "was NOT started from the rootfs")
        if self.sanitized:
            # Their runtimes read /proc, which the rootfs (like the image)
            # does not have; the image ships plain -c opt binaries.
            self.skipTest("sanitizer build (--config=asan/tsan): the server "
                          "was NOT started from the rootfs; the plain suite "
                          "does that")
        user = self.instructions(self.runtime, "USER")
        self.assertEqual(len(user), 1)
        uid = user[0].split(":")[0]
        with open(os.path.join(self.root, "etc/passwd")) as f:
            self.assertIn(uid, [l.split(":")[2] for l in f if l.strip()])
        self.assertNotEqual(uid, "0")
        port = str(free_port())
        (entrypoint,) = self.instructions(self.runtime, "ENTRYPOINT")
        (cmd,) = self.instructions(self.runtime, "CMD")
        (healthcheck,) = self.instructions(self.runtime, "HEALTHCHECK")
        # The image's port, moved to a free one for the test.
        move = lambda argv: [a.replace("50051", port) for a in argv]
        serve = move(exec_form(entrypoint) + exec_form(cmd))
        health = move(exec_form(healthcheck[healthcheck.index("CMD ") + 4:]))
        chroot = ["chroot", "--userspec=" + user[0], self.root]
        server = subprocess.Popen(chroot + serve)
        try:
            self.assertTrue(self.wait_healthy(chroot + health, server))
            with open("/proc/%d/status" % server.pid) as f:
                uids = re.search(r"^Uid:\s+(\d+)", f.read(), re.M).group(1)
            self.assertEqual(uids, uid)
            self.decide(chroot, port)
        finally:
            server.send_signal(signal.SIGTERM)
            self.assertEqual(server.wait(timeout=30), 0)
        self.decide_url_rule(chroot, serve[0], move(exec_form(healthcheck[
            healthcheck.index("CMD ") + 4:])))

    def decide_url_rule(self, chroot, toolgate, health):
        """A url rule loads libcurl inside the image (it is dlopened).

        On a loopback listener, where creating a snapshot needs no admin
        credential."""
        port = str(free_port())
        ctl = chroot + ["/usr/local/bin/toolgatectl", "--addr",
                        "127.0.0.1:" + port]
        health = [a.replace(health[health.index("--addr") + 1],
                            "127.0.0.1:" + port) for a in health]
        server = subprocess.Popen(chroot + [toolgate,
                                            "--listen=127.0.0.1:" + port])
        try:
            self.assertTrue(self.wait_healthy(chroot + health, server))
            self.decide_urls(ctl)
        finally:
            server.send_signal(signal.SIGTERM)
            self.assertEqual(server.wait(timeout=30), 0)

    def wait_healthy(self, health, server):
        for _ in range(100):
            self.assertIsNone(server.poll(), "server exited")
            r = subprocess.run(health, capture_output=True, text=True)
            if r.returncode == 0:
                self.assertEqual(json.loads(r.stdout)["status"], "SERVING")
                return True
            time.sleep(0.1)
        return False

    def decide(self, chroot, port):
        ctl = chroot + ["/usr/local/bin/toolgatectl", "--addr",
                        "127.0.0.1:" + port]
        got = subprocess.run(ctl + ["get-snapshot", "--name", "tickets"],
                             check=True, capture_output=True, text=True)
        snapshot = json.loads(got.stdout)["snapshot_id"]
        args = {"ticket_id": "TCK-004242", "priority": "urgent"}
        for priority, code, decision in (("urgent", 0, "DECISION_ALLOW"),
                                         ("critial", 1, "DECISION_REJECT")):
            args["priority"] = priority
            call = {"role": "assistant", "tool_calls": [{
                "id": "1", "type": "function",
                "function": {"name": "update_ticket",
                             "arguments": json.dumps(args)}}]}
            with open(os.path.join(self.root, "tmp/call.json"), "w") as f:
                json.dump(call, f)
            r = subprocess.run(ctl + ["validate", "--snapshot", snapshot,
                                      "--native", "/tmp/call.json"],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, code, r.stderr)
            self.assertEqual(json.loads(r.stdout)["decision"], decision)

    def decide_urls(self, ctl):
        manifest = {"toolgate": "v1", "tools": [{
            "name": "fetch", "side_effect": "read",
            "input_schema": {"type": "object",
                             "properties": {"url": {"type": "string"}},
                             "required": ["url"]},
            "policy": {"arguments": {"/url": {"kind": "url",
                                              "schemes": ["https"]}}}}]}
        with open(os.path.join(self.root, "tmp/urls.json"), "w") as f:
            json.dump(manifest, f)
        made = subprocess.run(ctl + ["create-snapshot", "--manifest",
                                     "/tmp/urls.json"],
                              capture_output=True, text=True)
        self.assertEqual(made.returncode, 0, made.stderr)
        snapshot = json.loads(made.stdout)["snapshot_id"]
        for url, code, decision in (
                ("https://example.org/a", 0, "DECISION_ALLOW"),
                ("https://127.0.0.1/a", 1, "DECISION_REJECT")):
            call = {"role": "assistant", "tool_calls": [{
                "id": "1", "type": "function",
                "function": {"name": "fetch",
                             "arguments": json.dumps({"url": url})}}]}
            with open(os.path.join(self.root, "tmp/call.json"), "w") as f:
                json.dump(call, f)
            r = subprocess.run(ctl + ["validate", "--snapshot", snapshot,
                                      "--native", "/tmp/call.json"],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, code, r.stderr)
            self.assertEqual(json.loads(r.stdout)["decision"], decision, url)


if __name__ == "__main__":
    unittest.main()
