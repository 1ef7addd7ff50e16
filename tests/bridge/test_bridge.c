/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * The bridge's rooms without root or interfaces: the data path driven on
 * in-memory rings through a fixed load (scenario.h), its renderings against
 * the output of the bridge before it was split (golden/scenario.out, made
 * by the pre-split bridge: tests/bridge/golden_old.c in the commit that
 * added it), the OpenMetrics rendering's form, the
 * options and configuration file, and the control protocol.
 * Usage: bridge-tests [GOLDEN_DIR]   (default tests/bridge/golden)
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/bridge/bridge.h"
#include "../../src/bridge/control.h"
#include "../../src/bridge/dataplane.h"
#include "../../src/bridge/stats.h"
#include "fakering.h"
#include "scenario.h"

static int fails, checks;

#define CHECK(cond, ...)                                                     \
	do {                                                                 \
		checks++;                                                    \
		if (!(cond)) {                                               \
			fails++;                                             \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);          \
			printf(__VA_ARGS__);                                 \
			printf("\n");                                        \
		}                                                            \
	} while (0)

static const char *golden_dir = "tests/bridge/golden";

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n)
		n = 0;
	buf[n] = 0;
	fclose(f);
	return buf;
}

/* ---- the data path ---- */

struct sink {
	uint32_t n;
	uint8_t last[FAKE_FRAME_SIZE];
	uint32_t last_len;
};

static void sent(void *ctx, const uint8_t *f, uint32_t len)
{
	struct sink *s = ctx;

	s->n++;
	memcpy(s->last, f, len);
	s->last_len = len;
}

static void set_words(struct bridge_opts *o, int n, char **w)
{
	char err[256];

	if (bridge_set_words(o, n, w, err, sizeof(err)))
		printf("FAIL words: %s\n", err);
}

