/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * choke-demo: `choke demo` alone, what `make demo` builds and runs. It is
 * the simulator and libchoke only (libc and libm, no libpcap), so the demo
 * needs nothing but a C compiler; its output is `choke demo`'s, byte for
 * byte (tests/demo.sh).
 */
#include "cli.h"

int main(int argc, char **argv)
{
	return cmd_demo(argc, argv);
}
