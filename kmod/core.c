// SPDX-License-Identifier: GPL-2.0-only
// SPDX-FileCopyrightText: 2026 The choke authors
/*
 * The libchoke core (src/core/choke.c), compiled unchanged into the module.
 * Kbuild builds objects inside the module's directory only, so the file is
 * included from here rather than listed as ../src/core/choke.o.
 */
#include "../src/core/choke.c"
