/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* choke replay: what a queue discipline would have done to a capture. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../replay/replay.h"
#include "../util/json.h"
#include "../util/outfile.h"
#include "cli.h"

/* --rate's range: one byte per second to 10 Tbit/s */
/* the exit status of a replay of a capture cut inside a record: the report
 * and --write are complete for the records before the cut */
#define REPLAY_EXIT_CUT 3
#define REPLAY_RATE_MAX_BPS 10000000000000ull

enum { R_RATE = 1, R_JSON, R_TOP, R_WRITE, R_SEED, R_STRICT };

static const struct cli_opt replay_opts[] = {
	{ R_RATE, "rate", CLI_STR, "RATE", "the bottleneck's rate",
	  .form = "a rate in tc's syntax from 8bit to 10tbit, e.g. 10mbit" },
	{ R_JSON, "json", CLI_FLAG, NULL, "the report as one JSON object", .flags = 0 },
	{ R_TOP, "top", CLI_INT, "N", "flows listed, by offered bytes (default 10; 0: all)",
	  .min = 0, .max = UINT32_MAX },
	{ R_WRITE, "write", CLI_STR, "OUT.pcap", "the delivered packets, written only if the "
	  "replay succeeds and never onto FILE (-: standard output; the report then goes to "
	  "standard error)", .flags = 0 },
	{ R_SEED, "seed", CLI_U64, "N", "the seed of the discipline's draws (default 1)",
	  .umax = UINT64_MAX },
	{ R_STRICT, "strict", CLI_FLAG, NULL, "refuse a capture that cannot be replayed "
	  "exactly as recorded: a record that would be skipped, a time changed (a step back "
	  "not put in order), a file cut inside a record", .flags = 0 },
	{ .id = 0 },
};

const struct cli_cmd cli_cmd_replay = {
	.name = "replay",
	.args = "FILE [choke|red|fifo WORDS...]",
	.summary = "what a bottleneck's discipline would have done to a capture",
	.details = "  FILE: pcap or pcapng, - for standard input. Without words: choke limit\n"
		   "  1000 bandwidth RATE; choke and red words get `bandwidth RATE` when they\n"
		   "  lack one; without --rate the words' bandwidth is the rate (fifo needs\n"
		   "  --rate). See docs/replay.md.\n",
	.opts = replay_opts,
	.min_pos = 1,
	.max_pos = -1,
	.run = cmd_replay,
};

static const struct replay_flow *sort_base;

