/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* Sweeps across machines: shard files and their merge; see shard.h. */
#include "shard.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC "choke-sim-shard 1\n"
#define TRAILER "end\n"
#define ORDER 0x01020304u
#define MAX_WORDS 300

static int shard_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int shard_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

int sim_shard_parse(const char *s, int *k, int *n, char *err, size_t errlen)
{
	const char *slash = strchr(s, '/'), *p;
	long kv, nv;

	if (!slash || slash == s || !slash[1])
		goto bad;
	for (p = s; *p; p++)
		if (p != slash && (*p < '0' || *p > '9'))
			goto bad;
	if (slash - s > 6 || strlen(slash + 1) > 6)
		goto bad;
	kv = strtol(s, NULL, 10);
	nv = strtol(slash + 1, NULL, 10);
	if (nv < 1 || nv > SIM_MAX_SHARDS || kv < 1 || kv > nv)
		goto bad;
	*k = (int)kv;
	*n = (int)nv;
	return 0;
bad:
	return shard_err(err, errlen, "--shard needs K/N with 1 <= K <= N <= %d, not \"%s\"",
			 SIM_MAX_SHARDS, s);
}

struct hdr {
	uint32_t order, sz_res, sz_flow, sz_ser;
	int32_t k, n, nruns, nwords;
	uint64_t fp;
};

/* FNV-1a, 64 bits */
static uint64_t fnv(uint64_t h, const void *buf, size_t n)
{
	const unsigned char *q = buf;

	while (n--)
		h = (h ^ *q++) * 0x100000001b3ull;
	return h;
}

/* The plan's words in order: scenario name, seed, qdisc, sweep, the sets. */
static int plan_words(const struct sim_plan *p, const char **w)
{
	int i, n = 0;

	w[n++] = p->name;
	w[n++] = p->seed;
	w[n++] = p->qdisc;
	w[n++] = p->sweep;
	for (i = 0; i < p->nsets && n < MAX_WORDS; i++)
		w[n++] = p->sets[i];
	return n;
}

/* The fingerprint of the words and of the scenario file's bytes (path ""
 * for the built-in one). */
static int fingerprint(const char *const *w, int nw, const char *path, uint64_t *fp, char *err,
		       size_t errlen)
{
	uint64_t h = 0xcbf29ce484222325ull;
	char buf[4096];
	size_t got;
	FILE *f;
	int i;

	for (i = 0; i < nw; i++) {
		h = fnv(h, w[i] ? "1" : "0", 1);
		if (w[i])
			h = fnv(h, w[i], strlen(w[i]) + 1);
	}
	if (path[0]) {
		f = fopen(path, "rb");
		if (!f)
			return shard_err(err, errlen, "%s: %s", path, strerror(errno));
		while ((got = fread(buf, 1, sizeof(buf), f)) > 0)
			h = fnv(h, buf, got);
		i = ferror(f);
		fclose(f);
		if (i)
			return shard_err(err, errlen, "%s: cannot read it", path);
	}
	*fp = h;
	return 0;
}

int sim_shard_write(FILE *f, const struct sim_batch *b, const struct sim_plan *p, int k, int n,
		    char *err, size_t errlen)
{
	const char *w[MAX_WORDS];
	struct hdr h;
	int32_t len, end = -1;
	int i, nw = plan_words(p, w);

	memset(&h, 0, sizeof(h));
	h.order = ORDER;
	h.sz_res = sizeof(struct sim_result);
	h.sz_flow = sizeof(struct sim_flow_result);
	h.sz_ser = sizeof(struct sim_series_point);
	h.k = k;
	h.n = n;
	h.nruns = b->n;
	h.nwords = nw;
	if (fingerprint(w, nw, b->input, &h.fp, err, errlen))
		return -1;
	fputs(MAGIC, f);
	fwrite(&h, sizeof(h), 1, f);
	for (i = 0; i < nw; i++) {
		len = w[i] ? (int32_t)strlen(w[i]) : -1;
		fwrite(&len, sizeof(len), 1, f);
		if (w[i])
			fwrite(w[i], 1, (size_t)len, f);
	}
	for (i = 0; i < b->n; i++) {
		const struct sim_result *r = &b->runs[i].res;
		int32_t idx = i;

		if (!sim_run_in_shard(i, k, n))
			continue;
		fwrite(&idx, sizeof(idx), 1, f);
		fwrite(r, sizeof(*r), 1, f);
		fwrite(r->flows, sizeof(*r->flows), r->nflows, f);
		fwrite(r->series, sizeof(*r->series), r->nseries, f);
	}
	fwrite(&end, sizeof(end), 1, f);
	fputs(TRAILER, f);
	if (fflush(f) || ferror(f))
		return shard_err(err, errlen, "writing the shard failed");
	return 0;
}

