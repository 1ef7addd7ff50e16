/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* What the bridge needs from the system around it: see runtime.h. */
#include "runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- one bridge per interface ---- */

int rt_run_dir(char *err, size_t errlen)
{
	if (mkdir(RT_RUN_DIR, 0700) && errno != EEXIST) {
		snprintf(err, errlen, "%s: %s%s", RT_RUN_DIR, strerror(errno),
			 errno == EACCES || errno == EPERM ? " (the bridge needs root)" : "");
		return -1;
	}
	return 0;
}

int rt_lock_iface(const char *ifname, struct rt_lock *l, char *err, size_t errlen)
{
	int idx = rt_ifindex(ifname);
	struct stat ns, a, b;
	char buf[64];
	int tries, fd;

	l->fd = -1;
	if (!idx) {
		snprintf(err, errlen, "no such interface: %s", ifname);
		return -1;
	}
	if (stat("/proc/self/ns/net", &ns)) {
		snprintf(err, errlen, "/proc/self/ns/net: %s", strerror(errno));
		return -1;
	}
	if (rt_run_dir(err, errlen))
		return -1;
	snprintf(l->path, sizeof(l->path), RT_RUN_DIR "/net%llu-if%d.lock",
		 (unsigned long long)ns.st_ino, idx);
	l->ifindex = idx;
	for (tries = 0; tries < 10; tries++) {
		fd = open(l->path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
		if (fd < 0) {
			snprintf(err, errlen, "lock %s: %s%s", l->path, strerror(errno),
				 errno == EACCES || errno == EPERM ? " (the bridge needs root)" : "");
			return -1;
		}
		if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
			/* a stopping bridge may have unlinked it meanwhile */
			if (fstat(fd, &a) || stat(l->path, &b) || a.st_ino != b.st_ino ||
			    a.st_dev != b.st_dev) {
				close(fd);
				continue;
			}
			/* a stopping bridge removes the file: one with a pid in
			 * it was left by a bridge that died */
			l->stale = a.st_size > 0;
			snprintf(buf, sizeof(buf), "%d %s\n", (int)getpid(), ifname);
			if (ftruncate(fd, 0) || pwrite(fd, buf, strlen(buf), 0) < 0) {
				snprintf(err, errlen, "lock %s: %s", l->path, strerror(errno));
				close(fd);
				return -1;
			}
			l->fd = fd;
			return 0;
		}
		if (errno != EWOULDBLOCK) {
			snprintf(err, errlen, "lock %s: %s", l->path, strerror(errno));
			close(fd);
			return -1;
		}
		/* held: by whom (it may be writing its pid just now) */
		{
			ssize_t n = 0;
			int i;

			for (i = 0; i < 20 && n <= 0; i++) {
				n = pread(fd, buf, sizeof(buf) - 1, 0);
				if (n <= 0)
					usleep(10000);
			}
			buf[n > 0 ? n : 0] = 0;
			close(fd);
			snprintf(err, errlen, "%s is already bridged by another choke bridge "
				 "(pid %d; lock %s); stop it first", ifname,
				 n > 0 ? atoi(buf) : 0, l->path);
			return -1;
		}
	}
	snprintf(err, errlen, "lock %s: keeps changing; try again", l->path);
	return -1;
}

void rt_unlock_iface(struct rt_lock *l)
{
	if (l->fd < 0)
		return;
	unlink(l->path);
	close(l->fd);
	l->fd = -1;
}

/* ---- telling systemd (sd_notify's datagram, written out) ---- */

