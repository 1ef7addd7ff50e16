#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# The part of tests/deb.sh that runs inside the fresh root (chroot):
#
#   sh deb-root.sh snapshot FILE   the root's file list (what a package may
#                                  leave behind) into FILE
#   sh deb-root.sh install         dpkg -i /root/debs/*.deb, then use them
#   sh deb-root.sh purge           dpkg --purge the four packages
#
# One "ok NAME: ..." or "FAIL NAME: ..." line per check.
set -u
fails=0
ok() { echo "ok   $1"; }
bad() { fails=$((fails + 1)); echo "FAIL $1: $2"; }
PKGS="choke-dkms tc-chokeplus choke libchoke-dev libchoke0"

snapshot() {
	# A machine with a kernel has its module index (modules.dep...), which
	# depmod rewrites when DKMS adds or removes a module; this root has the
	# headers but no kernel, so make the index it would have.
	for k in $(ls /lib/modules 2>/dev/null); do
		[ -f "/lib/modules/$k/modules.dep" ] || depmod "$k"
	done
	# Left out: the kernel's file systems, scratch and logs (/tmp, /var/tmp,
	# /var/log: dpkg.log and apt's history grow), man-db's index (rebuilt by
	# its trigger; it holds no file per package), /root (this test's own
	# files), and DKMS's module signing key (/var/lib/dkms/mok.key and
	# mok.pub: made by dkms itself when it first builds any module, and kept
	# on purpose, since it may be enrolled in the firmware; it belongs to
	# dkms, which stays installed).
	find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /run -o -path /tmp \
		-o -path /var/tmp -o -path /var/log -o -path /var/cache/man -o -path /root \
		-o -path /var/lib/dkms/mok.key -o -path /var/lib/dkms/mok.pub \) \
		-prune -o -print | sort >"$1"
}

