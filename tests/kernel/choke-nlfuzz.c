// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
// SPDX-FileCopyrightText: 2026 The choke authors
/*
 * choke-nlfuzz: random and malformed choke configurations (TCA_OPTIONS)
 * sent to the kernel over rtnetlink, each checked against a model of what
 * the implementation under test should accept, and every accepted one
 * dumped back and compared with what was sent.
 *
 *   choke-nlfuzz DEV --impl mainline|ours [--count N] [--seed S]
 *                [--parent MAJ:MIN] [--handle MAJ:] [--log FILE]
 *
 * The choke qdisc lives at PARENT (default 1:1, a tbf's class) with HANDLE
 * (default 10:); the caller sets up the parent and may run traffic through
 * it, so that changes happen under load. Each request is one of: change
 * (60%), add with NLM_F_REPLACE (25%), delete and add again (10%), dump
 * only (5%). Its options are, in equal shares, plausible (what tc could
 * send), mutated (1-3 of: a field at an edge value, an attribute of the
 * wrong length, missing or duplicated, an unknown attribute type, the
 * NLA_F_NESTED bit, trailing bytes, a truncated attribute header) or random
 * bytes.
 *
 * The model follows the kernel's parser (nla_parse_nested_deprecated: last
 * duplicate wins, unknown types skipped, a truncated attribute ends the
 * parse and leaves bytes over) and then each implementation's rules:
 *  mainline: PARMS >= 16 bytes, STAB >= 256 bytes, MAX_P >= 4 bytes (the
 *     policy's minimum lengths; longer is accepted), red_check_params()
 *     and limit <= 131071;
 *  ours: the same attributes exactly 16, 256 and 4 bytes, no unknown
 *     attribute type and no bytes left over, 1 <= limit <= 131071,
 *     max <= limit, flags within ECN|HARDDROP, and red_check_params().
 * It prints one summary line per counter ("key value") and exits 1 when a
 * request was answered against the model, a dump differs from what was
 * accepted, or the netlink socket failed; 2 on usage errors.
 */
#include <errno.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif

#define MAX_LIMIT 131071u
#define NLA_HDR 4
#define ALIGN4(x) (((x) + 3u) & ~3u)

enum impl { IMPL_MAINLINE, IMPL_OURS };

static uint64_t rng_state;

static uint32_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 2685821657736338717ull) >> 32);
}

static uint32_t below(uint32_t n)
{
	return n ? (uint32_t)(((uint64_t)rnd() * n) >> 32) : 0;
}

static int fls32(uint32_t x)
{
	int r = 0;

	while (x) {
		r++;
		x >>= 1;
	}
	return r;
}

/* ------------------------------------------------------------ options */

/* What a request's TCA_OPTIONS holds: a stream of attributes (or bytes). */
struct opts {
	unsigned char buf[1024];
	size_t len;
	int present;		/* TCA_OPTIONS sent at all */
	/* for the dump check, when accepted: what the last PARMS, STAB and
	 * MAX_P said */
	struct tc_red_qopt parms;
	uint32_t max_p;
};

static void put_attr(struct opts *o, uint16_t type, const void *data,
		     size_t len)
{
	struct nlattr a = { .nla_len = (uint16_t)(NLA_HDR + len), .nla_type = type };
	size_t pad = ALIGN4(NLA_HDR + len) - (NLA_HDR + len);

	if (o->len + NLA_HDR + len + pad > sizeof(o->buf))
		return;
	memcpy(o->buf + o->len, &a, NLA_HDR);
	memcpy(o->buf + o->len + NLA_HDR, data, len);
	memset(o->buf + o->len + NLA_HDR + len, 0, pad);
	o->len += NLA_HDR + len + pad;
}

/* A configuration tc could send. */
static void plausible(struct tc_red_qopt *p, unsigned char *stab,
		      uint32_t *max_p, int *have_max_p)
{
	int i;

	memset(p, 0, sizeof(*p));
	p->limit = 1 + below(below(8) ? 4000 : MAX_LIMIT);
	p->qth_max = below(p->limit + 1);
	p->qth_min = below(p->qth_max + 1);
	p->Wlog = (uint8_t)below((uint32_t)(32 - fls32(p->qth_max)));
	p->Plog = (uint8_t)below(32);
	p->Scell_log = (uint8_t)below(32);
	p->flags = (uint8_t)below(4);
	for (i = 0; i < 256; i++)
		stab[i] = (uint8_t)below(32);
	*have_max_p = (int)below(2);
	*max_p = below(3) ? rnd() : 0;
}