int rt_notify_open(struct rt_notify *nt, char *err, size_t errlen)
{
	const char *p = getenv("NOTIFY_SOCKET");
	size_t n = p ? strlen(p) : 0;

	nt->fd = -1;
	if (!n)
		return 0;
	if ((p[0] != '/' && p[0] != '@') || n >= sizeof(nt->sa.sun_path)) {
		snprintf(err, errlen, "NOTIFY_SOCKET \"%s\" is neither a path nor an abstract "
			 "name (@...): not notifying", p);
		return -1;
	}
	memset(&nt->sa, 0, sizeof(nt->sa));
	nt->sa.sun_family = AF_UNIX;
	memcpy(nt->sa.sun_path, p, n);
	if (p[0] == '@')
		nt->sa.sun_path[0] = 0; /* abstract */
	nt->len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
	nt->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (nt->fd < 0) {
		snprintf(err, errlen, "NOTIFY_SOCKET: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int rt_notify(struct rt_notify *nt, char *err, size_t errlen, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	int n;

	if (nt->fd < 0)
		return 0;
	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(msg))
		n = n < 0 ? 0 : (int)sizeof(msg) - 1;
	if (sendto(nt->fd, msg, (size_t)n, MSG_NOSIGNAL, (struct sockaddr *)&nt->sa,
		   nt->len) < 0) {
		snprintf(err, errlen, "NOTIFY_SOCKET: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- the interfaces: notifications, indexes ---- */

int rt_links_open(struct rt_links *l, char *err, size_t errlen)
{
	struct sockaddr_nl sa;

	l->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (l->fd < 0) {
		snprintf(err, errlen, "rtnetlink socket: %s", strerror(errno));
		return -1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.nl_family = AF_NETLINK;
	sa.nl_groups = RTMGRP_LINK;
	if (bind(l->fd, (struct sockaddr *)&sa, sizeof(sa))) {
		snprintf(err, errlen, "rtnetlink link notifications: %s", strerror(errno));
		close(l->fd);
		l->fd = -1;
		return -1;
	}
	return 0;
}

int rt_links_changed(struct rt_links *l)
{
	char buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
	int changed = 0;
	ssize_t n;

	if (l->fd < 0)
		return 0;
	while ((n = recv(l->fd, buf, sizeof(buf), MSG_DONTWAIT)) != 0) {
		const struct nlmsghdr *h;
		size_t left;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) { /* some were lost: look anyway */
				changed = 1;
				continue;
			}
			break; /* EAGAIN: all read */
		}
		left = (size_t)n;
		for (h = (const struct nlmsghdr *)buf; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left))
			if (h->nlmsg_type == RTM_NEWLINK || h->nlmsg_type == RTM_DELLINK)
				changed = 1;
	}
	return changed;
}

void rt_links_close(struct rt_links *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}

static long sys_long(const char *ifname, const char *what)
{
	char path[160];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", ifname, what);
	f = fopen(path, "re");
	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

int rt_ifindex(const char *ifname)
{
	long v = sys_long(ifname, "ifindex");

	return v > 0 && v <= 0x7fffffff ? (int)v : 0;
}

long rt_mtu(const char *ifname)
{
	return sys_long(ifname, "mtu");
}

/* ---- privileges ---- */

int rt_drop_capabilities(char *err, size_t errlen)
{
	return rt_drop_capabilities_but(0, err, errlen);
}

int rt_drop_capabilities_but(uint64_t keep, char *err, size_t errlen)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	int cap;

	/* keep only what we have (a service's bounding set may lack some) */
	if (syscall(SYS_capget, &h, data) == 0)
		keep &= (uint64_t)data[1].permitted << 32 | data[0].permitted;
	for (cap = 0; cap <= 63; cap++)
		if (!(keep >> cap & 1) && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) &&
		    errno != EINVAL)
			break;
	memset(data, 0, sizeof(data));
	data[0].effective = data[0].permitted = (uint32_t)keep;
	data[1].effective = data[1].permitted = (uint32_t)(keep >> 32);
	if (syscall(SYS_capset, &h, data)) {
		snprintf(err, errlen, "dropping capabilities: %s", strerror(errno));
		return -1;
	}
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	return 0;
}

void rt_notify_close(struct rt_notify *nt)
{
	if (nt->fd >= 0)
		close(nt->fd);
	nt->fd = -1;
}
