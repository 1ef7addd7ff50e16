#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# Smoke test on Debian's own amd64 kernel under qemu (TCG): load the module
# built against linux-headers-$KVER, configure it with tc, push the reported
# flood through it, and do the same with the kernel's own sch_choke.
#
#   tests/kernel/qemu-smoke.sh            (make check-kernel-qemu)
#
# Needs qemu-system-x86, busybox-static, cpio, linux-headers-amd64 and the
# matching linux-image package file (fetched with apt-get download into
# build/kernel/qemu/). Output: build/kernel/qemu/console.log and a summary.
set -eu
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
Q=$ROOT/build/kernel/qemu
mkdir -p "$Q"
HDR=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -1)
[ -n "$HDR" ] || { echo "qemu-smoke: no /usr/src/linux-headers-*-amd64 (apt-get install linux-headers-amd64)"; exit 2; }
KVER=${HDR#/usr/src/linux-headers-}
for t in qemu-system-x86_64 busybox cpio gzip; do
	command -v $t >/dev/null 2>&1 || { echo "qemu-smoke: missing $t (apt-get install qemu-system-x86 busybox-static cpio)"; exit 2; }
done

deb=$(ls "$Q"/linux-image-"$KVER"_*.deb 2>/dev/null | tail -1 || true)
if [ -z "$deb" ]; then
	(cd "$Q" && apt-get download "linux-image-$KVER") || { echo "qemu-smoke: cannot fetch linux-image-$KVER"; exit 2; }
	deb=$(ls "$Q"/linux-image-"$KVER"_*.deb | tail -1)
fi
if [ ! -f "$Q/img/boot/vmlinuz-$KVER" ]; then
	rm -rf "$Q/img"; dpkg-deb -x "$deb" "$Q/img"
fi

echo "qemu-smoke: module against $HDR"
rm -rf "$Q/mod"
make -s -C kmod dkms-tree DESTDIR="$Q/mod" >/dev/null
make -s -C "$HDR" M="$Q/mod/kmod" modules >/dev/null

# initramfs: busybox, the host's ip/tc/iperf3 with their libraries, modules
R=$Q/initramfs
rm -rf "$R"; mkdir -p "$R/bin" "$R/lib/modules" "$R/proc" "$R/sys" "$R/run" "$R/tmp" "$R/dev" "$R/etc"
cp "$(command -v busybox)" "$R/bin/busybox"
for a in sh mount mkdir sleep cat echo insmod rmmod grep awk sed poweroff seq kill tr head tail wc dmesg timeout; do
	ln -s busybox "$R/bin/$a"
done
for b in /sbin/ip /sbin/tc /usr/bin/iperf3 /bin/ping; do
	cp "$b" "$R/bin/$(basename "$b")"
	for l in $(ldd "$b" | awk '/=>/ { print $3 } /^\t\/lib/ { print $1 }'); do
		mkdir -p "$R$(dirname "$l")"; cp -L "$l" "$R$l"
	done
done
M=$Q/img/lib/modules/$KVER/kernel
for m in drivers/net/veth.ko net/sched/sch_tbf.ko net/sched/sch_choke.ko; do
	cp "$M/$m" "$R/lib/modules/"
done
cp "$Q/mod/kmod/sch_libchoke.ko" "$R/lib/modules/"
cp tests/kernel/qemu-init.sh "$R/init"
chmod +x "$R/init"
(cd "$R" && find . | cpio -o -H newc 2>/dev/null | gzip -1) > "$Q/initrd.gz"
echo "qemu-smoke: initramfs $(du -h "$Q/initrd.gz" | cut -f1), booting $KVER under TCG"

set +e
timeout -k 10 600 qemu-system-x86_64 -accel tcg -m 768 -smp 1 -nographic -no-reboot \
	-kernel "$Q/img/boot/vmlinuz-$KVER" -initrd "$Q/initrd.gz" \
	-append "console=ttyS0 quiet panic=-1 loglevel=3" </dev/null >"$Q/console.log" 2>&1
set -e
tr -d '\r' < "$Q/console.log" | grep '^SMOKE' | sed 's/^SMOKE //' | tee "$Q/summary.txt"
if grep -q '^FAIL' "$Q/summary.txt" || ! grep -q '^done' "$Q/summary.txt"; then
	echo "qemu-smoke: FAILED (see $Q/console.log)"; exit 1
fi
echo "qemu-smoke: passed"