static void test_scenario(void)
{
	static struct dp_dir d[2];
	static struct bridge_opts o;
	struct stats_snapshot *snap = calloc(1, sizeof(*snap));
	char *w0[] = { "limit", "300", "min", "20", "max", "60", "ecn" };
	char *w1[] = { "limit", "12", "min", "3", "max", "9", "ecn" };
	char err[512], path[512], *out = NULL, *golden;
	uint32_t rxk[2] = { 0, 0 }, txk[2] = { 0, 0 }, step, back_in = 0;
	struct sink sink[2];
	struct choke_params q;
	struct dp_config c;
	uint64_t now = SCEN_T0;
	size_t outlen = 0;
	FILE *f = open_memstream(&out, &outlen);
	int i;

	memset(sink, 0, sizeof(sink));
	bridge_opts_init(&o);
	o.rate_bps = 20000000;
	set_words(&o, 7, w0);
	CHECK(bridge_discipline(&o, &q, err, sizeof(err)) == 0, "%s", err);
	memset(&c, 0, sizeof(c));
	c.max_frame = 1500 + 14 + 8 + 4;
	c.rate_bps = o.rate_bps;
	c.q = &q;
	c.seed = 1;
	for (i = 0; i < 2; i++) {
		memset(&d[i], 0, sizeof(d[i]));
		fake_rx_init(&d[i].rx, 256);
		fake_tx_init(&d[i].tx, 256);
		c.in = i ? "tst-b" : "tst-a";
		c.out = i ? "tst-a" : "tst-b";
		c.shaped = !i;
		c.index = (unsigned)i;
		CHECK(dp_init(&d[i], &c, now, err, sizeof(err)) == 0, "dp_init: %s", err);
	}
	for (step = 0; step < SCEN_STEPS; step++) {
		now = SCEN_T0 + step * SCEN_STEP_NS;
		for (i = 0; i < 2; i++) {
			struct pb fr[4];
			uint32_t st[4];
			int k, n = scen_frames(step, i, fr, st);

			for (k = 0; k < n; k++)
				fake_rx_push(&d[i].rx, &rxk[i], fr[k].d, (uint32_t)fr[k].len, st[k]);
			if (i == 1 && n) {
				dp_receive(&d[i], now);
				dp_transmit(&d[i], now);
				fake_tx_complete(&d[i].tx, &txk[i], sent, &sink[i]);
				/* unshaped: out at once, unchanged */
				back_in += (uint32_t)n;
				CHECK(sink[1].n == back_in && sink[1].last_len == fr[n - 1].len &&
				      !memcmp(sink[1].last, fr[n - 1].d, fr[n - 1].len),
				      "reverse frame %u not forwarded as it came", back_in);
				continue;
			}
			dp_receive(&d[i], now);
			dp_transmit(&d[i], now);
			fake_tx_complete(&d[i].tx, &txk[i], sent, &sink[i]);
		}
		if (step == 15000 || step == 17000) { /* shrink, then grow back */
			char line[256];

			set_words(&o, 7, step == 15000 ? w1 : w0);
			CHECK(bridge_discipline(&o, &q, err, sizeof(err)) == 0, "%s", err);
			for (i = 0; i < 2; i++)
				CHECK(dp_reconfigure(&d[i], &q, err, sizeof(err)) == 0, "%s", err);
			choke_params_format(&q.cfg, line, sizeof(line));
			fprintf(f, "ok: %s\n", line);
		}
		if (step % 10000 == 9999)
			for (i = 0; i < 2; i++)
				dp_tick(&d[i], now);
	}
	snap->pid = 1;
	snap->uptime_s = 2.0;
	snap->ndirs = 2;
	for (i = 0; i < 2; i++) {
		stats_take_dir(&d[i], &snap->d[i]);
		stats_read_if(d[i].in, &snap->d[i].if_in);
		stats_read_if(d[i].out, &snap->d[i].if_out);
	}
	stats_write_text(f, snap);
	stats_write_json(f, snap);
	fclose(f);
	snprintf(path, sizeof(path), "%s/scenario.out", golden_dir);
	golden = read_file(path);
	CHECK(golden && !strcmp(out, golden),
	      "renderings differ from %s (got below)\n%s", path, out);
	free(golden);
	free(out);

	/* the counters conserve frames */
	{
		const struct stats_dir *s = &snap->d[0];
		const struct choke_stats *qs = &s->q;

		CHECK(s->c.rx_frames == s->c.tx_frames + (qs->drops - qs->other_drop) +
		      s->c.drop_ring_full + s->c.drop_oversize + s->c.drop_reconfig + s->qlen,
		      "conservation");
		CHECK(qs->drops == qs->prob_drop + qs->forced_drop + qs->pdrop + qs->matched +
		      qs->match_victims + qs->other_drop, "drops by reason add up");
		CHECK(sink[0].n == s->c.tx_frames, "sent %u, counted %llu", sink[0].n,
		      (unsigned long long)s->c.tx_frames);
		CHECK(s->delay_q_ns[0] > 0 && s->delay_q_ns[0] <= s->delay_q_ns[1] &&
		      s->delay_q_ns[1] <= s->delay_q_ns[2] && s->delay_q_ns[2] <= s->delay_q_ns[3] &&
		      (double)s->delay_q_ns[3] <= (double)s->c.delay_max_ns * 1.125 + 1024,
		      "delay quantiles %llu %llu %llu %llu (max %llu)",
		      (unsigned long long)s->delay_q_ns[0], (unsigned long long)s->delay_q_ns[1],
		      (unsigned long long)s->delay_q_ns[2], (unsigned long long)s->delay_q_ns[3],
		      (unsigned long long)s->c.delay_max_ns);
		/* 20 Mbit/s for two seconds, give or take the bucket's depth */
		CHECK(s->c.tx_bytes * 8 >= 39000000 && s->c.tx_bytes * 8 <= 40100000,
		      "sent %llu bits in 2 s at 20 Mbit/s", (unsigned long long)s->c.tx_bytes * 8);
	}
	/* OpenMetrics: every sample after its family's HELP and TYPE, # EOF last */
	{
		char *om = NULL, *line, *save = NULL, fam[128] = "";
		size_t omlen = 0;
		int samples = 0, eof = 0, bad = 0;

		f = open_memstream(&om, &omlen);
		stats_write_openmetrics(f, snap);
		fclose(f);
		if (getenv("BRIDGE_TESTS_OM")) /* for promtool by hand */
			fputs(om, stderr);
		for (line = strtok_r(om, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			CHECK(!eof, "a line after # EOF: %s", line);
			if (!strcmp(line, "# EOF")) {
				eof = 1;
			} else if (!strncmp(line, "# TYPE ", 7)) {
				sscanf(line + 7, "%127s", fam);
			} else if (line[0] != '#') {
				size_t n = strlen(fam);

				samples++;
				bad += strncmp(line, fam, n) != 0 ||
				       !(line[n] == '{' || line[n] == ' ' || line[n] == '_');
				bad += strncmp(line, "choke_", 6) != 0;
			}
		}
		CHECK(eof && samples > 50 && !bad, "OpenMetrics: eof %d, %d samples, %d bad",
		      eof, samples, bad);
		free(om);
	}
	for (i = 0; i < 2; i++) {
		free(d[i].rx.map);
		free(d[i].tx.map);
		d[i].rx.map = d[i].tx.map = NULL;
		dp_close(&d[i]);
	}
	free(snap);
}

/* ---- names with quotes in every rendering ---- */

static void test_escaping(void)
{
	struct stats_snapshot *s = calloc(1, sizeof(*s));
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	s->ndirs = 1;
	snprintf(s->d[0].in, sizeof(s->d[0].in), "a\"b\\c");
	snprintf(s->d[0].out, sizeof(s->d[0].out), "x\ny");
	s->d[0].if_in = (struct stats_if){ "a\"b\\c", 1, { 1, 2, 3, 4, 5, 6, 7, 8 } };
	f = open_memstream(&out, &len);
	stats_write_json(f, s);
	fclose(f);
	CHECK(strstr(out, "\"in\":\"a\\\"b\\\\c\"") && strstr(out, "\"out\":\"x\\u000ay\""),
	      "JSON escapes interface names: %s", out);
	free(out);
	f = open_memstream(&out, &len);
	stats_write_openmetrics(f, s);
	fclose(f);
	CHECK(strstr(out, "in=\"a\\\"b\\\\c\",out=\"x\\ny\"") &&
	      strstr(out, "device=\"a\\\"b\\\\c\"} 1"),
	      "OpenMetrics escapes label values: %.300s", out);
	free(out);
	free(s);
}

/* ---- options and the configuration file ---- */

static int opt_fails(const char *name, const char *value, const char *want)
{
	struct bridge_opts o;
	char err[512];

	bridge_opts_init(&o);
	if (!bridge_opt_set(&o, name, value, err, sizeof(err)))
		return 0;
	return strstr(err, want) != NULL;
}

static void test_options(void)
{
	struct bridge_opts o;
	char err[512];
	int k;

	CHECK(opt_fails("burst", "-5", "--burst needs an integer from 1 to 1073741824, not \"-5\""),
	      "negative burst");
	CHECK(opt_fails("burst", "0", "1 to"), "zero burst");
	CHECK(opt_fails("burst", "1073741825", "1 to"), "absurd burst");
	CHECK(opt_fails("burst", "0x10", "1 to"), "hexadecimal burst");
	CHECK(opt_fails("rate", "-5mbit", "64kbit to 1tbit"), "negative rate");
	CHECK(opt_fails("rate", "1bit", "64kbit to 1tbit"), "tiny rate");
	CHECK(opt_fails("rate", "2tbit", "64kbit to 1tbit"), "absurd rate");
	CHECK(opt_fails("rate", "99999999999999999999tbit", "64kbit to 1tbit"), "overflowing rate");
	CHECK(opt_fails("seed", "-1", "0 to 18446744073709551615"), "negative seed");
	CHECK(opt_fails("seed", "18446744073709551616", "0 to"), "seed beyond 2^64-1");
	CHECK(opt_fails("rx-ring", "v4", "--rx-ring needs v2 or v3, not \"v4\""), "rx-ring v4");
	CHECK(opt_fails("in", "../etc", "an interface name"), "a path as interface");
	CHECK(opt_fails("in", "abcdefghijklmnop", "an interface name"), "16 characters");
	CHECK(opt_fails("duplex", "1", "takes no value"), "a flag with a value");
	CHECK(opt_fails("burst", NULL, "--burst needs BYTES"), "a value missing");
	CHECK(opt_fails("frob", "1", "unknown option --frob"), "an unknown option");
	CHECK(opt_fails("wait", "3601", "0 to 3600"), "wait beyond an hour");
	CHECK(opt_fails("wait", "-1", "0 to 3600"), "a negative wait");
	bridge_opts_init(&o);
	CHECK(bridge_opt_set(&o, "seed", "18446744073709551615", err, sizeof(err)) == 0 &&
	      o.seed == UINT64_MAX, "seed 2^64-1 accepted");
	CHECK(bridge_opt_set(&o, "wait", "3600", err, sizeof(err)) == 0 && o.wait_s == 3600,
	      "wait 3600 accepted");
	CHECK(bridge_opt_set(&o, "rx-ring", "v3", err, sizeof(err)) == 0 && !o.rx_v2 &&
	      bridge_opt_set(&o, "rx-ring", "v2", err, sizeof(err)) == 0 && o.rx_v2,
	      "rx-ring v3 and v2");
	CHECK(bridge_opt_set(&o, "burst", "3000", err, sizeof(err)) == 0 &&
	      o.burst_bytes == 3000 && bridge_opt_set(&o, "rate", "10mbit", err, sizeof(err)) == 0 &&
	      o.rate_bps == 10000000, "burst and rate: %s", err);
	/* the table: option k has id k + 1, only --config and --wait stay off
	 * the file */
	for (k = 0; k < BO_NOPTS; k++)
		CHECK(bridge_options[k].id == k + 1 &&
		      !(bridge_options[k].flags & CLI_NO_FILE) == (k != BO_CONFIG && k != BO_WAIT),
		      "bridge_options[%d]", k);
	CHECK(bridge_options[BO_NOPTS].id == 0, "the table ends");
}

static int config_case(const char *text, const struct bridge_opts *base, struct bridge_opts *o,
		       char *err, size_t errlen, char *path)
{
	FILE *f;
	int fd;

	strcpy(path, "/tmp/choke-bridge-test-XXXXXX");
	fd = mkstemp(path);
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	*o = *base;
	fd = bridge_config_read(o, path, err, errlen);
	unlink(path);
	return fd;
}

static void test_config(void)
{
	static struct bridge_opts base, o;
	char err[600], path[64], want[96], *argv[8];
	struct choke_params p;

	bridge_opts_init(&base);
	CHECK(config_case("# the uplink\n\nin eth1   # LAN side\n--out eth2\nrate 95mbit\n"
			  "duplex\n\t \n  choke limit 300 min 50 max 150 ecn # the queue\n",
			  &base, &o, err, sizeof(err), path) == 0 &&
	      !strcmp(o.in, "eth1") && !strcmp(o.out, "eth2") && o.rate_bps == 95000000 &&
	      o.duplex && o.nwords == 8 && o.words_line == 8 &&
	      bridge_opts_check(&o, err, sizeof(err)) == 0, "a commented file: %s", err);
	CHECK(bridge_words(&o, argv) == 8 && !strcmp(argv[7], "ecn"), "the words");
	CHECK(bridge_discipline(&o, &p, err, sizeof(err)) == 0 && p.cfg.limit == 300,
	      "its discipline: %s", err);
	/* bad lines: refused with file:line, and nothing taken */
	{
		static const struct {
			const char *text, *msg;
			int line;
		} bad[] = {
			{ "rate 20mbit\nrat 20mbit\n", "unknown option \"rat\"", 2 },
			{ "\n\nburst -3\n", "1 to 1073741824", 3 },
			{ "rate 20mbit\nrate 30mbit\n", "given twice (first at line 1)", 2 },
			{ "choke limit 10\nfifo limit 5\n", "a second discipline line", 2 },
			{ "# x\nchoke limit 0\n", "invalid choke parameters", 2 },
			{ "config /etc/x\n", "cannot be given in a configuration file", 1 },
			{ "in a\nwait 30\n", "--wait cannot be given in a configuration file", 2 },
			{ "duplex yes\n", "takes no value", 1 },
			{ "in\n", "takes one value", 1 },
			{ "limit 300 min 50\n", "starting with choke, red or fifo", 1 },
		};
		size_t i;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			int rc = config_case(bad[i].text, &base, &o, err, sizeof(err), path);

			snprintf(want, sizeof(want), "%s:%d: ", path, bad[i].line);
			CHECK(rc == -1 && strstr(err, want) && strstr(err, bad[i].msg) &&
			      !o.in[0] && o.rate_bps == 0,
			      "bad line %zu: rc %d, \"%s\" (want \"%s\" and \"%s\")", i, rc, err,
			      want, bad[i].msg);
		}
	}
	/* the command line wins over the file */
	{
		char *words[] = { "fifo", "limit", "7" };

		/* as `choke bridge --rate 10mbit fifo limit 7` sets them */
		bridge_opts_init(&base);
		CHECK(bridge_opt_set(&base, "rate", "10mbit", err, sizeof(err)) == 0 &&
		      bridge_set_words(&base, 3, words, err, sizeof(err)) == 0, "%s", err);
		base.given |= 1u << BO_RATE;
		CHECK(config_case("rate 30mbit\nin a\nout b\nchoke limit 50\n", &base, &o, err,
				  sizeof(err), path) == 0 && o.rate_bps == 10000000 &&
		      o.nwords == 3 && o.words_line == 0 && o.line[BO_RATE] == 1,
		      "command line over file: %s", err);
	}
	bridge_opts_init(&base);
	CHECK(config_case("", &base, &o, err, sizeof(err), path) == 0 &&
	      bridge_opts_check(&o, err, sizeof(err)) == -1 && strstr(err, "required"),
	      "an empty file lacks --in, --out, --rate");
}

