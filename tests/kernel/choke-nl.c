// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
// SPDX-FileCopyrightText: 2026 The choke authors
/*
 * choke-nl: send a hand-made choke configuration to the kernel, for what
 * stock tc cannot send (limit 0, unknown flags, attributes of the wrong
 * length, a missing Stab, ...). Prints "ok", or "err ERRNO: EXTACK" with
 * the kernel's extended-ack message, and exits 0 or 1.
 *
 *   choke-nl DEV add|change [parent root|MAJ:MIN] [handle MAJ:]
 *            [limit N] [min N] [max N] [wlog N] [plog N] [scell N]
 *            [flags N] [maxp N] [stab-fill V] [stab-set I V]
 *            [parms-len N] [stab-len N] [maxp-len N]
 *            [no-parms] [no-stab] [no-opts]
 *            [kind choke|chokeplus] [variant V D P] [variant-more B S T [PAD]]
 *            [variant-len N]
 *            [extra-attr TYPE]
 *
 * Defaults: kind choke, limit 1000 min 100 max 300 wlog 7 plog 24 scell 17
 * flags 0, no MAX_P, a 256-byte Stab of zeros with entry 255 = 31.
 * variant V D P adds TCA_CHOKEPLUS_VARIANT (kmod/chokeplus.h) = { variant
 * V, draws D, protect P }, variant-more B S T [PAD] the fields after them
 * { protect_by B, sparse S, target_us T, pad PAD } (variant-len N sends N
 * bytes of it, zero-padded beyond 12; 4 is 0.1.0's form); extra-attr TYPE
 * adds an empty attribute of that type after
 * the others.
 */
#include <errno.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "../../kmod/chokeplus.h"

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif

static char buf[8192];
static size_t used;

static struct rtattr *put(unsigned short type, const void *data, size_t len)
{
	struct rtattr *a = (struct rtattr *)(buf + used);

	a->rta_type = type;
	a->rta_len = (unsigned short)RTA_LENGTH(len);
	if (data && len)
		memcpy(RTA_DATA(a), data, len);
	else if (len)
		memset(RTA_DATA(a), 0, len);
	used += RTA_ALIGN(a->rta_len);
	return a;
}

static uint32_t parse_handle(const char *s)
{
	unsigned maj = 0, min = 0;

	if (!strcmp(s, "root"))
		return TC_H_ROOT;
	if (sscanf(s, "%x:%x", &maj, &min) < 1) {
		fprintf(stderr, "choke-nl: bad handle %s\n", s);
		exit(2);
	}
	return (maj << 16) | (min & 0xffff);
}

