/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * Writing a file without ever destroying one.
 *
 * The data go to a temporary file in the target's directory, renamed over
 * the target only once complete (outfile_commit); a failure, a signal or
 * outfile_abort leaves an existing target as it was. A symbolic link is
 * followed: the file it names is replaced and the link stays. A target that
 * exists and is not a regular file (/dev/null, a FIFO) is written in place.
 * "-" is standard output; its data are held in an anonymous temporary file
 * and copied out at commit, so a failed run writes nothing there either.
 * A replaced file keeps its mode (and, for root, its owner); a new one gets
 * 0666 less the umask, as fopen would give it.
 */
#ifndef CHOKE_UTIL_OUTFILE_H
#define CHOKE_UTIL_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

struct outfile {
	FILE *fp;      /* write the data here */
	char *target;  /* the file replaced or created (NULL for standard output) */
	char *tmp;     /* the temporary beside it, or NULL (in place, stdout) */
	int to_stdout;
};

/*
 * Open path for writing. input, if not NULL, is a file being read ("-":
 * standard input): when path is that same file (same device and inode,
 * after following links: a symbolic link, a hard link or another path to
 * it), the open is refused. Returns 0, or a negative errno with a message
 * naming the problem in err.
 */
int outfile_open(struct outfile *of, const char *path, const char *input, char *err,
		 size_t errlen);

/* Flush, sync and rename into place (or copy to standard output). Returns 0
 * or a negative errno with a message; on failure the target is untouched. */
int outfile_commit(struct outfile *of, char *err, size_t errlen);

/* Close and remove the temporary; the target is untouched. */
void outfile_abort(struct outfile *of);

#endif
