"""Counts test cases from Bazel's test.xml files: 'N passed, N failed'.

A test target that produced no test.xml (it did not build, or it crashed
before writing one) counts as one failed case: absence of a result is never
a pass.
"""
import os
import sys
import xml.etree.ElementTree as ET


def count(xml_path):
    root = ET.parse(xml_path).getroot()
    suites = [root] if root.tag == "testsuite" else root.iter("testsuite")
    tests = failed = 0
    for suite in suites:
        tests += int(suite.get("tests", 0))
        failed += int(suite.get("failures", 0)) + int(suite.get("errors", 0))
    return tests, failed


def main():
    testlogs, targets = sys.argv[1], sys.argv[2:]
    passed = failed = 0
    for target in targets:
        package, name = target.lstrip("/").split(":")
        xml_path = os.path.join(testlogs, package, name, "test.xml")
        try:
            tests, fails = count(xml_path)
        except (OSError, ET.ParseError):
            print(f"no result for {target}: counted as failed")
            tests, fails = 1, 1
        if tests == 0:
            tests, fails = 1, 1
        passed += tests - fails
        failed += fails
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and targets else 1


if __name__ == "__main__":
    sys.exit(main())
