#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
"""Which licence every file of the repository is under, in one table.

  tools/licences.py --check           every tracked file carries the licence
                                      and copyright lines the table gives it
                                      (or is listed in .reuse/dep5), and
                                      debian/copyright is what --debian prints
  tools/licences.py --apply           add the lines to files that lack them
  tools/licences.py --debian          print debian/copyright from the table
  tools/licences.py --debian --write  rewrite debian/copyright

The decision (docs/release.md): the library, the command, the tools and the
tests are GPL-2.0-only OR BSD-3-Clause; the kernel module and the tc plugin
(kmod/) and the kernel patches (upstream/linux/) are GPL-2.0-only, as they
build against the kernel's headers and iproute2; the ns-3 module (ns3/) is
GPL-2.0-only, ns-3's licence. Files that cannot hold a comment (images,
JSON, recorded outputs, fuzz inputs, patches in mbox form, Debian's
changelog) get their lines from .reuse/dep5, which this tool writes too.
`reuse lint` (REUSE 3.0) then passes; `make check` runs both.
"""
import fnmatch
import os
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
COPYRIGHT = "2026 The choke authors"
DUAL = "GPL-2.0-only OR BSD-3-Clause"
GPL = "GPL-2.0-only"
# spelled in two parts so that reuse does not read this file's strings as tags
TAG_L = "SPDX-" + "License-Identifier: "
TAG_C = "SPDX-" + "FileCopyrightText: "

# (pattern, licence), first match wins; patterns are fnmatch globs on the
# path from the top of the repository ("*" also matches "/").
LICENCE = [
    ("kmod/*", GPL),            # sch_libchoke.ko, the tc plugin, dkms
    ("upstream/linux/*", GPL),  # patches and a selftest for the kernel
    ("ns3/*", GPL),             # ns3::ChokeQueueDisc: ns-3 is GPL-2.0-only
    ("*", DUAL),
]

# Files that cannot hold a comment: their lines are in .reuse/dep5.
NO_COMMENT = [
    "*.png", "*.json", "*.patch", "*.expect", "*.nlrec",
    "fuzz/corpus/*", "fuzz/regress/*",
    "tests/sim/golden/*", "tests/bridge/golden/*",
    "debian/changelog", "debian/source/format", "debian/copyright",
    "debian/choke-dkms.dkms", "VERSION", "NEWS",
]


def licence_of(path):
    for pat, lic in LICENCE:
        if fnmatch.fnmatch(path, pat):
            return lic
    raise SystemExit("no licence rule for " + path)


def no_comment(path):
    return any(fnmatch.fnmatch(path, p) for p in NO_COMMENT)


def comment_style(path):
    """(prefix, suffix) of a comment line in this kind of file."""
    base = os.path.basename(path)
    ext = os.path.splitext(base)[1]
    if ext in (".c", ".h", ".cc"):
        return ("/* ", " */")
    if ext == ".md":
        return ("<!-- ", " -->")
    if ext == ".1":
        return ('.\\" ', "")
    return ("# ", "")


def tracked():
    """git's files; outside a git checkout (an unpacked release tarball,
    which holds exactly the committed files) every file but build/'s"""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True,
                             capture_output=True).stdout.decode().split("\0")
    except (OSError, subprocess.CalledProcessError):
        out = []
        for d, dirs, files in os.walk(ROOT):
            rel = os.path.relpath(d, ROOT)
            if rel == ".":
                dirs[:] = [x for x in dirs if x not in ("build", ".git")]
            out += [os.path.normpath(os.path.join(rel, f)) for f in files]
    return sorted(p for p in out if p and not p.startswith("LICENSES/")
                  and not p.startswith(".reuse/"))


def head_tags(text):
    """The licence and copyright tags among a file's first 8 lines."""
    lic, cop = None, None
    for line in text.splitlines()[:8]:
        i = line.find(TAG_L)
        if i >= 0 and lic is None:
            lic = line[i + len(TAG_L):].strip().rstrip("*/ ").rstrip("-> ").strip()
        i = line.find(TAG_C)
        if i >= 0 and cop is None:
            cop = line[i + len(TAG_C):].strip().rstrip("*/ ").rstrip("-> ").strip()
    return lic, cop


def apply_one(path):
    full = os.path.join(ROOT, path)
    with open(full, encoding="utf-8") as f:
        text = f.read()
    lic, cop = head_tags(text)
    want = licence_of(path)
    pre, suf = comment_style(path)
    lines = text.splitlines(keepends=True)
    if lic is not None and lic != want:
        for i, line in enumerate(lines[:8]):
            if TAG_L in line:
                lines[i] = line.replace(lic, want, 1)
                break
        lic = want
    if lic is None:
        at = 1 if lines and lines[0].startswith("#!") else 0
        lines.insert(at, pre + TAG_L + want + suf + "\n")
    if cop is None:
        at = next(i for i, line in enumerate(lines) if TAG_L in line) + 1
        # keep the comment style of the licence line (// or /* in C)
        lline = lines[at - 1]
        p, s = pre, suf
        if lline.startswith("// "):
            p, s = "// ", ""
        lines.insert(at, p + TAG_C + COPYRIGHT + s + "\n")
    new = "".join(lines)
    if new != text:
        with open(full + ".tmp", "w", encoding="utf-8") as f:
            f.write(new)
        os.chmod(full + ".tmp", os.stat(full).st_mode)
        os.replace(full + ".tmp", full)
        return True
    return False


