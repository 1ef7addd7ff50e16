#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
"""docs/testing.md against the Makefile and .ci/run, so the page cannot
drift: every make target that tests or measures (check, check-*, fuzz,
kernel-fuzz, demo, bench, bench-*, eval-*, ns3-compare) is named on the
page as `make TARGET`, every `make TARGET` the page names is a target of
the Makefile, and every test script the Makefile or .ci/run runs
(tests/...sh or .py) is named on the page. Prints each problem and exits 1,
or prints one line and exits 0; a self-test first checks that each kind of
drift is caught.

Usage: python3 tests/testing-doc.py"""
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
TEST_TARGET = re.compile(r"^(check(-[a-z0-9-]+)?|fuzz|kernel-fuzz|demo|bench(-[a-z0-9-]+)?|"
                         r"eval-[a-z0-9-]+|ns3-compare)$")


def targets(makefile):
    """(every target a rule defines, the test targets among the .PHONY ones)"""
    rules, phony = set(), set()
    for line in makefile.splitlines():
        m = re.match(r"^\.PHONY:\s*(.*)$", line)
        if m:
            phony |= set(m.group(1).split())
            continue
        m = re.match(r"^([A-Za-z0-9_./$()-][^:=#\t]*?):(?!=)", line)
        if m and not line.startswith("\t"):
            rules |= set(m.group(1).split())
    return rules, {t for t in phony if TEST_TARGET.match(t)}


def scripts(text):
    return set(re.findall(r"\btests/[A-Za-z0-9_/.-]+\.(?:sh|py)\b", text))


def check(makefile, ci, page):
    rules, tests = targets(makefile)
    named = set(re.findall(r"`make ([a-z0-9-]+)[^`]*`", page))
    problems = []
    for t in sorted(tests - named):
        problems.append("the test target `make %s` is not on the page" % t)
    for t in sorted(named - rules):
        problems.append("the page names `make %s`, which the Makefile does not have" % t)
    for s in sorted((scripts(makefile) | scripts(ci)) - scripts(page)):
        problems.append("%s (run by the Makefile or .ci/run) is not on the page" % s)
    return problems, tests


def main():
    def read(p):
        with open(os.path.join(ROOT, p)) as f:
            return f.read()
    makefile, ci, page = read("Makefile"), read(".ci/run"), read("docs/testing.md")
    # self-test: each kind of drift is caught
    mk = ".PHONY: check check-new\ncheck:\n\tsh tests/new.sh\ncheck-new:\n"
    got, _ = check(mk, "sh tests/ci.sh\n", "`make check` `make gone` tests/new.sh")
    want = ["the test target `make check-new` is not on the page",
            "the page names `make gone`, which the Makefile does not have",
            "tests/ci.sh (run by the Makefile or .ci/run) is not on the page"]
    if got != want:
        print("FAIL testing-doc/self-test: %s" % got)
        return 1
    print("ok   testing-doc/self-test: a missing target, a stale one and a missing script are found")
    problems, tests = check(makefile, ci, page)
    for p in problems:
        print("FAIL testing-doc: docs/testing.md: %s" % p)
    if problems:
        return 1
    print("ok   testing-doc: docs/testing.md names the %d test targets and every test script "
          "of the Makefile and .ci/run" % len(tests))
    return 0


if __name__ == "__main__":
    sys.exit(main())
