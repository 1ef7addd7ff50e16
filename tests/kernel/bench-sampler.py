#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
"""Host side of make bench-kernel: the CPU time the UML kernel process
(every thread of it) has used, read at each mark the guest writes.

    bench-sampler.py PID MARKS OUT

The guest appends "start N" to MARKS just before it starts pktgen and
"stop N" just after it stopped it, from the same process that writes to
pktgen, through hostfs. This polls MARKS every millisecond or so and
writes "MARK cpu_ns" lines to OUT with the process's CPU time (the sum of
/proc/PID/task/*/schedstat's first field) when it saw the mark. CPU time,
not wall-clock time, because the machine is shared: while the host runs
something else, UML's clock goes on but UML does no work. Exits when PID
does.
"""
import os
import sys
import time


def cpu_ns(pid):
    total = 0
    base = "/proc/%d/task" % pid
    for t in os.listdir(base):
        try:
            with open(os.path.join(base, t, "schedstat")) as f:
                total += int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    return total


def main():
    pid, marks, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    pos = 0
    with open(out, "w") as o:
        while os.path.exists("/proc/%d" % pid):
            try:
                with open(marks) as f:
                    f.seek(pos)
                    data = f.read()
            except OSError:
                data = ""
            if data and data.endswith("\n"):
                pos += len(data)
                now = cpu_ns(pid)
                for line in data.splitlines():
                    o.write("%s %d\n" % (line, now))
                o.flush()
            time.sleep(0.001)


if __name__ == "__main__":
    main()