def dep5():
    groups = {}
    for pat in NO_COMMENT:
        groups.setdefault(licence_of(pat.replace("*", "x")), []).append(pat)
    out = ["Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/",
           "Upstream-Name: choke",
           "Source: the choke repository",
           "Comment: written by tools/licences.py; the files here cannot hold a comment",
           ""]
    for lic, pats in groups.items():
        out += ["Files: " + " ".join(pats), "Copyright: " + COPYRIGHT, "License: " + lic, ""]
    return "\n".join(out).rstrip("\n") + "\n"


LICENCE_TEXT = {
    GPL: """ This program is free software; you can redistribute it and/or modify it
 under the terms of the GNU General Public License version 2 as published
 by the Free Software Foundation.
 .
 This program is distributed in the hope that it will be useful, but
 WITHOUT ANY WARRANTY; without even the implied warranty of MERCHANTABILITY
 or FITNESS FOR A PARTICULAR PURPOSE. See the GNU General Public License
 for more details.
 .
 On Debian systems, the complete text of the GNU General Public License
 version 2 can be found in "/usr/share/common-licenses/GPL-2".""",
}


def bsd_text():
    with open(os.path.join(ROOT, "LICENSES", "BSD-3-Clause.txt"), encoding="utf-8") as f:
        body = f.read().strip("\n").split("\n")
    # the text after the copyright line, each line indented, blank lines as " ."
    start = next(i for i, l in enumerate(body) if l.startswith("Redistribution"))
    return "\n".join((" " + l) if l.strip() else " ." for l in body[start:])


def debian_copyright():
    out = ["Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/",
           "Upstream-Name: choke",
           "Comment: generated by tools/licences.py from its table (the same table",
           " that gives every source file its SPDX line; `make check` compares).",
           ""]
    out += ["Files: *", "Copyright: " + COPYRIGHT,
            "License: GPL-2.0-only or BSD-3-Clause", ""]
    gpl = [pat for pat, lic in LICENCE if lic == GPL]
    out += ["Files: " + " ".join(gpl), "Copyright: " + COPYRIGHT, "License: GPL-2.0-only", ""]
    out += ["License: GPL-2.0-only", LICENCE_TEXT[GPL], ""]
    out += ["License: BSD-3-Clause", bsd_text()]
    return "\n".join(out) + "\n"


def write_atomic(path, text):
    full = os.path.join(ROOT, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(full + ".tmp", full)


def check():
    bad = []
    for path in tracked():
        if no_comment(path):
            lic, cop = None, None
        else:
            try:
                with open(os.path.join(ROOT, path), encoding="utf-8") as f:
                    lic, cop = head_tags(f.read())
            except UnicodeDecodeError:
                bad.append(path + ": binary, not listed as a file without comments")
                continue
            want = licence_of(path)
            if lic != want:
                bad.append("%s: licence %r, the table says %r" % (path, lic, want))
            if cop != COPYRIGHT:
                bad.append("%s: copyright %r, want %r" % (path, cop, COPYRIGHT))
    for path, want in ((".reuse/dep5", dep5()), ("debian/copyright", debian_copyright())):
        try:
            with open(os.path.join(ROOT, path), encoding="utf-8") as f:
                have = f.read()
        except FileNotFoundError:
            have = None
        if have != want:
            bad.append(path + ": differs from what tools/licences.py writes (--apply)")
    for lic in ("GPL-2.0-only", "BSD-3-Clause"):
        if not os.path.exists(os.path.join(ROOT, "LICENSES", lic + ".txt")):
            bad.append("LICENSES/%s.txt is missing" % lic)
    for b in bad:
        print("licences: " + b, file=sys.stderr)
    if bad:
        print("licences: %d problems (tools/licences.py --apply mends the lines)" % len(bad),
              file=sys.stderr)
        return 1
    print("licences: %d files, each with the licence of the table" % len(tracked()))
    return 0


def main(argv):
    if argv == ["--check"]:
        return check()
    if argv == ["--apply"]:
        n = sum(apply_one(p) for p in tracked() if not no_comment(p))
        write_atomic(".reuse/dep5", dep5())
        write_atomic("debian/copyright", debian_copyright())
        print("licences: %d files given their lines" % n)
        return 0
    if argv == ["--debian"]:
        sys.stdout.write(debian_copyright())
        return 0
    if argv == ["--debian", "--write"]:
        write_atomic("debian/copyright", debian_copyright())
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