/* ---- the control protocol ---- */

static void test_control(void)
{
	static struct ctl_request r, r2;
	char err[256], buf[CTL_REQ_MAX + 64];
	const char *body;
	int ok, n;
	static const char *const bad[] = {
		"stats", "stats text", "reconfigure choke limit 10", "choke-ctl/2 stats",
		"choke-ctl/1", "choke-ctl/1 stats xml", "choke-ctl/1 stats json json",
		"choke-ctl/1 reconfigure", "choke-ctl/1 reconfigure\n", "choke-ctl/1 frobnicate",
		"choke-ctl/1 stats\x01", "choke-ctl/1 stats\n\n", "",
	};
	size_t i;

	CHECK(ctl_parse_request("choke-ctl/1 stats\n", 18, &r, err, sizeof(err)) == 0 &&
	      r.verb == CTL_STATS && r.format == CTL_FMT_TEXT, "stats: %s", err);
	CHECK(ctl_parse_request("choke-ctl/1  stats\topenmetrics", 30, &r, err, sizeof(err)) == 0 &&
	      r.format == CTL_FMT_OPENMETRICS, "stats openmetrics: %s", err);
	CHECK(ctl_parse_request("choke-ctl/1 reconfigure red limit 300 ecn\n", 42, &r, err,
				sizeof(err)) == 0 && r.verb == CTL_RECONFIGURE && r.nwords == 4 &&
	      !strcmp(r.words[3], "ecn"), "reconfigure: %s", err);
	n = ctl_format_request(&r, buf, sizeof(buf));
	CHECK(n > 0 && ctl_parse_request(buf, (size_t)n, &r2, err, sizeof(err)) == 0 &&
	      r2.nwords == 4 && !strcmp(r2.words[0], "red"), "round trip: %s", buf);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(ctl_parse_request(bad[i], strlen(bad[i]), &r, err, sizeof(err)) == -1 &&
		      err[0], "refused: \"%s\"", bad[i]);
	memset(buf, 'a', sizeof(buf));
	memcpy(buf, "choke-ctl/1 reconfigure ", 24);
	CHECK(ctl_parse_request(buf, CTL_REQ_MAX + 1, &r, err, sizeof(err)) == -1 &&
	      strstr(err, "longer"), "a request too long");
	r.verb = CTL_RECONFIGURE;
	r.nwords = 1;
	r.words[0] = "has space";
	CHECK(ctl_format_request(&r, buf, sizeof(buf)) == -1, "a word with a space");
	CHECK(ctl_parse_reply("choke-ctl/1 ok\nbody", &ok, &body) == 0 && ok &&
	      !strcmp(body, "body"), "ok reply");
	CHECK(ctl_parse_reply("choke-ctl/1 error\nwhy\n", &ok, &body) == 0 && !ok &&
	      !strcmp(body, "why\n"), "error reply");
	CHECK(ctl_parse_reply("ok: limit 5", &ok, &body) == -1, "not a reply");
	/* a client finds no bridge, and says so */
	r.verb = CTL_STATS;
	r.format = CTL_FMT_JSON;
	{
		char *b;

		CHECK(ctl_call("/nonexistent/choke.sock", &r, &b, err, sizeof(err)) ==
		      CTL_ENOBRIDGE && strstr(err, "no running bridge at /nonexistent/choke.sock"),
		      "no bridge: %s", err);
	}
}

int main(int argc, char **argv)
{
	if (argc > 1)
		golden_dir = argv[1];
	test_scenario();
	test_escaping();
	test_options();
	test_config();
	test_control();
	printf("%s bridge-tests: %d checks, %d failed\n", fails ? "FAIL" : "ok  ", checks,
	       fails);
	return fails != 0;
}
