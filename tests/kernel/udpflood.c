// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
// SPDX-FileCopyrightText: 2026 The choke authors
/*
 * udpflood: an unresponsive UDP source that keeps up with a fast link inside
 * User-Mode Linux, and a sink for it. The peers evaluation
 * (tests/kernel/guest-peers.sh) floods a bottleneck at twice its rate; iperf3
 * writes one datagram per system call and reads the clock around each, which
 * in UML (a system call costs tens of microseconds there) caps a flood at
 * 5-18 Mbit/s, far below the 200 Mbit/s a 100 Mbit/s link needs. This one
 * sends each flow's datagrams in batches of at most a millisecond of its
 * rate with one sendmmsg() per batch, on an absolute schedule (the batches'
 * start times follow the rate; a sender that falls behind by more than 50 ms
 * restarts its schedule rather than bursting to catch up), so a flood is as
 * smooth as iperf3's with its 1 ms pacing timer.
 *
 *   udpflood send ADDR PORT --rate KBIT [--flows K] [--len BYTES]
 *            [--seconds S] [--sport PORT]
 *   udpflood sink PORT [--seconds S]
 *
 * send: K flows (sockets on source ports SPORT, SPORT+1, ...; default the
 * kernel's choice) share KBIT kbit/s of UDP payload equally, each datagram
 * BYTES of payload (default 1000), for S seconds (default 10); at the end
 * one JSON line on stdout: datagrams and bytes handed to the kernel, the
 * seconds and the rate that made. Each socket's send buffer is 64 MB when
 * run as root (see big_buffer). A datagram the qdisc drops counts as sent
 * (the kernel returns success for it, as it does for any unreliable flood).
 * sink: reads datagrams on PORT (IPv4, any address) in batches and discards
 * them, for S seconds (default: until a signal), then prints the count
 * received. Either exits 2 on bad arguments, 1 on a system error.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_FLOWS 64
#define MAX_BATCH 64
#define MAX_LEN 65507

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int usage(void)
{
	fprintf(stderr, "usage: udpflood send ADDR PORT --rate KBIT [--flows K] [--len BYTES] "
			"[--seconds S] [--sport PORT]\n"
			"       udpflood sink PORT [--seconds S]\n");
	return 2;
}

/* A whole number in [lo, hi], or -1 with a message naming WHAT. */
static long long number(const char *s, long long lo, long long hi, const char *what)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "udpflood: %s must be a whole number from %lld to %lld, not \"%s\"\n",
			what, lo, hi, s);
		return -1;
	}
	return v;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = (time_t)(t / 1000000000u),
			       .tv_nsec = (long)(t % 1000000000u) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR && !stop)
		;
}

static void signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
}

/*
 * 64 MB of socket buffer where the caller may exceed the system's maximum
 * (root: OPT_FORCE), else the maximum: a flood sent from the qdisc's own
 * host is then never held back by its socket while the qdisc holds its
 * datagrams (a flood a router forwards has no socket to hold it back),
 * and the sink never overflows.
 */
static void big_buffer(int fd, int opt_force, int opt)
{
	int sz = 64 << 20;

	if (setsockopt(fd, SOL_SOCKET, opt_force, &sz, sizeof(sz)) < 0)
		setsockopt(fd, SOL_SOCKET, opt, &sz, sizeof(sz));
}

