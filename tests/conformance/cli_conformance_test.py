"""The JSON-Schema-Test-Suite through `toolgatectl schema check`.

What users run in their own CI must pass the suite too, not just the
library: every required test of draft2020-12 and draft7 is fed to the CLI as
JSON Lines, one process per test group, and each output line's "valid" must
equal the suite's expectation (and the exit status must agree: 0 when all
valid, 1 when any is invalid; 2, a refused schema, is always a failure).
"""
import json
import os
import subprocess
import sys
import tempfile

RUNFILES = os.path.join(os.environ.get("TEST_SRCDIR", "."),
                        os.environ.get("TEST_WORKSPACE", "toolgate"))
CTL = os.path.join(RUNFILES, "client/toolgatectl")
DRAFTS = {"draft2020-12": "2020-12", "draft7": "draft7"}
EXPECTED = {"draft2020-12": 1299, "draft7": 927}


def find_suite():
    env = os.environ.get("TOOLGATE_CONFORMANCE_DIR")
    if env:
        return env
    here = os.path.realpath(__file__)
    while os.path.dirname(here) != here:
        here = os.path.dirname(here)
        candidate = os.path.join(here, "shared/conformance/JSON-Schema-Test-Suite")
        if os.path.isdir(os.path.join(candidate, "tests")):
            return candidate
    sys.exit("JSON-Schema-Test-Suite not found: set TOOLGATE_CONFORMANCE_DIR")


def run_group(group, dialect, remotes, tmp):
    schema_path = os.path.join(tmp, "schema.json")
    with open(schema_path, "w") as f:
        json.dump(group["schema"], f)
    lines = "".join(json.dumps(t["data"]) + "\n" for t in group["tests"])
    proc = subprocess.run(
        [CTL, "schema", "check", "--schema", schema_path, "--dialect", dialect,
         "--ref-dir", "http://localhost:1234/=" + remotes],
        input=lines.encode(), capture_output=True, timeout=60)
    got = [json.loads(l)["valid"] for l in proc.stdout.decode().splitlines()]
    want = [t["valid"] for t in group["tests"]]
    exit_ok = proc.returncode == (0 if all(want) else 1)
    if len(got) != len(want) or not exit_ok:
        return [False] * len(want), proc.stderr.decode().strip()
    return [g == w for g, w in zip(got, want)], ""


def run_draft(suite, draft, tmp):
    remotes = os.path.join(suite, "remotes")
    folder = os.path.join(suite, "tests", draft)
    passed = total = 0
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".json"):
            continue
        with open(os.path.join(folder, name)) as f:
            groups = json.load(f)
        file_passed = file_total = 0
        for group in groups:
            results, err = run_group(group, DRAFTS[draft], remotes, tmp)
            for ok, test in zip(results, group["tests"]):
                if not ok:
                    print(f"MISS {draft}/{name}: {group['description']} / "
                          f"{test['description']} {err}")
            file_passed += sum(results)
            file_total += len(results)
        print(f"{draft}/{name}: {file_passed}/{file_total}")
        passed += file_passed
        total += file_total
    print(f"{draft}: {passed}/{total} through toolgatectl schema check")
    return passed, total


def main():
    suite = find_suite()
    failures = 0
    cases = 0
    with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as tmp:
        for draft in DRAFTS:
            passed, total = run_draft(suite, draft, tmp)
            cases += total
            failures += total - passed
            if total != EXPECTED[draft]:
                print(f"{draft}: expected {EXPECTED[draft]} tests, found {total}")
                failures += 1
    if os.environ.get("XML_OUTPUT_FILE"):
        with open(os.environ["XML_OUTPUT_FILE"], "w") as f:
            f.write('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>'
                    f'<testsuite name="cli_conformance" tests="{cases}" '
                    f'failures="{failures}" errors="0"></testsuite></testsuites>\n')
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