static long num(const char *s)
{
	char *end;
	long v = strtol(s, &end, 0);

	if (*s == 0 || *end) {
		fprintf(stderr, "choke-nl: bad number %s\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	struct tc_red_qopt qopt = { .limit = 1000, .qth_min = 100, .qth_max = 300,
				    .Wlog = 7, .Plog = 24, .Scell_log = 17 };
	unsigned char stab[512];
	long parms_len = sizeof(qopt), stab_len = 256, maxp_len = 4;
	int have_maxp = 0, no_parms = 0, no_stab = 0, no_opts = 0, change = 0;
	struct tc_chokeplus_variant var = { 0 };
	long var_len = sizeof(var), extra_attr = -1;
	int have_var = 0;
	const char *kind = "choke";
	uint32_t maxp = 0, parent = TC_H_ROOT, handle = 0;
	struct nlmsghdr *n;
	struct tcmsg *t;
	struct rtattr *opts;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd, one = 1, i;
	ssize_t got;

	if (argc < 3) {
		fprintf(stderr, "usage: choke-nl DEV add|change [options]\n");
		return 2;
	}
	memset(stab, 0, sizeof(stab));
	stab[255] = 31;
	change = !strcmp(argv[2], "change");
	for (i = 3; i < argc; i++) {
		const char *w = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : "";

		if (!strcmp(w, "no-parms")) { no_parms = 1; continue; }
		if (!strcmp(w, "no-stab")) { no_stab = 1; continue; }
		if (!strcmp(w, "no-opts")) { no_opts = 1; continue; }
		if (i + 1 >= argc) {
			fprintf(stderr, "choke-nl: %s needs a value\n", w);
			return 2;
		}
		i++;
		if (!strcmp(w, "parent")) parent = parse_handle(v);
		else if (!strcmp(w, "handle")) handle = parse_handle(v);
		else if (!strcmp(w, "limit")) qopt.limit = (uint32_t)num(v);
		else if (!strcmp(w, "min")) qopt.qth_min = (uint32_t)num(v);
		else if (!strcmp(w, "max")) qopt.qth_max = (uint32_t)num(v);
		else if (!strcmp(w, "wlog")) qopt.Wlog = (unsigned char)num(v);
		else if (!strcmp(w, "plog")) qopt.Plog = (unsigned char)num(v);
		else if (!strcmp(w, "scell")) qopt.Scell_log = (unsigned char)num(v);
		else if (!strcmp(w, "flags")) qopt.flags = (unsigned char)num(v);
		else if (!strcmp(w, "maxp")) { maxp = (uint32_t)num(v); have_maxp = 1; }
		else if (!strcmp(w, "stab-fill")) memset(stab, (int)num(v), 256);
		else if (!strcmp(w, "stab-set")) {
			if (i + 1 >= argc) return 2;
			stab[num(v) & 255] = (unsigned char)num(argv[++i]);
		}
		else if (!strcmp(w, "parms-len")) parms_len = num(v);
		else if (!strcmp(w, "stab-len")) stab_len = num(v);
		else if (!strcmp(w, "maxp-len")) { maxp_len = num(v); have_maxp = 1; }
		else if (!strcmp(w, "kind")) kind = v;
		else if (!strcmp(w, "variant")) {
			if (i + 2 >= argc) {
				fprintf(stderr, "choke-nl: variant needs V D P\n");
				return 2;
			}
			var.variant = (unsigned char)num(v);
			var.draws = (unsigned char)num(argv[++i]);
			var.protect = (unsigned short)num(argv[++i]);
			have_var = 1;
		}
		else if (!strcmp(w, "variant-more")) {
			if (i + 2 >= argc) {
				fprintf(stderr, "choke-nl: variant-more needs B S T [PAD]\n");
				return 2;
			}
			var.protect_by = (unsigned char)num(v);
			var.sparse = (unsigned char)num(argv[++i]);
			var.target_us = (uint32_t)num(argv[++i]);
			if (i + 1 < argc && argv[i + 1][0] >= '0' && argv[i + 1][0] <= '9')
				var.pad = (unsigned short)num(argv[++i]);
			have_var = 1;
		}
		else if (!strcmp(w, "variant-len")) { var_len = num(v); have_var = 1; }
		else if (!strcmp(w, "extra-attr")) extra_attr = num(v);
		else {
			fprintf(stderr, "choke-nl: unknown word %s\n", w);
			return 2;
		}
	}
	if (parms_len < 0 || parms_len > 64 || stab_len < 0 || stab_len > 512 ||
	    maxp_len < 0 || maxp_len > 16 || var_len < 0 || var_len > 16 ||
	    extra_attr > 0xffff || strlen(kind) > 15) {
		fprintf(stderr, "choke-nl: length out of range\n");
		return 2;
	}

	n = (struct nlmsghdr *)buf;
	n->nlmsg_type = RTM_NEWQDISC;
	n->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK |
			 (change ? 0 : NLM_F_CREATE | NLM_F_EXCL);
	n->nlmsg_seq = 1;
	used = NLMSG_LENGTH(sizeof(*t));
	t = NLMSG_DATA(n);
	memset(t, 0, sizeof(*t));
	t->tcm_family = AF_UNSPEC;
	t->tcm_ifindex = (int)if_nametoindex(argv[1]);
	if (!t->tcm_ifindex) {
		fprintf(stderr, "choke-nl: no device %s\n", argv[1]);
		return 2;
	}
	t->tcm_parent = parent;
	t->tcm_handle = handle;
	put(TCA_KIND, kind, strlen(kind) + 1);
	if (!no_opts) {
		unsigned char pbuf[64] = { 0 };
		unsigned char mbuf[16] = { 0 };

		memcpy(pbuf, &qopt, sizeof(qopt));
		memcpy(mbuf, &maxp, sizeof(maxp));
		opts = put(TCA_OPTIONS, NULL, 0);
		if (!no_parms)
			put(TCA_CHOKE_PARMS, pbuf, (size_t)parms_len);
		if (!no_stab)
			put(TCA_CHOKE_STAB, stab, (size_t)stab_len);
		if (have_maxp)
			put(TCA_CHOKE_MAX_P, mbuf, (size_t)maxp_len);
		if (have_var) {
			unsigned char vbuf[16] = { 0 };

			memcpy(vbuf, &var, sizeof(var));
			put(TCA_CHOKEPLUS_VARIANT, vbuf, (size_t)var_len);
		}
		if (extra_attr >= 0)
			put((unsigned short)extra_attr, NULL, 0);
		opts->rta_len = (unsigned short)(buf + used - (char *)opts);
	}
	n->nlmsg_len = (uint32_t)used;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0) {
		perror("choke-nl: socket");
		return 2;
	}
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	if (sendto(fd, buf, used, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("choke-nl: sendto");
		return 2;
	}
	got = recv(fd, buf, sizeof(buf), 0);
	if (got < (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr))) {
		perror("choke-nl: recv");
		return 2;
	}
	n = (struct nlmsghdr *)buf;
	if (n->nlmsg_type == NLMSG_ERROR) {
		struct nlmsgerr *e = NLMSG_DATA(n);
		const char *msg = "";

		if (e->error == 0) {
			printf("ok\n");
			return 0;
		}
		if (n->nlmsg_flags & NLM_F_ACK_TLVS) {
			size_t off = NLMSG_LENGTH(sizeof(*e));
			/* with NETLINK_CAP_ACK only the request's header is echoed */
			if (!(n->nlmsg_flags & NLM_F_CAPPED))
				off += e->msg.nlmsg_len - NLMSG_HDRLEN;
			while (off + sizeof(struct nlattr) <= n->nlmsg_len) {
				struct nlattr *a = (struct nlattr *)(buf + off);

				if (a->nla_len < sizeof(*a))
					break;
				if ((a->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG)
					msg = (const char *)(a + 1);
				off += NLA_ALIGN(a->nla_len);
			}
		}
		printf("err %s: %s\n", strerror(-e->error), msg);
		return 1;
	}
	printf("err unexpected reply type %d\n", n->nlmsg_type);
	return 1;
}