static int do_send(int argc, char **argv)
{
	static char payload[MAX_LEN];
	struct sockaddr_in to = { .sin_family = AF_INET };
	struct mmsghdr msgs[MAX_BATCH];
	struct iovec iov;
	long long rate = -1, flows = 1, len = 1000, seconds = 10, sport = 0, port;
	int fd[MAX_FLOWS];
	uint64_t sent = 0, start, end, gap, next;
	unsigned batch;
	int i, k;

	if (argc < 2)
		return usage();
	if (inet_pton(AF_INET, argv[0], &to.sin_addr) != 1) {
		fprintf(stderr, "udpflood: \"%s\" is not an IPv4 address\n", argv[0]);
		return 2;
	}
	port = number(argv[1], 1, 65535, "the port");
	if (port < 0)
		return 2;
	to.sin_port = htons((uint16_t)port);
	for (i = 2; i < argc; i += 2) {
		long long *v;
		long long lo = 1, hi;

		if (i + 1 >= argc) {
			fprintf(stderr, "udpflood: %s needs a value\n", argv[i]);
			return 2;
		}
		if (!strcmp(argv[i], "--rate"))
			v = &rate, hi = 100000000;
		else if (!strcmp(argv[i], "--flows"))
			v = &flows, hi = MAX_FLOWS;
		else if (!strcmp(argv[i], "--len"))
			v = &len, hi = MAX_LEN;
		else if (!strcmp(argv[i], "--seconds"))
			v = &seconds, hi = 86400;
		else if (!strcmp(argv[i], "--sport"))
			v = &sport, hi = 65535;
		else {
			fprintf(stderr, "udpflood: unknown option %s\n", argv[i]);
			return usage();
		}
		*v = number(argv[i + 1], lo, hi, argv[i]);
		if (*v < 0)
			return 2;
	}
	if (rate < 0) {
		fprintf(stderr, "udpflood: send needs --rate KBIT\n");
		return 2;
	}
	if (sport && sport + flows - 1 > 65535) {
		fprintf(stderr, "udpflood: --sport %lld leaves no room for %lld flows\n", sport, flows);
		return 2;
	}
	/* each flow's datagram interval, and a batch of at most 1 ms of it */
	gap = (uint64_t)(len * 8 * 1000000ll * flows / rate);
	if (gap == 0)
		gap = 1;
	batch = (unsigned)(1000000u / gap);
	if (batch < 1)
		batch = 1;
	if (batch > MAX_BATCH)
		batch = MAX_BATCH;
	memset(payload, 0x5a, (size_t)len);
	iov.iov_base = payload;
	iov.iov_len = (size_t)len;
	memset(msgs, 0, sizeof(msgs));
	for (i = 0; i < MAX_BATCH; i++) {
		msgs[i].msg_hdr.msg_name = &to;
		msgs[i].msg_hdr.msg_namelen = sizeof(to);
		msgs[i].msg_hdr.msg_iov = &iov;
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	for (k = 0; k < flows; k++) {
		fd[k] = socket(AF_INET, SOCK_DGRAM, 0);
		if (fd[k] < 0) {
			perror("udpflood: socket");
			return 1;
		}
		big_buffer(fd[k], SO_SNDBUFFORCE, SO_SNDBUF);
		if (sport) {
			struct sockaddr_in me = { .sin_family = AF_INET,
						  .sin_port = htons((uint16_t)(sport + k)) };

			if (bind(fd[k], (struct sockaddr *)&me, sizeof(me)) < 0) {
				fprintf(stderr, "udpflood: bind to port %lld: %s\n", sport + k,
					strerror(errno));
				return 1;
			}
		}
	}
	signals();
	start = now_ns();
	end = start + (uint64_t)seconds * 1000000000u;
	next = start;
	while (!stop) {
		uint64_t t = now_ns();

		if (t >= end)
			break;
		if (t > next + 50000000u)
			next = t; /* fell behind: restart the schedule */
		for (k = 0; k < flows; k++) {
			unsigned done = 0;

			while (done < batch) {
				int n = sendmmsg(fd[k], msgs, batch - done, 0);

				if (n < 0) {
					if (errno == EINTR && !stop)
						continue;
					if (errno == ENOBUFS || errno == ECONNREFUSED || errno == EINTR)
						break;
					perror("udpflood: sendmmsg");
					return 1;
				}
				done += (unsigned)n;
			}
			sent += done;
		}
		next += gap * batch;
		/* the last batch's interval runs to the end, not past it */
		sleep_until(next < end ? next : end);
	}
	{
		double secs = (double)(now_ns() - start) / 1e9;

		printf("{\"datagrams\": %llu, \"bytes\": %llu, \"seconds\": %.3f, \"flows\": %lld, "
		       "\"rate_kbit\": %.0f, \"asked_kbit\": %lld}\n",
		       (unsigned long long)sent, (unsigned long long)(sent * (uint64_t)len), secs,
		       flows, secs > 0 ? (double)sent * (double)len * 8 / 1000 / secs : 0.0, rate);
	}
	return 0;
}

static int do_sink(int argc, char **argv)
{
	static char bufs[MAX_BATCH][2048];
	struct mmsghdr msgs[MAX_BATCH];
	struct iovec iov[MAX_BATCH];
	struct sockaddr_in me = { .sin_family = AF_INET };
	long long port, seconds = 0;
	uint64_t got = 0;
	int fd, i;

	if (argc != 1 && argc != 3)
		return usage();
	port = number(argv[0], 1, 65535, "the port");
	if (port < 0)
		return 2;
	if (argc == 3) {
		if (strcmp(argv[1], "--seconds"))
			return usage();
		seconds = number(argv[2], 1, 86400, "--seconds");
		if (seconds < 0)
			return 2;
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("udpflood: socket");
		return 1;
	}
	big_buffer(fd, SO_RCVBUFFORCE, SO_RCVBUF);
	me.sin_port = htons((uint16_t)port);
	if (bind(fd, (struct sockaddr *)&me, sizeof(me)) < 0) {
		fprintf(stderr, "udpflood: bind to port %lld: %s\n", port, strerror(errno));
		return 1;
	}
	for (i = 0; i < MAX_BATCH; i++) {
		iov[i].iov_base = bufs[i];
		iov[i].iov_len = sizeof(bufs[i]);
		memset(&msgs[i], 0, sizeof(msgs[i]));
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	signals();
	if (seconds)
		alarm((unsigned)seconds);
	while (!stop) {
		int n = recvmmsg(fd, msgs, MAX_BATCH, MSG_WAITFORONE, NULL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("udpflood: recvmmsg");
			return 1;
		}
		got += (unsigned)n;
	}
	printf("{\"datagrams\": %llu}\n", (unsigned long long)got);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "send"))
		return do_send(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "sink"))
		return do_sink(argc - 2, argv + 2);
	return usage();
}
