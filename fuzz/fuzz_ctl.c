/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* libFuzzer target: the bridge's control-socket requests (src/bridge/
 * control.c), as a client could send them, and the words of a reconfigure
 * request on their way to the discipline (src/bridge/config.c). A refusal
 * must say why; an accepted request must format back into one that parses
 * to the same request; accepted words must give a configuration the core
 * accepts. Replies are parsed too. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../src/bridge/bridge.h"
#include "../src/bridge/control.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ctl_request r, r2;
	static struct bridge_opts o;
	static char buf[CTL_REQ_MAX + 2], copy[CTL_REQ_MAX + 2];
	char err[256];
	const char *body;
	int i, n, ok;

	if (size > CTL_REQ_MAX + 1)
		return 0;
	err[0] = 0;
	if (ctl_parse_request((const char *)data, size, &r, err, sizeof(err))) {
		if (!err[0])
			abort(); /* a refusal always says why */
	} else {
		if (r.verb != CTL_STATS && r.verb != CTL_RECONFIGURE)
			abort();
		if (r.verb == CTL_RECONFIGURE && (r.nwords < 1 || r.nwords > CTL_MAX_WORDS))
			abort();
		n = ctl_format_request(&r, buf, sizeof(buf));
		if (n < 0 || ctl_parse_request(buf, (size_t)n, &r2, err, sizeof(err)))
			abort(); /* what was accepted goes back into the protocol */
		if (r2.verb != r.verb || r2.nwords != r.nwords ||
		    (r.verb == CTL_STATS && r2.format != r.format))
			abort();
		for (i = 0; i < r.nwords; i++)
			if (strcmp(r.words[i], r2.words[i]))
				abort();
		if (r.verb == CTL_RECONFIGURE) {
			struct choke_params p;

			bridge_opts_init(&o);
			o.rate_bps = 20000000;
			if (bridge_set_words(&o, r.nwords, r.words, err, sizeof(err)) == 0 &&
			    bridge_discipline(&o, &p, err, sizeof(err)) == 0 &&
			    choke_config_check(&p.cfg, NULL))
				abort();
		}
	}
	/* the same bytes as a reply */
	memcpy(copy, data, size);
	copy[size] = 0;
	if (ctl_parse_reply(copy, &ok, &body) == 0 &&
	    (body < copy || body > copy + strlen(copy) || (ok != 0 && ok != 1)))
		abort();
	return 0;
}