install_and_use() {
	kver=$(ls /lib/modules 2>/dev/null | head -1)
	version=$(cat /root/version) # the packages' (tests/deb.sh)
	if dpkg -i /root/debs/*.deb >/root/dpkg-i.log 2>&1; then
		ok "install: dpkg -i $(ls /root/debs | tr '\n' ' ')"
	else
		bad install "$(tail -5 /root/dpkg-i.log)"
		return
	fi
	# DKMS: built for the kernel whose headers are installed, as Debian's
	# own DKMS packages do; without headers, only added
	if [ -n "$kver" ] && [ -e "/lib/modules/$kver/build" ]; then
		ko=/lib/modules/$kver/updates/dkms/sch_libchoke.ko
		if dkms status | grep -q "^sch_libchoke/[^,]*, $kver, [^:]*: installed" && [ -f "$ko" ] &&
			[ "$(modinfo -F name "$ko")" = sch_libchoke ] &&
			modinfo -F vermagic "$ko" | grep -q "^$kver "; then
			ok "dkms-built: sch_libchoke.ko built and installed for $kver ($(dkms status | head -1))"
		else
			bad dkms-built "$(dkms status); $(grep -i -A3 'error\|fail' /root/dpkg-i.log | head -8)"
		fi
	else
		# (no kernel at all: DKMS notes that the running one is the
		# chroot's host's and builds for none)
		if dkms status | grep -q '^sch_libchoke/[^:]*: added' &&
			grep -q "skipped\|belongs to a chroot's host" /root/dpkg-i.log; then
			ok "dkms-added: no kernel headers in the root: added, not built ($(grep -m1 "skipped\|belongs to a chroot's host" /root/dpkg-i.log))"
		else
			bad dkms-added "$(dkms status); $(tail -5 /root/dpkg-i.log)"
		fi
	fi
	[ "$(command -v choke)" = /usr/bin/choke ] && [ "$(choke version)" = "choke $version" ] &&
		ok "choke: /usr/bin/choke, $(choke version)" || bad choke "$(command -v choke) $(choke version 2>&1)"
	# the one version (docs/release.md), everywhere a user can read it:
	# WHERE=VALUE pairs, every VALUE the packages' version
	ko=$(ls /lib/modules/*/updates/dkms/sch_libchoke.ko 2>/dev/null | head -1)
	got=$(for p in $PKGS; do echo "$p.deb=$(dpkg-query -W -f '${Version}' $p)"; done
		echo "choke-version=$(choke version | sed 's/^choke //')"
		echo "pkg-config=$(pkg-config --modversion choke)"
		echo "dkms=$(dkms status sch_libchoke 2>/dev/null | sed -n 's|^sch_libchoke/\([^,:]*\).*|\1|p' | head -1)"
		[ -z "$ko" ] || echo "modinfo=$(modinfo -F version "$ko")"
		echo "NEWS=$(zcat -f /usr/share/doc/choke/NEWS* 2>/dev/null | sed -n 's/^Version \([^ ]*\) .*/\1/p' | head -1)")
	if [ -z "$(echo "$got" | grep -v "=$version\$")" ]; then
		ok "versions: all $version: $(echo $got)"
	else
		bad versions "not all $version: $(echo $got)"
	fi
	cd /
	if choke demo >/root/demo.out 2>&1 && grep -q '^UDP share of the link ' /root/demo.out; then
		ok "demo: $(grep '^UDP share of the link ' /root/demo.out | tr -s ' ')"
	else
		bad demo "$(tail -3 /root/demo.out)"
	fi
	if choke sim multi-udp --set duration=5s --set warmup=1s >/root/sim.out 2>&1 &&
		grep -qi 'udp' /root/sim.out; then
		ok "sim: choke sim multi-udp from / (the scenario from /usr/share/choke/scenarios)"
	else
		bad sim "$(tail -3 /root/sim.out)"
	fi
	n=$(ls /usr/share/choke/scenarios | wc -l)
	[ "$n" -ge 5 ] && ok "scenarios: $n in /usr/share/choke/scenarios" || bad scenarios "$n"
	# a program against the library, through pkg-config
	cd /root/example || return
	if [ "$(pkg-config --modversion choke)" = "$version" ] &&
		cc -std=c11 -Wall -Werror prog.c $(pkg-config --cflags --libs choke) -o prog-shared \
			>/root/cc.out 2>&1 &&
		ldd prog-shared | grep -q 'libchoke.so.0 => /[^ ]*/libchoke.so.0 ' &&
		./prog-shared | grep -q '^sent [0-9]*, dropped [0-9]*, marked [0-9]*$'; then
		ok "pkg-config: README's program built with \$(pkg-config --cflags --libs choke): $(./prog-shared)"
	else
		bad pkg-config "$(pkg-config --modversion choke 2>&1) $(cat /root/cc.out)"
	fi
	if cc -std=c11 prog.c $(pkg-config --cflags choke) -L"$(pkg-config --variable=libdir choke)" \
		-Wl,-Bstatic -lchoke -Wl,-Bdynamic $(pkg-config --static --libs-only-l choke | sed 's/-lchoke//') \
		-o prog-static >/root/cc.out 2>&1 && ! ldd prog-static | grep -q libchoke &&
		[ "$(./prog-static)" = "$(./prog-shared)" ]; then
		ok "static: the same program against libchoke.a"
	else
		bad static "$(cat /root/cc.out)"
	fi
	cd /
	if [ "$(man -w choke)" = /usr/share/man/man1/choke.1.gz ] &&
		MANWIDTH=80 MANPAGER=cat man choke 2>/root/man.err | grep -q 'choke bridge' &&
		[ ! -s /root/man.err ]; then
		ok "man: man choke ($(man -w choke))"
	else
		bad man "$(man -w choke 2>&1) $(cat /root/man.err)"
	fi
	if systemd-analyze verify choke-bridge@eth1.service choke-bridge-xdp@eth1.service \
		choke-exporter.service >/root/verify.out 2>&1 &&
		[ ! -s /root/verify.out ]; then
		ok "units-verify: systemd-analyze verify choke-bridge@eth1.service choke-bridge-xdp@eth1.service choke-exporter.service"
	else
		bad units-verify "$(cat /root/verify.out)"
	fi
	ex=/usr/share/doc/choke/examples/bridge.conf.example
	if [ -f $ex ] && [ -d /etc/choke ] && [ -z "$(ls -A /etc/choke)" ] &&
		! dpkg-query --control-show choke conffiles >/dev/null 2>&1 &&
		choke bridge --config $ex 2>&1 | grep -q 'no such interface: eth1'; then
		ok "config-example: $ex reads (then: no such interface: eth1); /etc/choke empty, no conffile"
	else
		bad config-example "$(ls -A /etc/choke; choke bridge --config $ex 2>&1)"
	fi
	# the exporter's user and the sockets' group (debian/choke.sysusers)
	if getent group choke >/dev/null && getent passwd _choke-exporter >/dev/null &&
		id -nG _choke-exporter | tr ' ' '\n' | grep -qx choke &&
		[ "$(getent passwd _choke-exporter | cut -d: -f7)" = /usr/sbin/nologin ] &&
		[ "$(getent passwd _choke-exporter | cut -d: -f3)" -lt 1000 ]; then
		ok "sysusers: the group choke, the system user _choke-exporter in it ($(id _choke-exporter))"
	else
		bad sysusers "$(getent group choke; getent passwd _choke-exporter)"
	fi
	# tc's chokeplus through the plugin of tc-chokeplus, from tc's own
	# directory (help and a refusal are the plugin's alone: nothing reaches
	# the kernel, which here is the host's)
	if tc qdisc add dev lo root chokeplus help 2>&1 | grep -q '^Usage: ... chokeplus limit PACKETS' &&
		tc qdisc add dev lo root chokeplus limit 100 protect 7 2>&1 | grep -q '^chokeplus: .*protect'; then
		ok "tc-plugin: tc loads q_chokeplus.so from $(dirname "$(dpkg -L tc-chokeplus | grep q_chokeplus.so)"): $(tc qdisc add dev lo root chokeplus limit 100 protect 7 2>&1 | head -1)"
	else
		bad tc-plugin "$(tc qdisc add dev lo root chokeplus help 2>&1 | head -2; tc qdisc add dev lo root chokeplus limit 100 protect 7 2>&1 | head -2)"
	fi
}

purge() {
	if dpkg --purge $PKGS >/root/dpkg-purge.log 2>&1; then
		ok "purge: dpkg --purge $PKGS"
	else
		bad purge "$(tail -5 /root/dpkg-purge.log)"
	fi
	left=$(dkms status 2>&1; ls -d /usr/src/sch_libchoke* /var/lib/dkms/sch_libchoke \
		/lib/modules/*/updates/dkms/sch_libchoke.ko /etc/choke 2>/dev/null)
	[ -z "$left" ] && ok "purge-dkms: dkms knows no module, /usr/src and /etc/choke are gone" ||
		bad purge-dkms "$left"
}

case ${1:-} in
snapshot) snapshot "$2" ;;
install) install_and_use ;;
purge) purge ;;
*) echo "usage: deb-root.sh snapshot FILE | install | purge" >&2; exit 2 ;;
esac
[ $fails = 0 ]
