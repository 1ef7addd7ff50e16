/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* Scenarios found by name: see sim_scenario_find in scenario.h. */
#include "scenario.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Given by the Makefile as $(PREFIX)/share/choke/scenarios. */
#ifndef CHOKE_SCENARIO_DIR
#define CHOKE_SCENARIO_DIR "/usr/local/share/choke/scenarios"
#endif

const char sim_scenario_dir[] = CHOKE_SCENARIO_DIR;

#define MAX_DIRS 64
#define MAX_NAMES 256

static int find_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int find_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* the directories to search, in order, into dirs (pointing into buf) */
static int search_dirs(const char *installed, char *buf, size_t len, const char **dirs)
{
	const char *env = getenv("CHOKE_SCENARIO_PATH");
	char *p, *save = NULL;
	int n = 0;

	snprintf(buf, len, "%s", env ? env : "");
	for (p = strtok_r(buf, ":", &save); p && n < MAX_DIRS - 2; p = strtok_r(NULL, ":", &save))
		dirs[n++] = p;
	dirs[n++] = "./scenarios";
	dirs[n++] = installed;
	return n;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The message for a name not found: where, and what is there. */
static int not_found(const char *name, const char *const *dirs, int ndirs, char *err,
		     size_t errlen)
{
	char *names[MAX_NAMES], full[4200];
	size_t off;
	int i, n = 0, k;

	off = (size_t)snprintf(err, errlen, "no scenario \"%s\" in", name);
	for (i = 0; i < ndirs && off < errlen; i++)
		off += (size_t)snprintf(err + off, errlen - off, "%s %s", i ? "," : "", dirs[i]);
	if (off < errlen)
		off += (size_t)snprintf(err + off, errlen - off, " or the current directory%s",
					getenv("CHOKE_SCENARIO_PATH") ? "" :
					" ($CHOKE_SCENARIO_PATH is not set)");
	for (i = 0; i < ndirs; i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *e;

		if (!d)
			continue;
		while ((e = readdir(d)) && n < MAX_NAMES) {
			size_t l = strlen(e->d_name);

			if (e->d_name[0] == '.' || (l && e->d_name[l - 1] == '~'))
				continue;
			snprintf(full, sizeof(full), "%s/%s", dirs[i], e->d_name);
			if (!is_file(full))
				continue;
			for (k = 0; k < n && strcmp(names[k], e->d_name); k++)
				;
			if (k == n && (names[n] = strdup(e->d_name)))
				n++;
		}
		closedir(d);
	}
	qsort(names, (size_t)n, sizeof(names[0]), cmp_str);
	if (off < errlen)
		off += (size_t)snprintf(err + off, errlen - off, "; scenarios there:");
	for (k = 0; k < n; k++) {
		if (off < errlen)
			off += (size_t)snprintf(err + off, errlen - off, "%s %s", k ? "," : "", names[k]);
		free(names[k]);
	}
	if (off < errlen)
		snprintf(err + off, errlen - off, "%s (and paper-single-link is built in)",
			 n ? "" : " none");
	return -1;
}

int sim_scenario_find(const char *name, const char *installed_dir, char *path, size_t pathlen,
		      char *err, size_t errlen)
{
	const char *dirs[MAX_DIRS];
	char buf[4096];
	int i, n;

	if (!*name)
		return find_err(err, errlen, "an empty scenario name");
	if (strchr(name, '/')) {
		snprintf(path, pathlen, "%s", name);
		return 1;
	}
	n = search_dirs(installed_dir ? installed_dir : sim_scenario_dir, buf, sizeof(buf), dirs);
	for (i = 0; i < n; i++) {
		if ((size_t)snprintf(path, pathlen, "%s/%s", dirs[i], name) < pathlen && is_file(path))
			return 1;
	}
	if (is_file(name) || (!strcmp(name, ".") || !strcmp(name, ".."))) {
		snprintf(path, pathlen, "%s", name);
		return 1;
	}
	if (!strcmp(name, "paper-single-link")) {
		snprintf(path, pathlen, "%s", "");
		return 0;
	}
	path[0] = 0;
	return not_found(name, dirs, n, err, errlen);
}

int sim_scenario_open(struct sim_scenario *sc, const char *name, char *path, size_t pathlen,
		      char *err, size_t errlen)
{
	struct stat st;
	int r = sim_scenario_find(name, NULL, path, pathlen, err, errlen);

	if (r < 0)
		return -1;
	if (r == 0)
		return sim_scenario_builtin(sc, err, errlen);
	if (sim_scenario_init(sc))
		return find_err(err, errlen, "out of memory");
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		find_err(err, errlen, "%s: a directory, not a scenario file", path);
		goto fail;
	}
	if (sim_scenario_load(sc, path, err, errlen))
		goto fail;
	return 0;
fail:
	sim_scenario_free(sc);
	return -1;
}
