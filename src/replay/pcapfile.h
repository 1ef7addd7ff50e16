/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * Classic pcap files read without libpcap: the replay's fast path. The
 * file is read through one large buffer and each record is handed out in
 * place (no copy, no stdio), which is what lets the replay run at the
 * rate it does (docs/performance.md). It takes the common case only: pcap
 * version 2.4 with microsecond or nanosecond timestamps in either byte
 * order, on the link types the replay keys; anything else (pcapng, older
 * versions, modified formats, the link types whose pseudo-headers libpcap
 * byte-swaps) goes to libpcap (replay.c). Where both read a file, the
 * records are the same: times, lengths and bytes.
 */
#ifndef CHOKE_REPLAY_PCAPFILE_H
#define CHOKE_REPLAY_PCAPFILE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/* the file header's size, and the most a record may capture */
#define PCAPFILE_HDR 24
#define PCAPFILE_MAX_CAPLEN (256u * 1024)

struct pcapfile {
	int fd;
	uint8_t *buf;
	size_t size, pos, end; /* the unread bytes are buf[pos, end) */
	int eof;               /* read() has returned 0 */
	int swapped;           /* written in the other byte order */
	int nano;              /* nanosecond timestamps */
	uint32_t linktype;     /* the LINKTYPE_ value (extension bits masked) */
	uint32_t snaplen;      /* as libpcap adjusts it: 0 or above INT_MAX is 256 KiB */
	uint64_t offset;       /* the file offset of buf[pos] */
	/* a read stops when *stop becomes non-zero (EINTR is retried otherwise) */
	const volatile sig_atomic_t *stop;
	/* after PCAPFILE_CUT: what the file lacked; after an error, errno */
	uint32_t cut_want, cut_got;
	int cut_in_header, err;
};

struct pcapfile_rec {
	uint32_t sec, frac;   /* as stored (the fraction in the file's unit) */
	uint32_t caplen, len;
	const uint8_t *data;  /* caplen bytes, valid until the next call */
};

enum {
	PCAPFILE_END = 0,
	PCAPFILE_RECORD = 1,
	PCAPFILE_CUT = -1,     /* the file ends inside a record */
	PCAPFILE_BIGCAP = -2,  /* a captured length above PCAPFILE_MAX_CAPLEN */
	PCAPFILE_IOERR = -3,   /* read() failed (err), or stopped (EINTR) */
};

/*
 * Whether the fast path reads a file beginning with these 24 bytes whose
 * link type the replay supports (linktype_ok); if so, fills the format's
 * fields of *f (byte order, resolution, link type, snaplen).
 */
int pcapfile_takes(const uint8_t hdr[PCAPFILE_HDR], int (*linktype_ok)(uint32_t),
		   struct pcapfile *f);

/* Start reading fd after the header (already read); 0 or -ENOMEM. */
int pcapfile_open(struct pcapfile *f, int fd, const volatile sig_atomic_t *stop);
void pcapfile_close(struct pcapfile *f);

/* The next record: PCAPFILE_RECORD, PCAPFILE_END or one of the others. */
int pcapfile_next_slow(struct pcapfile *f, struct pcapfile_rec *r);

static inline uint32_t pcapfile_rd32(const uint8_t *p, int swapped)
{
	uint32_t v;

	__builtin_memcpy(&v, p, 4);
	return swapped ? __builtin_bswap32(v) : v;
}

/* the common case inline: the whole record already in the buffer */
static inline int pcapfile_next(struct pcapfile *f, struct pcapfile_rec *r)
{
	size_t left = f->end - f->pos;
	const uint8_t *h = f->buf + f->pos;

	if (left >= 16) {
		uint32_t cap = pcapfile_rd32(h + 8, f->swapped);

		if (cap <= left - 16 && cap <= PCAPFILE_MAX_CAPLEN) {
			r->sec = pcapfile_rd32(h, f->swapped);
			r->frac = pcapfile_rd32(h + 4, f->swapped);
			r->caplen = cap;
			r->len = pcapfile_rd32(h + 12, f->swapped);
			r->data = h + 16;
			f->pos += 16 + (size_t)cap;
			f->offset += 16 + (size_t)cap;
			return PCAPFILE_RECORD;
		}
	}
	return pcapfile_next_slow(f, r);
}

#endif