static int by_offered(const void *a, const void *b)
{
	const struct replay_flow *x = &sort_base[*(const uint32_t *)a];
	const struct replay_flow *y = &sort_base[*(const uint32_t *)b];

	if (x->offered_bytes != y->offered_bytes)
		return x->offered_bytes < y->offered_bytes ? 1 : -1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static const char *kind_name(int kind)
{
	switch (kind) {
	case CHOKE_FLOW_KIND_IPV4:
		return "ipv4";
	case CHOKE_FLOW_KIND_IPV6:
		return "ipv6";
	case CHOKE_FLOW_KIND_NONIP:
		return "non-ip";
	case CHOKE_FLOW_KIND_MALFORMED:
		return "malformed";
	case CHOKE_FLOW_KIND_TRUNCATED:
		return "truncated";
	}
	return "?";
}

static void flow_label(const struct replay_flow *f, char *buf, size_t len)
{
	char s[64], d[64], pb[24];

	if (f->key.kind != CHOKE_FLOW_KIND_IPV4 && f->key.kind != CHOKE_FLOW_KIND_IPV6) {
		snprintf(buf, len, "%s ethertype 0x%04x", kind_name(f->key.kind),
			 f->key.ethertype);
		return;
	}
	replay_addr(&f->key, 0, s, sizeof(s));
	replay_addr(&f->key, 1, d, sizeof(d));
	snprintf(buf, len, "%s %s%s%s:%u > %s%s%s:%u",
		 replay_flow_proto(&f->key, pb, sizeof(pb)),
		 f->key.kind == CHOKE_FLOW_KIND_IPV6 ? "[" : "", s,
		 f->key.kind == CHOKE_FLOW_KIND_IPV6 ? "]" : "", f->key.sport,
		 f->key.kind == CHOKE_FLOW_KIND_IPV6 ? "[" : "", d,
		 f->key.kind == CHOKE_FLOW_KIND_IPV6 ? "]" : "", f->key.dport);
}

static void print_text(FILE *out, const char *file, const char *qdesc, uint64_t rate,
		       const struct replay_result *r, const uint32_t *order, uint32_t top)
{
	const struct choke_stats *s = &r->st;
	uint32_t i;

	fprintf(out, "choke replay: %s: %llu records over %.3f s (link type %d)",
	       file, (unsigned long long)r->packets_read, r->capture_seconds,
	       r->linktype);
	if (r->truncated_records)
		fprintf(out, ", %llu records shorter than the packet (snaplen)",
		       (unsigned long long)r->truncated_records);
	if (r->reordered)
		fprintf(out, ", %llu timestamps out of order (%llu put in order, %llu held, "
			"%llu steps back)", (unsigned long long)r->reordered,
			(unsigned long long)r->sorted, (unsigned long long)r->held,
			(unsigned long long)r->steps_back);
	if (r->long_gaps)
		fprintf(out, ", %llu gaps of more than a day (idle)",
			(unsigned long long)r->long_gaps);
	if (r->cut)
		fprintf(out, ", cut inside its last record");
	if (replay_skipped(r)) {
		const char *sep = "";

		fprintf(out, ", %llu skipped (", (unsigned long long)replay_skipped(r));
		if (r->skipped_caplen) {
			fprintf(out, "%llu captured beyond the snaplen",
				(unsigned long long)r->skipped_caplen);
			sep = ", ";
		}
		if (r->skipped_len) {
			fprintf(out, "%s%llu with an absurd length", sep,
				(unsigned long long)r->skipped_len);
			sep = ", ";
		}
		if (r->skipped_time)
			fprintf(out, "%s%llu with a timestamp that is no time", sep,
				(unsigned long long)r->skipped_time);
		fprintf(out, ")");
	}
	fprintf(out, "\nbottleneck %.6g Mbit/s through %s\n\n", (double)rate / 1e6, qdesc);
	fprintf(out, "totals: offered %llu packets (%llu bytes), delivered %llu (%llu bytes), "
	       "dropped %llu, marked %llu\n",
	       (unsigned long long)r->offered_pkts, (unsigned long long)r->offered_bytes,
	       (unsigned long long)r->delivered_pkts,
	       (unsigned long long)r->delivered_bytes, (unsigned long long)r->dropped_pkts,
	       (unsigned long long)r->marked_pkts);
	fprintf(out, "drops:  early %llu, forced %llu, limit %llu, protect %llu, matched %llu "
	       "(%llu arrivals + %llu queued victims)\n",
	       (unsigned long long)s->prob_drop, (unsigned long long)s->forced_drop,
	       (unsigned long long)s->pdrop, (unsigned long long)s->protect_drop,
	       (unsigned long long)(s->matched + s->match_victims),
	       (unsigned long long)s->matched, (unsigned long long)s->match_victims);
	fprintf(out, "queue:  mean %.2f packets (max %u), mean %.0f bytes (max %llu)\n",
	       r->mean_qlen, r->max_qlen, r->mean_backlog,
	       (unsigned long long)r->max_backlog);
	fprintf(out, "delay:  p50 %.3f ms, p99 %.3f ms, max %.3f ms, mean %.3f ms "
	       "(arrival to end of transmission, delivered packets)\n",
	       replay_hist_quantile(r->delay, 0.5) / 1e6,
	       replay_hist_quantile(r->delay, 0.99) / 1e6, (double)r->delay->max / 1e6,
	       r->delay->n ? r->delay->sum / (double)r->delay->n / 1e6 : 0);
	fprintf(out, "link:   %.3f s until the queue drained, utilisation %.3f\n\n",
	       r->end_seconds,
	       r->end_seconds > 0 ? (double)r->delivered_bytes * 8 /
					    ((double)rate * r->end_seconds) : 0);
	fprintf(out, "%s flows by offered bytes (of %u):\n", top == r->nflows ? "all" : "top",
	       r->nflows);
	fprintf(out, "%-54s %9s %11s %9s %6s %7s %7s %7s %7s %7s %7s %7s\n", "flow", "offered",
	       "bytes", "delivered", "share", "early", "forced", "limit", "protect", "m-arr",
	       "m-vict", "marked");
	for (i = 0; i < top; i++) {
		const struct replay_flow *f = &r->flows[order[i]];
		char label[160];

		flow_label(f, label, sizeof(label));
		fprintf(out, "%-54s %9llu %11llu %9llu %6.3f %7llu %7llu %7llu %7llu %7llu %7llu "
		       "%7llu\n",
		       label, (unsigned long long)f->offered_pkts,
		       (unsigned long long)f->offered_bytes,
		       (unsigned long long)f->delivered_pkts,
		       r->delivered_bytes ? (double)f->delivered_bytes /
						    (double)r->delivered_bytes : 0,
		       (unsigned long long)f->drop[CHOKE_DROP_EARLY],
		       (unsigned long long)f->drop[CHOKE_DROP_FORCED],
		       (unsigned long long)f->drop[CHOKE_DROP_LIMIT],
		       (unsigned long long)f->drop[CHOKE_DROP_PROTECT],
		       (unsigned long long)f->drop[CHOKE_DROP_MATCH],
		       (unsigned long long)f->drop_match_victim,
		       (unsigned long long)f->marked_pkts);
	}
}

/* The summary's top n next to the exact counts: estimate, error bound,
 * exact, and whether the exact count lies within [estimate - err,
 * estimate]. */
static uint32_t penalised(const struct replay_result *r, struct choke_hh_item *top,
			  uint32_t n)
{
	return r->hh ? choke_hh_top(r->hh, top, n) : 0;
}

static uint64_t exact_matched(const struct replay_flow *f)
{
	return f->drop[CHOKE_DROP_MATCH] + f->drop_match_victim;
}

static void print_penalised_text(FILE *out, const struct replay_result *r, uint32_t n)
{
	struct choke_hh_item top[REPLAY_HH_K];
	uint32_t got = penalised(r, top, n > REPLAY_HH_K ? REPLAY_HH_K : n), i;

	if (!got)
		return;
	fprintf(out, "\nflows losing most packets to CHOKe matches (Space-Saving, %u counters, "
	       "error bound %llu of %llu):\n", REPLAY_HH_K,
	       (unsigned long long)choke_hh_bound(r->hh),
	       (unsigned long long)choke_hh_total(r->hh));
	fprintf(out, "%-54s %9s %7s %9s\n", "flow", "estimate", "error", "exact");
	for (i = 0; i < got; i++) {
		char label[160];

		flow_label(&r->flows[top[i].flow], label, sizeof(label));
		fprintf(out, "%-54s %9llu %7llu %9llu\n", label, (unsigned long long)top[i].count,
		       (unsigned long long)top[i].err,
		       (unsigned long long)exact_matched(&r->flows[top[i].flow]));
	}
}

static void print_json(FILE *out, const char *file, const char *qdesc, int kind, uint64_t rate,
		       const struct replay_result *r, const uint32_t *order, uint32_t top)
{
	const struct choke_stats *s = &r->st;
	uint32_t i;

	fprintf(out, "{\"file\":");
	json_string(out, file);
	fprintf(out, ",\"linktype\":%d,\"packets_read\":%llu,\"truncated_records\":%llu,"
	       "\"reordered\":%llu,\"time\":{\"sorted\":%llu,\"held\":%llu,"
	       "\"steps_back\":%llu,\"gaps_over_a_day\":%llu},"
	       "\"skipped\":{\"caplen_over_snaplen\":%llu,"
	       "\"bad_length\":%llu,\"bad_time\":%llu},\"cut\":",
	       r->linktype, (unsigned long long)r->packets_read,
	       (unsigned long long)r->truncated_records, (unsigned long long)r->reordered,
	       (unsigned long long)r->sorted, (unsigned long long)r->held,
	       (unsigned long long)r->steps_back, (unsigned long long)r->long_gaps,
	       (unsigned long long)r->skipped_caplen, (unsigned long long)r->skipped_len,
	       (unsigned long long)r->skipped_time);
	if (r->cut)
		json_string(out, r->cut_msg);
	else
		fprintf(out, "null");
	fprintf(out, ",\"capture_seconds\":%.9f,\"end_seconds\":%.9f,\"rate_bps\":%llu,"
		"\"discipline\":", r->capture_seconds, r->end_seconds, (unsigned long long)rate);
	json_string(out, choke_kind_name(kind));
	fprintf(out, ",\"params\":");
	json_string(out, qdesc);
	fprintf(out, ",\"totals\":{\"offered_pkts\":%llu,\"offered_bytes\":%llu,"
	       "\"delivered_pkts\":%llu,\"delivered_bytes\":%llu,\"dropped_pkts\":%llu,"
	       "\"marked_pkts\":%llu,\"drops\":{\"early\":%llu,\"forced\":%llu,"
	       "\"limit\":%llu,\"protect\":%llu,\"match_arrival\":%llu,\"match_victim\":%llu},"
	       "\"matched\":%llu},",
	       (unsigned long long)r->offered_pkts, (unsigned long long)r->offered_bytes,
	       (unsigned long long)r->delivered_pkts,
	       (unsigned long long)r->delivered_bytes, (unsigned long long)r->dropped_pkts,
	       (unsigned long long)r->marked_pkts, (unsigned long long)s->prob_drop,
	       (unsigned long long)s->forced_drop, (unsigned long long)s->pdrop,
	       (unsigned long long)s->protect_drop, (unsigned long long)s->matched,
	       (unsigned long long)s->match_victims, (unsigned long long)s->matched);
	fprintf(out, "\"queue\":{\"mean_pkts\":%.6f,\"max_pkts\":%u,\"mean_bytes\":%.3f,"
	       "\"max_bytes\":%llu},\"delay_ms\":{\"p50\":%.6f,\"p99\":%.6f,"
	       "\"max\":%.6f,\"mean\":%.6f},\"written\":%llu,\"flows\":[",
	       r->mean_qlen, r->max_qlen, r->mean_backlog,
	       (unsigned long long)r->max_backlog,
	       replay_hist_quantile(r->delay, 0.5) / 1e6,
	       replay_hist_quantile(r->delay, 0.99) / 1e6, (double)r->delay->max / 1e6,
	       r->delay->n ? r->delay->sum / (double)r->delay->n / 1e6 : 0,
	       (unsigned long long)r->written);
	for (i = 0; i < top; i++) {
		const struct replay_flow *f = &r->flows[order[i]];
		char s1[64], s2[64], pb[24];

		replay_addr(&f->key, 0, s1, sizeof(s1));
		replay_addr(&f->key, 1, s2, sizeof(s2));
		fprintf(out, "%s{\"kind\":", i ? "," : "");
		json_string(out, kind_name(f->key.kind));
		fprintf(out, ",\"ethertype\":%u,\"proto\":", f->key.ethertype);
		json_string(out, replay_flow_proto(&f->key, pb, sizeof(pb)));
		fprintf(out, ",\"src\":");
		json_string(out, s1);
		fprintf(out, ",\"dst\":");
		json_string(out, s2);
		fprintf(out, ",\"sport\":%u,\"dport\":%u,\"offered_pkts\":%llu,"
		       "\"offered_bytes\":%llu,\"delivered_pkts\":%llu,"
		       "\"delivered_bytes\":%llu,\"dropped_pkts\":%llu,\"marked_pkts\":%llu,"
		       "\"share\":%.6f,\"drops\":{\"early\":%llu,\"forced\":%llu,"
		       "\"limit\":%llu,\"protect\":%llu,\"match_arrival\":%llu,"
		       "\"match_victim\":%llu}}",
		       f->key.sport, f->key.dport, (unsigned long long)f->offered_pkts,
		       (unsigned long long)f->offered_bytes,
		       (unsigned long long)f->delivered_pkts,
		       (unsigned long long)f->delivered_bytes,
		       (unsigned long long)replay_flow_drops(f),
		       (unsigned long long)f->marked_pkts,
		       r->delivered_bytes ? (double)f->delivered_bytes /
						    (double)r->delivered_bytes : 0,
		       (unsigned long long)f->drop[CHOKE_DROP_EARLY],
		       (unsigned long long)f->drop[CHOKE_DROP_FORCED],
		       (unsigned long long)f->drop[CHOKE_DROP_LIMIT],
		       (unsigned long long)f->drop[CHOKE_DROP_PROTECT],
		       (unsigned long long)f->drop[CHOKE_DROP_MATCH],
		       (unsigned long long)f->drop_match_victim);
	}
	fprintf(out, "]");
	{
		struct choke_hh_item hh[REPLAY_HH_K];
		uint32_t got = penalised(r, hh, REPLAY_HH_K);

		fprintf(out, ",\"penalised\":{\"counters\":%u,\"total\":%llu,\"bound\":%llu,"
		       "\"flows\":[", REPLAY_HH_K,
		       (unsigned long long)(r->hh ? choke_hh_total(r->hh) : 0),
		       (unsigned long long)(r->hh ? choke_hh_bound(r->hh) : 0));
		for (i = 0; i < got; i++) {
			const struct replay_flow *f = &r->flows[hh[i].flow];
			char s1[64], s2[64], pb[24];

			replay_addr(&f->key, 0, s1, sizeof(s1));
			replay_addr(&f->key, 1, s2, sizeof(s2));
			fprintf(out, "%s{\"proto\":", i ? "," : "");
			json_string(out, replay_flow_proto(&f->key, pb, sizeof(pb)));
			fprintf(out, ",\"src\":");
			json_string(out, s1);
			fprintf(out, ",\"dst\":");
			json_string(out, s2);
			fprintf(out, ",\"sport\":%u,\"dport\":%u,\"estimate\":%llu,\"error\":%llu,"
			       "\"exact\":%llu}",
			       f->key.sport, f->key.dport,
			       (unsigned long long)hh[i].count, (unsigned long long)hh[i].err,
			       (unsigned long long)exact_matched(f));
		}
		fprintf(out, "]}}\n");
	}
}

/* the signal that stops a replay (SIGINT, SIGTERM), 0 if none */
static volatile sig_atomic_t replay_signal;

static void on_signal(int sig)
{
	replay_signal = sig;
}

/* what was skipped or adjusted in the capture, on standard error */
static void warn_input(const char *file, const struct replay_result *r)
{
	if (replay_skipped(r))
		fprintf(stderr, "choke: replay: warning: %s: %llu of %llu records skipped "
			"(first: %s); --strict refuses such a capture\n", file,
			(unsigned long long)replay_skipped(r),
			(unsigned long long)r->packets_read, r->first_skip);
	if (r->sorted)
		fprintf(stderr, "choke: replay: warning: %s: %llu timestamps earlier than the "
			"record before them, put back in order of time\n", file,
			(unsigned long long)r->sorted);
	if (r->held)
		fprintf(stderr, "choke: replay: warning: %s: %llu timestamps earlier than "
			"records already replayed (beyond the window of %u records), "
			"each replayed at the time of the last of them\n", file,
			(unsigned long long)r->held, REPLAY_REORDER_MAX);
	if (r->steps_back)
		fprintf(stderr, "choke: replay: warning: %s: %llu steps back of more than "
			"%.0f s, each taken as the capture's clock stepping back (the records "
			"after it keep their spacing and follow on)\n", file,
			(unsigned long long)r->steps_back, REPLAY_REORDER_NS * 1e-9);
	if (r->long_gaps)
		fprintf(stderr, "choke: replay: note: %s: %llu gaps of more than a day, "
			"replayed as idle time\n", file, (unsigned long long)r->long_gaps);
	if (r->cut)
		fprintf(stderr, "choke: replay: warning: %s is cut: %s; the %llu records "
			"before it are replayed and reported (exit status %d)\n", file,
			r->cut_msg, (unsigned long long)r->packets_read, REPLAY_EXIT_CUT);
}

int cmd_replay(int argc, char **argv)
{
	struct replay_opts o;
	struct replay_result res;
	struct choke_params prm;
	struct outfile of;
	struct cli_parser ps;
	struct sigaction sa, old_int, old_term;
	const char *rate_str = NULL, *write_path = NULL;
	char *words[80];
	char qdesc[300], ratebuf[64], err[256];
	int json = 0, i, nw = 0, kind = CHOKE_KIND_CHOKE, has_bw = 0, rc, id;
	uint64_t top = 10;
	uint32_t *order, ntop, f;
	FILE *report = stdout;

	memset(&o, 0, sizeof(o));
	o.seed = 1;
	cli_parser_init(&ps, &cli_cmd_replay, argc, argv);
	while ((id = cli_next(&ps)) > 0) {
		switch (id) {
		case R_RATE: rate_str = ps.val; break;
		case R_JSON: json = 1; break;
		case R_TOP: top = (uint64_t)ps.i; break;
		case R_WRITE: write_path = ps.val; break;
		case R_SEED: o.seed = ps.u; break;
		case R_STRICT: o.strict = 1; break;
		}
	}
	if (id < 0)
		return ps.status;
	o.file = ps.pos[0];
	if (ps.npos - 1 > 70) {
		fprintf(stderr, "choke: replay: too many words (at most 70)\n");
		return 1;
	}
	for (i = 1; i < ps.npos; i++) {
		if (nw == 0 && choke_kind_from_word(ps.pos[i]) >= 0)
			kind = choke_kind_from_word(ps.pos[i]);
		if (!strcmp(ps.pos[i], "bandwidth"))
			has_bw = 1;
		words[nw++] = ps.pos[i];
	}
	if (rate_str) {
		uint64_t bytes;

		if (choke_tc_get_rate(rate_str, 1, &bytes) || bytes == 0 ||
		    bytes > REPLAY_RATE_MAX_BPS / 8)
			return cli_refuse(&cli_cmd_replay, cli_cmd_opt(&cli_cmd_replay, R_RATE),
					  rate_str);
		o.rate_bps = bytes * 8;
	}
	if (nw == 0) {
		if (!rate_str)
			return cli_usage_error(&cli_cmd_replay, "--rate is required without "
					       "discipline words");
		words[nw++] = "choke";
		words[nw++] = "limit";
		words[nw++] = "1000";
	}
	if (kind != CHOKE_KIND_FIFO && !has_bw) {
		if (!rate_str)
			return cli_usage_error(&cli_cmd_replay, "give --rate or a bandwidth");
		snprintf(ratebuf, sizeof(ratebuf), "%s", rate_str);
		words[nw++] = "bandwidth";
		words[nw++] = ratebuf;
	}
	if (kind == CHOKE_KIND_FIFO && !rate_str)
		return cli_usage_error(&cli_cmd_replay, "fifo needs --rate");
	if (cli_parse_discipline(nw, words, 0, 0, &prm))
		return 1;
	cli_print_warnings(&prm);
	if (!rate_str) {
		if (prm.bandwidth_bytes_per_sec == 0 || prm.bandwidth_bytes_per_sec > REPLAY_RATE_MAX_BPS / 8) {
			fprintf(stderr, "choke: replay: the bandwidth must be from 8bit to "
				"10tbit to be the link's rate\n");
			return 1;
		}
		o.rate_bps = prm.bandwidth_bytes_per_sec * 8;
	}
	o.q = prm.cfg;
	{
		char line[256];

		choke_params_format(&prm.cfg, line, sizeof(line));
		snprintf(qdesc, sizeof(qdesc), "%s %s", choke_kind_name(kind), line);
	}

	if (write_path) {
		if (!strcmp(write_path, "-") && isatty(1)) {
			fprintf(stderr, "choke: replay: --write -: standard output is a "
				"terminal; redirect it to a file or a pipe\n");
			return 1;
		}
		if (outfile_open(&of, write_path, o.file, err, sizeof(err))) {
			fprintf(stderr, "choke: replay: --write: %s\n", err);
			return 1;
		}
		o.write_to = of.fp;
		if (of.to_stdout)
			report = stderr; /* standard output carries the packets */
	}
	/* a signal stops the replay; the output file is then not written */
	replay_signal = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	o.stop = &replay_signal;
	rc = replay_run(&o, &res, err, sizeof(err));
	if (!rc && replay_signal) {
		replay_result_free(&res);
		rc = -EINTR;
	}
	if (rc) {
		if (write_path)
			outfile_abort(&of);
		if (replay_signal)
			fprintf(stderr, "choke: replay: interrupted by signal %d; no report%s\n",
				(int)replay_signal, write_path ? " and no output file" : "");
		else
			fprintf(stderr, "choke: replay: %s\n", err);
	} else if (write_path && outfile_commit(&of, err, sizeof(err))) {
		fprintf(stderr, "choke: replay: --write: %s\n", err);
		replay_result_free(&res);
		rc = -EIO;
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (rc)
		return 1;

	order = malloc(((size_t)res.nflows + 1) * sizeof(*order));
	if (!order) {
		fprintf(stderr, "choke: replay: out of memory\n");
		replay_result_free(&res);
		return 1;
	}
	for (f = 0; f < res.nflows; f++)
		order[f] = f;
	sort_base = res.flows;
	qsort(order, res.nflows, sizeof(*order), by_offered);
	ntop = top == 0 || top > res.nflows ? res.nflows : (uint32_t)top;
	if (json) {
		print_json(report, o.file, qdesc, kind, o.rate_bps, &res, order, ntop);
	} else {
		print_text(report, o.file, qdesc, o.rate_bps, &res, order, ntop);
		print_penalised_text(report, &res, top == 0 ? 10 : (uint32_t)top);
	}
	free(order);
	warn_input(o.file, &res);
	rc = res.cut ? REPLAY_EXIT_CUT : 0;
	replay_result_free(&res);
	if (fflush(report) || ferror(report)) {
		fprintf(stderr, "choke: replay: writing the report failed\n");
		return 1;
	}
	return rc;
}
