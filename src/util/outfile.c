/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* Writing a file without ever destroying one: see outfile.h. */
#include "outfile.h"

#include <errno.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

__attribute__((format(printf, 4, 5)))
static int oerr(char *err, size_t errlen, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return code;
}

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static void outfile_free(struct outfile *of)
{
	free(of->target);
	free(of->tmp);
	of->target = NULL;
	of->tmp = NULL;
	of->fp = NULL;
}

int outfile_open(struct outfile *of, const char *path, const char *input, char *err,
		 size_t errlen)
{
	struct stat in_st, st;
	int have_in = 0, exists, fd, e;
	mode_t mode, mask;
	char *dir, *base;
	size_t n;

	memset(of, 0, sizeof(*of));
	if (input)
		have_in = !strcmp(input, "-") ? !fstat(0, &in_st) : !stat(input, &in_st);
	if (!strcmp(path, "-")) {
		if (have_in && !fstat(1, &st) && same_file(&st, &in_st))
			return oerr(err, errlen, -EEXIST, "standard output is the file being "
				    "read (%s): refusing to write onto it",
				    strcmp(input, "-") ? input : "standard input");
		of->fp = tmpfile();
		if (!of->fp)
			return oerr(err, errlen, -errno, "cannot create a temporary file for "
				    "standard output: %s", strerror(errno));
		of->to_stdout = 1;
		return 0;
	}
	if (!*path)
		return oerr(err, errlen, -EINVAL, "an empty file name");
	exists = !stat(path, &st);
	if (exists) {
		if (have_in && same_file(&st, &in_st))
			return oerr(err, errlen, -EEXIST, "%s is the file being read (%s): "
				    "refusing to overwrite it", path,
				    strcmp(input, "-") ? input : "standard input");
		if (S_ISDIR(st.st_mode))
			return oerr(err, errlen, -EISDIR, "%s is a directory", path);
		of->target = realpath(path, NULL);
		if (!of->target)
			return oerr(err, errlen, -errno, "%s: %s", path, strerror(errno));
		if (!S_ISREG(st.st_mode)) {
			/* a device or a FIFO: there is nothing to replace */
			of->fp = fopen(of->target, "w");
			if (!of->fp) {
				e = errno;
				outfile_free(of);
				return oerr(err, errlen, -e, "%s: %s", path, strerror(e));
			}
			return 0;
		}
		mode = st.st_mode & 07777;
	} else {
		if (errno != ENOENT)
			return oerr(err, errlen, -errno, "%s: %s", path, strerror(errno));
		if (!lstat(path, &st))
			return oerr(err, errlen, -ENOENT, "%s is a symbolic link to a missing "
				    "file", path);
		of->target = strdup(path);
		if (!of->target)
			return oerr(err, errlen, -ENOMEM, "out of memory");
		mask = umask(0);
		umask(mask);
		mode = 0666 & ~mask;
	}
	/* the temporary: ".NAME.XXXXXX" in the target's directory */
	dir = strdup(of->target);
	base = strdup(of->target);
	n = strlen(of->target) + 16;
	of->tmp = malloc(n);
	if (!dir || !base || !of->tmp) {
		free(dir);
		free(base);
		outfile_free(of);
		return oerr(err, errlen, -ENOMEM, "out of memory");
	}
	snprintf(of->tmp, n, "%s/.%s.XXXXXX", dirname(dir), basename(base));
	fd = mkstemp(of->tmp);
	if (fd < 0) {
		e = errno;
		oerr(err, errlen, -e, "cannot create a temporary file in %s for %s: %s",
		     dirname(strcpy(dir, of->target)), path, strerror(e));
		free(dir);
		free(base);
		outfile_free(of);
		return -e;
	}
	free(dir);
	free(base);
	if (fchmod(fd, mode) ||
	    (exists && geteuid() == 0 && fchown(fd, st.st_uid, st.st_gid)) ||
	    !(of->fp = fdopen(fd, "w"))) {
		e = errno;
		close(fd);
		unlink(of->tmp);
		outfile_free(of);
		return oerr(err, errlen, -e, "%s: %s", path, strerror(e));
	}
	return 0;
}

/* standard output: copy the held data out */
static int copy_out(FILE *from, char *err, size_t errlen)
{
	char buf[65536];
	size_t n;

	if (fflush(from) || fseek(from, 0, SEEK_SET))
		return oerr(err, errlen, -EIO, "writing the temporary file: %s",
			    strerror(errno));
	while ((n = fread(buf, 1, sizeof(buf), from)) > 0)
		if (fwrite(buf, 1, n, stdout) != n)
			break;
	if (ferror(from) || fflush(stdout) || ferror(stdout))
		return oerr(err, errlen, -EIO, "writing standard output: %s", strerror(errno));
	return 0;
}

int outfile_commit(struct outfile *of, char *err, size_t errlen)
{
	int rc = 0, e;

	if (of->to_stdout) {
		rc = copy_out(of->fp, err, errlen);
		fclose(of->fp);
		outfile_free(of);
		return rc;
	}
	if (fflush(of->fp) || ferror(of->fp) || (of->tmp && fsync(fileno(of->fp)))) {
		e = errno ? errno : EIO;
		rc = oerr(err, errlen, -e, "writing %s: %s", of->target, strerror(e));
	}
	if (fclose(of->fp) && !rc) {
		e = errno;
		rc = oerr(err, errlen, -e, "writing %s: %s", of->target, strerror(e));
	}
	if (of->tmp) {
		if (!rc && rename(of->tmp, of->target)) {
			e = errno;
			rc = oerr(err, errlen, -e, "cannot rename %s to %s: %s", of->tmp,
				  of->target, strerror(e));
		}
		if (rc)
			unlink(of->tmp);
	}
	outfile_free(of);
	return rc;
}

void outfile_abort(struct outfile *of)
{
	if (!of->fp)
		return;
	fclose(of->fp);
	if (of->tmp)
		unlink(of->tmp);
	outfile_free(of);
}