/* One shard file read: its header, words and records. */
struct shard {
	const char *path;
	struct hdr h;
	char *words[MAX_WORDS];
	FILE *f;
};

static int rd(struct shard *s, void *buf, size_t n, char *err, size_t errlen)
{
	if (n && fread(buf, 1, n, s->f) != n)
		return shard_err(err, errlen, "%s: truncated (a shard that did not finish?)",
				 s->path);
	return 0;
}

static void shard_close(struct shard *s)
{
	int i;

	for (i = 0; i < MAX_WORDS; i++)
		free(s->words[i]);
	if (s->f)
		fclose(s->f);
	memset(s, 0, sizeof(*s));
}

static int shard_open(struct shard *s, const char *path, char *err, size_t errlen)
{
	char magic[sizeof(MAGIC)];
	int32_t len;
	int i;

	memset(s, 0, sizeof(*s));
	s->path = path;
	s->f = fopen(path, "rb");
	if (!s->f)
		return shard_err(err, errlen, "%s: %s", path, strerror(errno));
	if (fread(magic, 1, sizeof(MAGIC) - 1, s->f) != sizeof(MAGIC) - 1 ||
	    memcmp(magic, MAGIC, sizeof(MAGIC) - 1))
		return shard_err(err, errlen, "%s: not a shard file of choke sim --shard", path);
	if (rd(s, &s->h, sizeof(s->h), err, errlen))
		return -1;
	if (s->h.order != ORDER || s->h.sz_res != sizeof(struct sim_result) ||
	    s->h.sz_flow != sizeof(struct sim_flow_result) ||
	    s->h.sz_ser != sizeof(struct sim_series_point))
		return shard_err(err, errlen, "%s: written by another build of choke or another "
				 "kind of machine; merge with the build that ran the shards", path);
	if (s->h.n < 1 || s->h.n > SIM_MAX_SHARDS || s->h.k < 1 || s->h.k > s->h.n ||
	    s->h.nruns < 1 || s->h.nwords < 4 || s->h.nwords > MAX_WORDS)
		return shard_err(err, errlen, "%s: a damaged shard file", path);
	for (i = 0; i < s->h.nwords; i++) {
		if (rd(s, &len, sizeof(len), err, errlen))
			return -1;
		if (len < 0)
			continue;
		if (len > 65536)
			return shard_err(err, errlen, "%s: a damaged shard file", path);
		s->words[i] = calloc((size_t)len + 1, 1);
		if (!s->words[i])
			return shard_err(err, errlen, "out of memory");
		if (rd(s, s->words[i], (size_t)len, err, errlen))
			return -1;
	}
	return 0;
}

static int same_words(const struct shard *a, const struct shard *b)
{
	int i;

	if (a->h.nwords != b->h.nwords || a->h.fp != b->h.fp || a->h.nruns != b->h.nruns)
		return 0;
	for (i = 0; i < a->h.nwords; i++)
		if (!a->words[i] != !b->words[i] ||
		    (a->words[i] && strcmp(a->words[i], b->words[i])))
			return 0;
	return 1;
}

/* Read s's records into b; seen[i] marks the runs filled. */
static int shard_load(struct shard *s, struct sim_batch *b, char *seen, char *err,
		      size_t errlen)
{
	char trailer[sizeof(TRAILER)];
	int32_t idx;

	for (;;) {
		struct sim_result *r;
		struct sim_flow_result *fl;
		struct sim_series_point *ser;

		if (rd(s, &idx, sizeof(idx), err, errlen))
			return -1;
		if (idx == -1)
			break;
		if (idx < 0 || idx >= b->n || !sim_run_in_shard(idx, s->h.k, s->h.n) || seen[idx])
			return shard_err(err, errlen, "%s: a damaged shard file", s->path);
		r = &b->runs[idx].res;
		if (rd(s, r, sizeof(*r), err, errlen)) {
			memset(r, 0, sizeof(*r));
			return -1;
		}
		r->flows = NULL;
		r->series = NULL;
		if (r->nflows > 10000000 || r->nseries > SIM_SERIES_MAX) {
			memset(r, 0, sizeof(*r));
			return shard_err(err, errlen, "%s: a damaged shard file", s->path);
		}
		fl = calloc(r->nflows ? r->nflows : 1, sizeof(*fl));
		ser = r->nseries ? calloc(r->nseries, sizeof(*ser)) : NULL;
		r->flows = fl;
		r->series = ser;
		if (!fl || (r->nseries && !ser))
			return shard_err(err, errlen, "out of memory");
		if (rd(s, fl, r->nflows * sizeof(*fl), err, errlen) ||
		    rd(s, ser, r->nseries * sizeof(*ser), err, errlen))
			return -1;
		seen[idx] = 1;
	}
	if (rd(s, trailer, sizeof(TRAILER) - 1, err, errlen))
		return -1;
	if (memcmp(trailer, TRAILER, sizeof(TRAILER) - 1) || fgetc(s->f) != EOF)
		return shard_err(err, errlen, "%s: a damaged shard file", s->path);
	return 0;
}

