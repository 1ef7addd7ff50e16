/* SPDX-License-Identifier: GPL-2.0-only */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * The standalone test binary (build/ns3/choke-ns3-tests): ns-3's own test
 * runner over the suites linked in, i.e. choke-queue-disc. In an ns-3
 * source tree ns-3's utils/test-runner and test.py take its place.
 *   choke-ns3-tests [--verbose] [--suite=choke-queue-disc] [--list] ...
 */
#include "ns3/test.h"

int
main(int argc, char* argv[])
{
    return ns3::TestRunner::Run(argc, argv);
}
