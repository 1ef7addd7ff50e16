/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* Classic pcap files without libpcap: see pcapfile.h. */
#include "pcapfile.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the buffer: reads of this size, plus room for the largest record; it
 * starts at PCAPFILE_FIRST and grows once the file or a record needs more */
#define PCAPFILE_CHUNK (256u * 1024)
#define PCAPFILE_FIRST (16u * 1024)
#define PCAPFILE_RECHDR 16

static uint32_t rd32(const uint8_t *p, int swapped)
{
	return pcapfile_rd32(p, swapped);
}

static uint16_t rd16(const uint8_t *p, int swapped)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return swapped ? __builtin_bswap16(v) : v;
}

int pcapfile_takes(const uint8_t hdr[PCAPFILE_HDR], int (*linktype_ok)(uint32_t),
		   struct pcapfile *f)
{
	uint32_t magic = rd32(hdr, 0), lt;
	int swapped;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	if (magic == 0xa1b2c3d4 || magic == 0xa1b23c4d)
		swapped = 0;
	else if (magic == 0xd4c3b2a1 || magic == 0x4d3cb2a1)
		swapped = 1;
	else
		return 0; /* pcapng, a modified format, or not pcap */
	if (rd16(hdr + 4, swapped) != 2 || rd16(hdr + 6, swapped) != 4)
		return 0; /* older versions (their lengths may be swapped) */
	lt = rd32(hdr + 20, swapped) & 0x03FFFFFF;
	/* libpcap byte-swaps what these carry in the writer's order (SocketCAN
	 * identifiers, NFLOG's TLV headers): leave such files to it */
	if (swapped && (lt == 113 || lt == 276 || lt == 239))
		return 0;
	if (!linktype_ok(lt))
		return 0;
	f->swapped = swapped;
	f->nano = (swapped ? __builtin_bswap32(magic) : magic) == 0xa1b23c4d;
	f->linktype = lt;
	f->snaplen = rd32(hdr + 16, swapped);
	if (f->snaplen == 0 || f->snaplen > INT_MAX)
		f->snaplen = PCAPFILE_MAX_CAPLEN;
	f->offset = PCAPFILE_HDR;
	return 1;
}

int pcapfile_open(struct pcapfile *f, int fd, const volatile sig_atomic_t *stop)
{
	f->fd = fd;
	f->stop = stop;
	f->size = PCAPFILE_FIRST;
	f->buf = malloc(f->size);
	return f->buf ? 0 : -ENOMEM;
}

/* a buffer of at least n bytes (and no more than the most it needs) */
static int grow(struct pcapfile *f, size_t n)
{
	size_t size = f->size * 4 > n ? f->size * 4 : n;
	uint8_t *b;

	if (size > PCAPFILE_CHUNK + PCAPFILE_MAX_CAPLEN + PCAPFILE_RECHDR)
		size = PCAPFILE_CHUNK + PCAPFILE_MAX_CAPLEN + PCAPFILE_RECHDR;
	if (size < n || !(b = realloc(f->buf, size))) {
		f->err = ENOMEM;
		return -1;
	}
	f->buf = b;
	f->size = size;
	return 0;
}

void pcapfile_close(struct pcapfile *f)
{
	free(f->buf);
	f->buf = NULL;
}

/* At least n unread bytes in the buffer, or as many as the file has left:
 * 1, 0 (fewer: the file ended), or -1 (a read failed: f->err). */
static int fill(struct pcapfile *f, size_t n)
{
	if (f->end - f->pos >= n)
		return 1;
	if (f->pos) {
		memmove(f->buf, f->buf + f->pos, f->end - f->pos);
		f->end -= f->pos;
		f->pos = 0;
	}
	/* a larger buffer for a record that needs it, or once the file has
	 * filled the small one: the file is not small */
	if ((n > f->size || f->end == f->size || f->offset > f->size) &&
	    f->size < PCAPFILE_CHUNK + PCAPFILE_MAX_CAPLEN + PCAPFILE_RECHDR && grow(f, n))
		return -1;
	while (f->end < n && !f->eof) {
		ssize_t got = read(f->fd, f->buf + f->end, f->size - f->end);

		if (got > 0) {
			f->end += (size_t)got;
		} else if (got == 0) {
			f->eof = 1;
		} else if (errno != EINTR || (f->stop && *f->stop)) {
			f->err = errno;
			return -1;
		}
	}
	return f->end >= n;
}

int pcapfile_next_slow(struct pcapfile *f, struct pcapfile_rec *r)
{
	const uint8_t *h;
	int got = fill(f, PCAPFILE_RECHDR);

	if (got < 0)
		return PCAPFILE_IOERR;
	if (!got) {
		if (f->end == f->pos)
			return PCAPFILE_END;
		f->cut_in_header = 1;
		f->cut_want = PCAPFILE_RECHDR;
		f->cut_got = (uint32_t)(f->end - f->pos);
		return PCAPFILE_CUT;
	}
	h = f->buf + f->pos;
	r->sec = rd32(h, f->swapped);
	r->frac = rd32(h + 4, f->swapped);
	r->caplen = rd32(h + 8, f->swapped);
	r->len = rd32(h + 12, f->swapped);
	if (r->caplen > PCAPFILE_MAX_CAPLEN)
		return PCAPFILE_BIGCAP;
	got = fill(f, PCAPFILE_RECHDR + (size_t)r->caplen);
	if (got < 0)
		return PCAPFILE_IOERR;
	if (!got) {
		f->cut_in_header = 0;
		f->cut_want = r->caplen;
		f->cut_got = (uint32_t)(f->end - f->pos - PCAPFILE_RECHDR);
		return PCAPFILE_CUT;
	}
	r->data = f->buf + f->pos + PCAPFILE_RECHDR;
	f->pos += PCAPFILE_RECHDR + r->caplen;
	f->offset += PCAPFILE_RECHDR + r->caplen;
	return PCAPFILE_RECORD;
}