int sim_shard_merge(struct sim_batch *b, const char *const *paths, int npaths, char *err,
		    size_t errlen)
{
	struct shard first, s;
	struct sim_plan p;
	const char *w[MAX_WORDS];
	char *seen = NULL, *have = NULL;
	int *from = NULL;
	uint64_t fp;
	int i, nw, rc = -1;

	sim_batch_init(b);
	if (npaths < 1)
		return shard_err(err, errlen, "give the shard files to merge");
	if (shard_open(&first, paths[0], err, errlen)) {
		shard_close(&first);
		return -1;
	}
	memset(&s, 0, sizeof(s));
	memset(&p, 0, sizeof(p));
	p.name = first.words[0];
	p.seed = first.words[1];
	p.qdisc = first.words[2];
	p.sweep = first.words[3];
	p.sets = (const char *const *)first.words + 4;
	p.nsets = first.h.nwords - 4;
	if (!p.sweep) {
		shard_err(err, errlen, "%s: a damaged shard file", paths[0]);
		goto out;
	}
	if (sim_batch_plan(b, &p, err, errlen))
		goto out;
	nw = plan_words(&p, w);
	if (fingerprint(w, nw, b->input, &fp, err, errlen))
		goto out;
	if (fp != first.h.fp || b->n != first.h.nruns) {
		shard_err(err, errlen, "%s: the scenario %s here is not the file the shards ran "
			  "(its contents differ); merge where the same scenario file is found",
			  paths[0], b->input[0] ? b->input : "(built in)");
		goto out;
	}
	seen = calloc((size_t)b->n, 1);
	have = calloc((size_t)first.h.n + 1, 1);
	from = calloc((size_t)first.h.n + 1, sizeof(*from));
	if (!seen || !have || !from) {
		shard_err(err, errlen, "out of memory");
		goto out;
	}
	for (i = 0; i < npaths; i++) {
		struct shard *c = i ? &s : &first;

		if (i && shard_open(&s, paths[i], err, errlen))
			goto out;
		if (!same_words(&first, c)) {
			shard_err(err, errlen, "%s and %s are shards of different sweeps (the "
				  "scenario, --set, --seed, --qdisc or --sweep differ)", paths[0],
				  paths[i]);
			goto out;
		}
		if (c->h.n != first.h.n) {
			shard_err(err, errlen, "%s is shard %d/%d but %s is shard %d/%d: give the "
				  "shards of one split", paths[i], c->h.k, c->h.n, paths[0],
				  first.h.k, first.h.n);
			goto out;
		}
		if (have[c->h.k]) {
			shard_err(err, errlen, "%s and %s are both shard %d/%d",
				  paths[from[c->h.k]], paths[i], c->h.k, c->h.n);
			goto out;
		}
		have[c->h.k] = 1;
		from[c->h.k] = i;
		if (shard_load(c, b, seen, err, errlen))
			goto out;
		if (i)
			shard_close(&s);
	}
	for (i = 1; i <= first.h.n; i++) {
		if (!have[i]) {
			shard_err(err, errlen, "shard %d/%d is missing (%d of %d given)", i,
				  first.h.n, npaths, first.h.n);
			goto out;
		}
	}
	for (i = 0; i < b->n; i++) {
		if (!seen[i]) {
			shard_err(err, errlen, "%s: a damaged shard file (run %d missing)",
				  paths[0], i);
			goto out;
		}
	}
	rc = 0;
out:
	shard_close(&s);
	shard_close(&first);
	free(seen);
	free(have);
	free(from);
	return rc;
}