static uint32_t edge32(void)
{
	static const uint32_t v[] = { 0, 1, 2, 100, 1000, MAX_LIMIT, MAX_LIMIT + 1,
				      0x7fffffff, 0x80000000, 0xffffffff };

	return below(4) ? rnd() : v[below(sizeof(v) / sizeof(v[0]))];
}

static void build_opts(struct opts *o)
{
	struct tc_red_qopt p;
	unsigned char stab[300], parms_raw[64], maxp_raw[16];
	uint32_t max_p;
	int have_max_p, kind = (int)below(3), nmut, m;
	size_t parms_len = sizeof(p), stab_len = 256, maxp_len = 4;
	int no_parms = 0, no_stab = 0, dup = 0, unknown = 0, nested_bit = 0;
	int trailing = 0, truncated = 0, shuffle = 0;

	memset(o, 0, sizeof(*o));
	o->present = 1;
	if (kind == 2) {
		/* random bytes, or no options at all */
		if (!below(20)) {
			o->present = 0;
			return;
		}
		o->len = below(400);
		for (size_t i = 0; i < o->len; i++)
			o->buf[i] = (unsigned char)rnd();
		/* now and then make it look like attributes */
		if (below(2) && o->len >= 8) {
			struct nlattr a = { .nla_len = (uint16_t)(NLA_HDR + below(300)),
					    .nla_type = (uint16_t)below(5) };
			memcpy(o->buf, &a, NLA_HDR);
		}
		return;
	}
	plausible(&p, stab, &max_p, &have_max_p);
	memset(stab + 256, 0, sizeof(stab) - 256);
	if (kind == 1) {
		nmut = 1 + (int)below(3);
		for (m = 0; m < nmut; m++) {
			switch (below(16)) {
			case 0: p.limit = edge32(); break;
			case 1: p.qth_min = edge32(); break;
			case 2: p.qth_max = edge32(); break;
			case 3: p.Wlog = (uint8_t)rnd(); break;
			case 4: p.Plog = (uint8_t)rnd(); break;
			case 5: p.Scell_log = (uint8_t)(below(2) ? 24 + below(16) : rnd()); break;
			case 6: p.flags = (uint8_t)rnd(); break;
			case 7: stab[below(256)] = (uint8_t)(32 + below(224)); break;
			case 8: parms_len = below(41); break;
			case 9: stab_len = below(301); break;
			case 10: maxp_len = below(9); have_max_p = 1; break;
			case 11: if (below(2)) no_parms = 1; else no_stab = 1; break;
			case 12: dup = 1 + (int)below(3); break;
			case 13: unknown = 1 + (int)below(3); break;
			case 14: if (below(2)) nested_bit = 1; else shuffle = 1; break;
			case 15: if (below(2)) trailing = 1 + (int)below(3); else truncated = 1; break;
			}
		}
	}
	memset(parms_raw, 0, sizeof(parms_raw));
	memcpy(parms_raw, &p, sizeof(p));
	for (size_t i = sizeof(p); i < sizeof(parms_raw); i++)
		parms_raw[i] = (unsigned char)rnd();
	memset(maxp_raw, 0, sizeof(maxp_raw));
	memcpy(maxp_raw, &max_p, sizeof(max_p));
	for (size_t i = 4; i < sizeof(maxp_raw); i++)
		maxp_raw[i] = (unsigned char)rnd();

	{
		/* the attributes, in order (or shuffled), duplicates after */
		int order[3] = { 0, 1, 2 }, i;

		if (shuffle) {
			for (i = 2; i > 0; i--) {
				int j = (int)below((uint32_t)i + 1), t = order[i];

				order[i] = order[j];
				order[j] = t;
			}
		}
		for (i = 0; i < 3; i++) {
			uint16_t nb = nested_bit && !below(2) ? NLA_F_NESTED : 0;

			if (order[i] == 0 && !no_parms)
				put_attr(o, TCA_CHOKE_PARMS | nb, parms_raw, parms_len);
			if (order[i] == 1 && !no_stab)
				put_attr(o, TCA_CHOKE_STAB | nb, stab, stab_len);
			if (order[i] == 2 && have_max_p)
				put_attr(o, TCA_CHOKE_MAX_P | nb, maxp_raw, maxp_len);
		}
		while (dup-- > 0) {
			struct tc_red_qopt q2;
			unsigned char s2[256];
			uint32_t m2;
			int h2;

			plausible(&q2, s2, &m2, &h2);
			switch (below(3)) {
			case 0: put_attr(o, TCA_CHOKE_PARMS, &q2, sizeof(q2)); break;
			case 1: put_attr(o, TCA_CHOKE_STAB, s2, 256); break;
			case 2: put_attr(o, TCA_CHOKE_MAX_P, &m2, 4); break;
			}
		}
		while (unknown-- > 0) {
			static const uint16_t types[] = { 0, 4, 5, 9, 100, 0x7fff };
			unsigned char junk[16];

			for (i = 0; i < 16; i++)
				junk[i] = (unsigned char)rnd();
			put_attr(o, types[below(6)], junk, below(17));
		}
	}
	if (trailing) {
		for (m = 0; m < trailing; m++)
			o->buf[o->len++] = (unsigned char)rnd();
	} else if (truncated) {
		/* a header claiming more than is there */
		struct nlattr a = { .nla_len = (uint16_t)(NLA_HDR + 64),
				    .nla_type = TCA_CHOKE_PARMS };

		memcpy(o->buf + o->len, &a, NLA_HDR);
		o->len += NLA_HDR + 8;
		memset(o->buf + o->len - 8, 0, 8);
	}
}

