#!/usr/bin/env python3
"""The test-label gate: every test the build registers carries a ctest label.

  tools/check_test_labels.py BUILD

Labels are how the suite is cut (`ctest -L search`, `-LE full`, tools/test's tiers): a test
without one is run by `tools/test` but by no area's run, and slips past `-LE full` where it is
long. Lists `ctest -N -LE .` (the tests that match no label at all) in BUILD; exit status 1 when
there is one, naming each, 2 when ctest cannot list the build.
"""
import re
import subprocess
import sys


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    build = sys.argv[1]
    run = subprocess.run(["ctest", "--test-dir", build, "-N", "-LE", "."], capture_output=True, text=True)
    total = re.search(r"^Total Tests: (\d+)", run.stdout, re.M)
    if run.returncode != 0 or not total:
        print(f"check_test_labels: ctest could not list {build}: {run.stderr.strip()}", file=sys.stderr)
        return 2
    names = re.findall(r"^\s*Test\s+#\d+: (\S+)", run.stdout, re.M)
    for name in names:
        print(f"{name}: no ctest label (set LABELS where the test is added)")
    print(f"test labels: {len(names)} of the build's tests without a label")
    return 1 if names else 0


if __name__ == "__main__":
    sys.exit(main())
