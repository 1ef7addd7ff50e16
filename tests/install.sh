#!/bin/sh
# make install into a staging directory, then build and run a program
# against the installed library through pkg-config, shared and static.
set -eu
BUILD=${BUILD:-build/gcc}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT INT TERM
make -s install BUILD="$BUILD" CC=gcc PREFIX=/usr DESTDIR="$d" >/dev/null
for f in usr/lib/libchoke.a usr/lib/libchoke.so.0.1.0 usr/lib/libchoke.so.0 \
	usr/lib/libchoke.so usr/include/choke/core.h usr/include/choke/params.h \
	usr/lib/pkgconfig/choke.pc usr/bin/choke usr/share/man/man1/choke.1; do
	[ -e "$d/$f" ] || { echo "FAIL install: $f missing"; exit 1; }
done
soname=$(readelf -d "$d/usr/lib/libchoke.so.0.1.0" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ "$soname" = libchoke.so.0 ] || { echo "FAIL install: soname is '$soname'"; exit 1; }
export PKG_CONFIG_PATH="$d/usr/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$d"
cat >"$d/prog.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <choke/core.h>
#include <choke/params.h>
int main(void)
{
	char *w[] = { "limit", "100", "bandwidth", "10mbit" };
	struct choke_params p;
	char err[CHOKE_ERRBUF_SIZE];
	struct choke q;
	struct choke_verdict v;
	int x = 1;
	void *ring;

	if (choke_params_parse(4, w, CHOKE_KIND_CHOKE, NULL, &p, err))
		return 1;
	ring = malloc(choke_ring_bytes(p.cfg.limit));
	if (choke_init(&q, &p.cfg, ring, choke_ring_bytes(p.cfg.limit)))
		return 2;
	if (choke_enqueue(&q, &x, 100, 1, 0, 0, &v) != CHOKE_QUEUED)
		return 3;
	if (choke_dequeue(&q, 0, NULL) != &x)
		return 4;
	printf("ok %u %u\n", p.cfg.qth_min, p.cfg.qth_max);
	free(ring);
	return 0;
}
C
gcc -Wall -Werror "$d/prog.c" -o "$d/prog-shared" $(pkg-config --cflags --libs choke)
[ "$(LD_LIBRARY_PATH="$d/usr/lib" "$d/prog-shared")" = "ok 8 25" ] || { echo "FAIL install: shared program"; exit 1; }
gcc -Wall -Werror "$d/prog.c" -o "$d/prog-static" $(pkg-config --cflags choke) "$d/usr/lib/libchoke.a" -lm
[ "$("$d/prog-static")" = "ok 8 25" ] || { echo "FAIL install: static program"; exit 1; }
"$d/usr/bin/choke" params limit 100 bandwidth 10mbit >/dev/null
echo "ok   install: files, soname, pkg-config, shared and static programs"