/* ------------------------------------------------------------ the model */

struct parsed {
	const unsigned char *a[4];	/* last attribute of each type 1..3 */
	size_t alen[4];
	size_t minlen[4];		/* the shortest of each type */
	int unknown;			/* an attribute of type 0 or > 3 */
	size_t leftover;		/* bytes after the last whole attribute */
};

/* nla_parse_nested_deprecated(): the kernel's loop over the attributes */
static void parse(const struct opts *o, struct parsed *r)
{
	size_t off = 0;

	memset(r, 0, sizeof(*r));
	while (o->len - off >= NLA_HDR) {
		struct nlattr a;
		uint16_t type;

		memcpy(&a, o->buf + off, NLA_HDR);
		if (a.nla_len < NLA_HDR || a.nla_len > o->len - off)
			break;
		type = a.nla_type & NLA_TYPE_MASK;
		if (type >= 1 && type <= TCA_CHOKE_MAX_P) {
			r->a[type] = o->buf + off + NLA_HDR;
			r->alen[type] = a.nla_len - NLA_HDR;
			if (!r->minlen[type] || r->alen[type] + 1 < r->minlen[type])
				r->minlen[type] = r->alen[type] + 1;
		} else {
			r->unknown = 1;
		}
		off += ALIGN4(a.nla_len);
		if (off > o->len)
			off = o->len;
	}
	r->leftover = o->len - off;
}

/* red_check_params() as in 6.1 */
static int red_params_ok(const struct tc_red_qopt *p, const unsigned char *stab)
{
	int i;

	if (fls32(p->qth_min) + p->Wlog >= 32)
		return 0;
	if (fls32(p->qth_max) + p->Wlog >= 32)
		return 0;
	if (p->Scell_log >= 32)
		return 0;
	if (p->qth_max < p->qth_min)
		return 0;
	for (i = 0; i < 256; i++)
		if (stab[i] >= 32)
			return 0;
	return 1;
}

/* Should this implementation accept these options? Fills o->parms and
 * o->max_p with what it will then hold. */
