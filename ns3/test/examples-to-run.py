#! /usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The choke authors

# The module's examples that ns-3's test.py runs (./test.py --example ... or
# a full ./test.py), as (example with its arguments, do_run, do_valgrind_run):
# short runs of the CHOKe paper's link with ChokeQueueDisc and with ns-3's
# RED, and the RED script with RedQueueDisc and ChokeQueueDisc swapped in.
cpp_examples = [
    ("choke-paper --duration=20 --warmup=5", "True", "False"),
    ("choke-paper --qdisc=red --duration=20 --warmup=5", "True", "False"),
    ("choke-paper --ns3::ChokeQueueDisc::Gentle=true --duration=20 --warmup=5", "True", "False"),
    ("choke-red-swap --queueDisc=RedQueueDisc --mode=ared --duration=10", "True", "False"),
    ("choke-red-swap --queueDisc=ChokeQueueDisc --mode=ared --duration=10", "True", "False"),
    ("choke-red-swap --queueDisc=ChokeQueueDisc --mode=gentle --duration=10", "True", "False"),
    ("choke-red-swap --queueDisc=ChokeQueueDisc --mode=ared-ecn --duration=10", "True", "False"),
    ("choke-red-swap --queueDisc=ChokeQueueDisc --mode=adapt --duration=10", "True", "False"),
]

# No Python examples.
python_examples = []
