/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* libFuzzer target: what `choke exporter` reads from others (src/exporter/).
 * The first byte picks the reader, the rest is its input:
 *   0: an HTTP request head (http.c): a verdict from the allowed set, and a
 *      verdict, once given, stays the same whatever bytes follow (and so
 *      does the page asked for); the scrape timeout read from a head it
 *      accepted is absent or within its bounds;
 *   1: a bridge's exposition (merge.c): a refusal says why and changes
 *      nothing; what is accepted writes back out as an exposition that is
 *      accepted again;
 *   2: a buffer of an rtnetlink qdisc dump, then the same as a link dump
 *      (nlqdisc.c): whatever was parsed, widened against itself read before
 *      (nlq_widen), renders (qdisc_om.c) as an exposition that is
 *      accepted. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netlink.h>

#include "../src/exporter/http.h"
#include "../src/exporter/merge.h"
#include "../src/exporter/nlqdisc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* text + "# EOF\n" must be accepted by a fresh set */
static void must_reparse(const char *text, size_t len)
{
	struct om_set again = { NULL, 0, 0 };
	char err[300], *buf = malloc(len + 7);

	if (!buf)
		return;
	memcpy(buf, text, len);
	memcpy(buf + len, "# EOF\n", 6);
	if (om_merge(&again, buf, len + 6, "again", "x", NULL, NULL, err, sizeof(err))) {
		fprintf(stderr, "written back and refused: %s\n", err);
		abort();
	}
	om_free(&again);
	free(buf);
}

static char *written(const struct om_set *set, size_t *len)
{
	char *t = NULL;
	FILE *f = open_memstream(&t, len);

	if (!f)
		abort();
	om_write(f, set);
	fclose(f);
	return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int ok[] = { 0, 200, 400, 404, 405, 431, 505 };
	char err[300];
	int which, head, v, w, k;
	enum http_page page, wpage;

	if (size < 1 || size > (1 << 20))
		return 0;
	which = data[0] % 3;
	data++, size--;
	if (which == 0) {
		const char *s = (const char *)data;
		size_t cut;

		if (size > 2 * HTTP_MAX_HEAD)
			return 0;
		v = http_judge(s, size, &head, &page);
		for (k = 0; k < 7 && ok[k] != v; k++)
			;
		if (k == 7)
			abort();
		if (v == 200) {
			long ms = http_scrape_timeout_ms(s, size);

			if (ms != -1 && (ms < 1 || ms > 3600000))
				abort();
		}
		/* a verdict on a prefix is the verdict on the whole */
		for (cut = 0; cut < size && cut <= HTTP_MAX_HEAD; cut += 1 + cut / 16) {
			w = http_judge(s, cut, &head, &wpage);
			if (w != 0 && (w != v || (w == 200 && wpage != page))) {
				fprintf(stderr, "%d at %zu bytes, %d at %zu\n", w, cut, v, size);
				abort();
			}
		}
	} else if (which == 1) {
		struct om_set set = { NULL, 0, 0 };
		char *before, *after;
		size_t blen, alen;

		static const char first[] = "# TYPE choke_bridge_x_total counter\n"
					    "choke_bridge_x_total 1\n# EOF\n";

		/* a first source, then this one */
		static const char *const no_samples[] = { "choke_bridge_y", NULL };

		if (om_merge(&set, first, sizeof(first) - 1, "bridge", "first", NULL, NULL, err,
			     sizeof(err)))
			abort();
		before = written(&set, &blen);
		err[0] = 0;
		if (om_merge(&set, (const char *)data, size, "bridge", "b\"\\\n", NULL, no_samples,
			     err, sizeof(err))) {
			after = written(&set, &alen);
			if (!err[0] || alen != blen || memcmp(before, after, blen))
				abort(); /* a refusal says why and changes nothing */
			free(after);
		}
		after = written(&set, &alen);
		must_reparse(after, alen);
		free(before);
		free(after);
		om_free(&set);
	} else {
		struct nlq_set s = { NULL, 0, 0, 0 };
		struct nlq_history hist = { NULL, 0 };
		struct nlmsghdr h;
		uint32_t seq = 0;
		char *out = NULL;
		size_t olen = 0;
		FILE *f;

		if (size >= sizeof(h)) {
			memcpy(&h, data, sizeof(h));
			seq = h.nlmsg_seq;
		}
		nlq_parse_qdiscs(data, size, seq, &s, err, sizeof(err));
		nlq_parse_links(data, size, seq, &s, err, sizeof(err));
		/* twice: the second reading widens against the first */
		nlq_widen(&hist, &s);
		nlq_widen(&hist, &s);
		nlq_history_free(&hist);
		f = open_memstream(&out, &olen);
		if (!f)
			abort();
		nlq_write_metrics(f, &s);
		fclose(f);
		must_reparse(out, olen);
		free(out);
		nlq_free(&s);
	}
	return 0;
}