static int model_accepts(enum impl impl, struct opts *o, int exists,
			 const struct opts *current, const char **why)
{
	struct parsed r;

	if (!o->present) {
		/* the qdisc layer calls change only with options: without
		 * them an existing qdisc is left as it is, and a new one
		 * cannot be made */
		*why = exists ? "no options: nothing changes" : "no options";
		if (exists) {
			o->parms = current->parms;
			o->max_p = current->max_p;
		}
		return exists;
	}
	parse(o, &r);
	if (impl == IMPL_MAINLINE) {
		/* the policy's minimum lengths hold for every attribute,
		 * duplicates included: one too short fails the whole parse
		 * (minlen is the shortest length + 1, 0 for none) */
		if (r.minlen[1] && r.minlen[1] - 1 < sizeof(struct tc_red_qopt)) {
			*why = "PARMS too short";
			return 0;
		}
		if (r.minlen[2] && r.minlen[2] - 1 < 256) {
			*why = "STAB too short";
			return 0;
		}
		if (r.minlen[3] && r.minlen[3] - 1 < 4) {
			*why = "MAX_P too short";
			return 0;
		}
	} else {
		if (r.unknown) {
			*why = "unknown attribute";
			return 0;
		}
		if (r.leftover) {
			*why = "bytes left over";
			return 0;
		}
	}
	if (!r.a[1] || !r.a[2]) {
		*why = "PARMS or STAB missing";
		return 0;
	}
	if (impl == IMPL_OURS) {
		if (r.alen[1] != sizeof(struct tc_red_qopt) || r.alen[2] != 256 ||
		    (r.a[3] && r.alen[3] != 4)) {
			*why = "attribute length";
			return 0;
		}
	}
	memcpy(&o->parms, r.a[1], sizeof(o->parms));
	o->max_p = 0;
	if (r.a[3])
		memcpy(&o->max_p, r.a[3], 4);
	if (!red_params_ok(&o->parms, r.a[2])) {
		*why = "red_check_params";
		return 0;
	}
	if (o->parms.limit > MAX_LIMIT) {
		*why = "limit above 131071";
		return 0;
	}
	if (impl == IMPL_OURS) {
		if (o->parms.limit == 0) {
			*why = "limit 0";
			return 0;
		}
		if (o->parms.qth_max > o->parms.limit) {
			*why = "max above limit";
			return 0;
		}
		if (o->parms.flags & ~(TC_RED_ECN | TC_RED_HARDDROP)) {
			*why = "flags";
			return 0;
		}
	}
	*why = "valid";
	return 1;
}

/* The MAX_P a dump shows: the one sent, or derived from Plog (red.h) */
static uint32_t effective_max_p(const struct opts *o)
{
	int32_t delta = (int32_t)(o->parms.qth_max - o->parms.qth_min);
	uint32_t m;

	if (o->max_p)
		return o->max_p;
	if (delta <= 0)
		delta = 1;
	m = o->parms.Plog < 32 ? ~0u >> o->parms.Plog : ~0u;
	return m * (uint32_t)delta;
}

/* ------------------------------------------------------------ netlink */

static int nl_fd;
static uint32_t nl_seq;
static unsigned char msg[8192];
static FILE *log_file;

static void logmsg(const char *fmt, ...)
{
	va_list ap;

	if (!log_file)
		return;
	va_start(ap, fmt);
	vfprintf(log_file, fmt, ap);
	va_end(ap);
}

static size_t nl_put(size_t used, uint16_t type, const void *data, size_t len)
{
	struct rtattr *a = (struct rtattr *)(msg + used);

	a->rta_type = type;
	a->rta_len = (unsigned short)RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(a), data, len);
	return used + RTA_ALIGN(a->rta_len);
}

/* Send one request; returns 0 or a negative errno from the kernel's ack,
 * and copies the extack message. -1000 on a socket failure. */
