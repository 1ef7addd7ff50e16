/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * What the bridge needs from the system around it: one bridge per
 * interface (a lock), telling a supervisor how it is doing (systemd's
 * notification protocol), and giving up its privileges.
 */
#ifndef CHOKE_BRIDGE_RUNTIME_H
#define CHOKE_BRIDGE_RUNTIME_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>

#define RT_RUN_DIR "/run/choke"

/* Create RT_RUN_DIR (mode 0700) if it is not there. 0, or -1. */
int rt_run_dir(char *err, size_t errlen);

struct rt_lock {
	int fd;
	int ifindex; /* the interface it locks */
	int stale; /* the file was there, left by a holder that died */
	char path[128];
};

/*
 * Take the lock of an interface of this network namespace: an flock on
 * RT_RUN_DIR/net<netns inode>-if<ifindex>.lock, which then holds "PID
 * IFNAME". The kernel releases it when its holder dies, however it dies,
 * so a stale file does not block. 0, or -1 with a message (naming the
 * holder's pid when another bridge has it).
 */
int rt_lock_iface(const char *ifname, struct rt_lock *l, char *err, size_t errlen);
/* Remove the file and release the lock (nothing if not held). */
void rt_unlock_iface(struct rt_lock *l);

/* sd_notify(3)'s protocol: datagrams of "VAR=value" lines to the AF_UNIX
 * socket named by $NOTIFY_SOCKET (a path, or "@name" for an abstract one);
 * nothing when it is not set. */
struct rt_notify {
	int fd;
	struct sockaddr_un sa;
	socklen_t len;
};
/* 0 (open, or nothing to notify), or -1 with a message (not notifying). */
int rt_notify_open(struct rt_notify *nt, char *err, size_t errlen);
/* Send the formatted message; 0, or -1 with the reason in err. */
int rt_notify(struct rt_notify *nt, char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void rt_notify_close(struct rt_notify *nt);

/* Link notifications: an rtnetlink socket in RTMGRP_LINK (interfaces
 * created, deleted, renamed, up or down in this network namespace). No
 * privilege is needed. */
struct rt_links {
	int fd;
};
/* 0, or -1 with a message. */
int rt_links_open(struct rt_links *l, char *err, size_t errlen);
/* Read what is pending, never blocking: 1 if a link changed (or the kernel
 * lost notifications for want of room), 0 if not. */
int rt_links_changed(struct rt_links *l);
void rt_links_close(struct rt_links *l);

/* The index of the interface named ifname in this network namespace (from
 * /sys/class/net), 0 if there is none. */
int rt_ifindex(const char *ifname);
/* Its MTU, -1 if there is no such interface. */
long rt_mtu(const char *ifname);

/* Drop every capability (bounding set, effective, permitted, inheritable)
 * and set no_new_privs. 0, or -1 with a message. */
int rt_drop_capabilities(char *err, size_t errlen);
/* The same but for the capabilities in keep (bit n: capability n), which
 * stay effective and permitted if the process has them. */
int rt_drop_capabilities_but(uint64_t keep, char *err, size_t errlen);

#endif