static int nl_talk(size_t used, char *why, size_t whylen)
{
	struct nlmsghdr *n = (struct nlmsghdr *)msg;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	ssize_t got;

	n->nlmsg_len = (uint32_t)used;
	n->nlmsg_seq = ++nl_seq;
	why[0] = 0;
	if (sendto(nl_fd, msg, used, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -1000;
	for (;;) {
		got = recv(nl_fd, msg, sizeof(msg), 0);
		if (got < (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr)))
			return -1000;
		n = (struct nlmsghdr *)msg;
		if (n->nlmsg_seq != nl_seq)
			continue;
		if (n->nlmsg_type == NLMSG_ERROR) {
			struct nlmsgerr *e = NLMSG_DATA(n);

			if (e->error && (n->nlmsg_flags & NLM_F_ACK_TLVS)) {
				size_t off = NLMSG_LENGTH(sizeof(*e));

				if (!(n->nlmsg_flags & NLM_F_CAPPED))
					off += e->msg.nlmsg_len - NLMSG_HDRLEN;
				while (off + sizeof(struct nlattr) <= n->nlmsg_len) {
					struct nlattr *a = (struct nlattr *)(msg + off);

					if (a->nla_len < sizeof(*a))
						break;
					if ((a->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG)
						snprintf(why, whylen, "%s", (const char *)(a + 1));
					off += NLA_ALIGN(a->nla_len);
				}
			}
			return e->error;
		}
		return -1000;
	}
}

static int ifindex;
static uint32_t parent = 0x00010001, handle = 0x000a0000;

static size_t qdisc_msg(uint16_t type, uint16_t flags)
{
	struct nlmsghdr *n = (struct nlmsghdr *)msg;
	struct tcmsg *t;

	memset(msg, 0, NLMSG_LENGTH(sizeof(*t)));
	n->nlmsg_type = type;
	n->nlmsg_flags = (uint16_t)(NLM_F_REQUEST | NLM_F_ACK | flags);
	t = NLMSG_DATA(n);
	t->tcm_family = AF_UNSPEC;
	t->tcm_ifindex = ifindex;
	t->tcm_parent = parent;
	t->tcm_handle = handle;
	return NLMSG_LENGTH(sizeof(*t));
}

static int send_opts(uint16_t flags, const struct opts *o, char *why, size_t wl)
{
	size_t used = qdisc_msg(RTM_NEWQDISC, flags);

	used = nl_put(used, TCA_KIND, "choke", 6);
	if (o->present)
		used = nl_put(used, TCA_OPTIONS, o->buf, o->len);
	return nl_talk(used, why, wl);
}

static int delete_choke(void)
{
	char why[256];

	return nl_talk(qdisc_msg(RTM_DELQDISC, 0), why, sizeof(why));
}

/* Dump the device's qdiscs and find ours: 1 and its PARMS and MAX_P, 0 if
 * there is no choke at HANDLE, -1 on a failure. */
static int dump_choke(struct tc_red_qopt *p, uint32_t *max_p, int *have_max_p)
{
	struct nlmsghdr *n = (struct nlmsghdr *)msg;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct tcmsg *t;
	int found = 0;

	memset(msg, 0, NLMSG_LENGTH(sizeof(*t)));
	n->nlmsg_type = RTM_GETQDISC;
	n->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	n->nlmsg_len = NLMSG_LENGTH(sizeof(*t));
	n->nlmsg_seq = ++nl_seq;
	t = NLMSG_DATA(n);
	t->tcm_family = AF_UNSPEC;
	t->tcm_ifindex = ifindex;
	if (sendto(nl_fd, msg, n->nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -1;
	for (;;) {
		ssize_t got = recv(nl_fd, msg, sizeof(msg), 0);
		size_t left;

		if (got <= 0)
			return -1;
		left = (size_t)got;
		for (n = (struct nlmsghdr *)msg; NLMSG_OK(n, left); n = NLMSG_NEXT(n, left)) {
			struct rtattr *a;
			int alen, is_choke = 0;
			struct rtattr *opts = NULL;

			if (n->nlmsg_seq != nl_seq)
				continue;
			if (n->nlmsg_type == NLMSG_DONE)
				return found;
			if (n->nlmsg_type == NLMSG_ERROR)
				return -1;
			if (n->nlmsg_type != RTM_NEWQDISC)
				continue;
			t = NLMSG_DATA(n);
			if (t->tcm_ifindex != ifindex || t->tcm_handle != handle)
				continue;
			a = (struct rtattr *)((char *)t + NLMSG_ALIGN(sizeof(*t)));
			alen = (int)n->nlmsg_len - NLMSG_LENGTH(sizeof(*t));
			for (; RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
				if (a->rta_type == TCA_KIND && !strcmp(RTA_DATA(a), "choke"))
					is_choke = 1;
				if (a->rta_type == TCA_OPTIONS)
					opts = a;
			}
			if (!is_choke || !opts)
				continue;
			found = 1;
			*have_max_p = 0;
			a = RTA_DATA(opts);
			alen = (int)RTA_PAYLOAD(opts);
			for (; RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
				if (a->rta_type == TCA_CHOKE_PARMS &&
				    RTA_PAYLOAD(a) >= sizeof(*p))
					memcpy(p, RTA_DATA(a), sizeof(*p));
				if (a->rta_type == TCA_CHOKE_MAX_P && RTA_PAYLOAD(a) >= 4) {
					memcpy(max_p, RTA_DATA(a), 4);
					*have_max_p = 1;
				}
			}
		}
	}
}

/* ------------------------------------------------------------ main */

static unsigned long long c_requests, c_accepted, c_refused, c_unexpected_ok,
	c_unexpected_err, c_dump_bad, c_dumps, c_socket, c_missing, c_deletes;
static unsigned long long c_errno[140];

static uint32_t parse_handle(const char *s)
{
	unsigned maj = 0, min = 0;

	if (sscanf(s, "%x:%x", &maj, &min) < 1) {
		fprintf(stderr, "choke-nlfuzz: bad handle %s\n", s);
		exit(2);
	}
	return (maj << 16) | (min & 0xffff);
}

static int check_dump(const struct opts *o)
{
	struct tc_red_qopt d;
	uint32_t mp = 0;
	int have = 0, r;

	memset(&d, 0, sizeof(d));
	r = dump_choke(&d, &mp, &have);
	c_dumps++;
	if (r != 1) {
		logmsg("dump: no choke found (%d)\n", r);
		return 0;
	}
	if (d.limit != o->parms.limit || d.qth_min != o->parms.qth_min ||
	    d.qth_max != o->parms.qth_max || d.Wlog != o->parms.Wlog ||
	    d.Plog != o->parms.Plog || d.Scell_log != o->parms.Scell_log ||
	    d.flags != o->parms.flags || !have || mp != effective_max_p(o)) {
		logmsg("dump differs: limit %u/%u min %u/%u max %u/%u Wlog %u/%u Plog %u/%u Scell %u/%u flags %u/%u max_P %u/%u\n",
		       d.limit, o->parms.limit, d.qth_min, o->parms.qth_min,
		       d.qth_max, o->parms.qth_max, d.Wlog, o->parms.Wlog, d.Plog,
		       o->parms.Plog, d.Scell_log, o->parms.Scell_log, d.flags,
		       o->parms.flags, mp, effective_max_p(o));
		return 0;
	}
	return 1;
}

int main(int argc, char **argv)
{
	enum impl impl = IMPL_OURS;
	unsigned long long count = 1000, i;
	int one = 1, have_impl = 0, exists;
	struct timeval tv = { .tv_sec = 10 };
	uint64_t seed = 1;
	struct opts o, current;
	char why[256];
	int a;

	if (argc < 2) {
		fprintf(stderr, "usage: choke-nlfuzz DEV --impl mainline|ours [--count N] [--seed S] [--parent MAJ:MIN] [--handle MAJ:] [--log FILE]\n");
		return 2;
	}
	for (a = 2; a < argc; a++) {
		const char *v = a + 1 < argc ? argv[a + 1] : NULL;

		if (!v) {
			fprintf(stderr, "choke-nlfuzz: %s needs a value\n", argv[a]);
			return 2;
		}
		if (!strcmp(argv[a], "--impl")) {
			if (!strcmp(v, "mainline"))
				impl = IMPL_MAINLINE;
			else if (!strcmp(v, "ours"))
				impl = IMPL_OURS;
			else {
				fprintf(stderr, "choke-nlfuzz: --impl mainline|ours\n");
				return 2;
			}
			have_impl = 1;
		} else if (!strcmp(argv[a], "--count")) {
			count = strtoull(v, NULL, 0);
		} else if (!strcmp(argv[a], "--seed")) {
			seed = strtoull(v, NULL, 0);
		} else if (!strcmp(argv[a], "--parent")) {
			parent = parse_handle(v);
		} else if (!strcmp(argv[a], "--handle")) {
			handle = parse_handle(v);
		} else if (!strcmp(argv[a], "--log")) {
			log_file = fopen(v, "w");
			if (!log_file) {
				perror("choke-nlfuzz: --log");
				return 2;
			}
		} else {
			fprintf(stderr, "choke-nlfuzz: unknown argument %s\n", argv[a]);
			return 2;
		}
		a++;
	}
	if (!have_impl) {
		fprintf(stderr, "choke-nlfuzz: --impl mainline|ours is required\n");
		return 2;
	}
	ifindex = (int)if_nametoindex(argv[1]);
	if (!ifindex) {
		fprintf(stderr, "choke-nlfuzz: no device %s\n", argv[1]);
		return 2;
	}
	rng_state = seed * 0x9E3779B97F4A7C15ull + 1;
	nl_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (nl_fd < 0) {
		perror("choke-nlfuzz: socket");
		return 2;
	}
	setsockopt(nl_fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(nl_fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	setsockopt(nl_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));

	/* start from a valid choke */
	{
		struct tc_red_qopt p = { .limit = 1000, .qth_min = 100, .qth_max = 300,
					 .Wlog = 7, .Plog = 24, .Scell_log = 17 };
		unsigned char stab[256] = { 0 };

		memset(&o, 0, sizeof(o));
		o.present = 1;
		put_attr(&o, TCA_CHOKE_PARMS, &p, sizeof(p));
		put_attr(&o, TCA_CHOKE_STAB, stab, sizeof(stab));
		exists = send_opts(NLM_F_CREATE | NLM_F_REPLACE, &o, why, sizeof(why)) == 0;
		o.parms = p;
		current = o;
		if (!exists) {
			fprintf(stderr, "choke-nlfuzz: cannot add choke at %x:%x: %s\n",
				parent >> 16, parent & 0xffff, why);
			return 2;
		}
	}

	/* count: the requests that carry options (deletes and dumps come on
	 * top, and are counted apart) */
	for (i = 0; c_requests < count; i++) {
		uint32_t op = below(100);
		uint16_t flags;
		const char *model_why;
		int want, r;

		if (op < 5) {
			struct tc_red_qopt d;
			uint32_t mp;
			int have, dr = dump_choke(&d, &mp, &have);

			c_dumps++;
			if (dr < 0)
				c_socket++;
			else if (dr != exists)
				c_missing++;
			continue;
		}
		if (op < 15 && exists) {
			r = delete_choke();
			c_deletes++;
			if (r == -1000) {
				c_socket++;
				break;
			}
			if (r == 0)
				exists = 0;
		}
		flags = op < 40 || !exists ? (NLM_F_CREATE | NLM_F_REPLACE) : 0;
		build_opts(&o);
		want = model_accepts(impl, &o, exists, &current, &model_why);
		r = send_opts(flags, &o, why, sizeof(why));
		c_requests++;
		if (r == -1000) {
			c_socket++;
			logmsg("#%llu: socket failure: %s\n", i, strerror(errno));
			break;
		}
		if (r == 0) {
			c_accepted++;
			exists = 1;
			if (!want) {
				c_unexpected_ok++;
				logmsg("#%llu: accepted, the model says refuse (%s)\n", i, model_why);
			} else {
				if (!check_dump(&o))
					c_dump_bad++;
				current = o;
			}
		} else {
			c_refused++;
			if (-r > 0 && -r < 140)
				c_errno[-r]++;
			if (want) {
				c_unexpected_err++;
				logmsg("#%llu: refused (%s: %s), the model says accept\n", i,
				       strerror(-r), why);
			}
		}
	}
	if (exists)
		(void)delete_choke();

	printf("impl %s\n", impl == IMPL_MAINLINE ? "mainline" : "ours");
	printf("seed %llu\n", (unsigned long long)seed);
	printf("requests %llu\n", c_requests);
	printf("accepted %llu\n", c_accepted);
	printf("refused %llu\n", c_refused);
	for (a = 1; a < 140; a++)
		if (c_errno[a])
			printf("refused_errno_%d %llu\n", a, c_errno[a]);
	printf("deletes %llu\n", c_deletes);
	printf("dumps %llu\n", c_dumps);
	printf("accepted_against_model %llu\n", c_unexpected_ok);
	printf("refused_against_model %llu\n", c_unexpected_err);
	printf("dump_differs %llu\n", c_dump_bad);
	printf("dump_missing %llu\n", c_missing);
	printf("socket_failures %llu\n", c_socket);
	if (log_file)
		fclose(log_file);
	return c_unexpected_ok || c_unexpected_err || c_dump_bad || c_missing ||
	       c_socket ? 1 : 0;
}
