#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# The part of tests/deb.sh that runs in the root booted by systemd-nspawn
# (systemd is PID 1; this is a oneshot service; writes are discarded at
# power-off). Two veth pairs in the container's own network namespace, then
# choke-bridge@ba.service and choke-exporter.service as an operator uses
# them, and a Prometheus (the host's binary, bound in at
# /usr/local/bin/prometheus) scraping the exporter while one of its two
# bridges never answers. One "ok NAME: ..." or "FAIL NAME: ..." line per
# check in OUT/results; OUT/done when it got to the end; the units' security
# scores in OUT/security.
#
#   sh deb-boot.sh OUT
set -u
out=$1
res=$out/results
: >"$res"
ok() { echo "ok   $1" >>"$res"; }
bad() { echo "FAIL $1: $2" >>"$res"; }
prop() { systemctl show -P "$2" "$1"; }
status_field() { sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status"; }

for l in "ba xa" "bz xz"; do
	set -- $l
	ip link add $1 type veth peer name $2 && ip link set $1 up && ip link set $2 up
done
cat >/etc/choke/ba.conf <<'EOF'
# the test's bridge
in ba
out bz
rate 10mbit
choke limit 100
EOF

# --- start: Type=notify, the hardening, the bridge's own dropping ---------------
if systemctl start choke-bridge@ba.service 2>"$out/start.err"; then
	pid=$(prop choke-bridge@ba.service MainPID)
	st=$(prop choke-bridge@ba.service StatusText)
	if [ "$(prop choke-bridge@ba.service ActiveState)" = active ] && [ "$pid" -gt 0 ] &&
		[ -n "$st" ]; then
		ok "start: active after READY=1 (status: $st)"
	else
		bad start "$(systemctl status choke-bridge@ba.service 2>&1 | tail -5)"
	fi
else
	bad start "$(cat "$out/start.err"; journalctl -u choke-bridge@ba.service --no-pager | tail -5)"
	pid=0
fi
# Under the unit the bridge starts with CAP_NET_RAW and CAP_NET_ADMIN only;
# once its sockets are open it holds none (permitted, effective,
# inheritable, ambient empty; no_new_privs), and the bounding set keeps no
# more than the unit's (shrinking it takes CAP_SETPCAP, which the unit
# does not give).
if [ "$pid" -gt 0 ]; then
	caps=$(for f in CapInh CapPrm CapEff CapAmb; do status_field $pid $f; done | sort -u)
	capbnd=$(status_field $pid CapBnd)
	nnp=$(status_field $pid NoNewPrivs) sec=$(status_field $pid Seccomp)
	if [ "$caps" = 0000000000000000 ] && [ $(( 0x$capbnd & ~0x3000 )) = 0 ] && [ "$nnp" = 1 ] &&
		[ "$sec" = 2 ]; then
		ok "privileges: no capability held (CapPrm, CapEff, CapInh, CapAmb 0; CapBnd $capbnd), no_new_privs, a seccomp filter"
	else
		bad privileges "$(grep -E '^Cap|NoNewPrivs|Seccomp:' /proc/$pid/status | tr '\n' ' ')"
	fi
fi
if choke stats >"$out/stats" 2>&1 && grep -q 'choke limit 100p' "$out/stats" &&
	[ "$(stat -c '%a %U %G' /run/choke)" = "750 root choke" ] &&
	[ "$(stat -c '%a %U %G' /run/choke/bridge-ba.sock)" = "660 root choke" ]; then
	ok "stats: choke stats finds the bridge in /run/choke (0750 root:choke, its socket 0660 root:choke)"
else
	bad stats "$(cat "$out/stats"; ls -la /run/choke)"
fi

# --- reload: SIGHUP reads the file again -----------------------------------------
sed -i 's/^choke limit 100$/choke limit 200 ecn/' /etc/choke/ba.conf
if systemctl reload choke-bridge@ba.service 2>"$out/reload.err" && sleep 0.5 &&
	choke stats 2>&1 | grep -q 'choke limit 200p .*ecn' &&
	[ "$(prop choke-bridge@ba.service MainPID)" = "$pid" ] &&
	[ "$(prop choke-bridge@ba.service ActiveState)" = active ]; then
	ok "reload: systemctl reload changed the discipline in place (same pid)"
else
	bad reload "$(cat "$out/reload.err"; choke stats 2>&1 | head -2)"
fi

# --- refusals: a second bridge on the same interface, a bad line ------------------
printf 'in bz\nout ba\nrate 10mbit\n' >/etc/choke/bz.conf
if systemctl start choke-bridge@bz.service 2>/dev/null; then
	bad second "a second bridge on bz started"
elif journalctl -u choke-bridge@bz.service --no-pager | grep -q 'already bridged by another choke bridge'; then
	ok "second: choke-bridge@bz refused: $(journalctl -u choke-bridge@bz.service --no-pager -o cat |
		grep -m1 'already bridged')"
else
	bad second "$(journalctl -u choke-bridge@bz.service --no-pager | tail -3)"
fi
systemctl stop choke-bridge@bz.service 2>/dev/null
printf 'in xa\nout xz\nrate fast\n' >/etc/choke/bad.conf
if ! systemctl start choke-bridge@bad.service 2>/dev/null &&
	journalctl -u choke-bridge@bad.service --no-pager -o cat | grep -q '/etc/choke/bad.conf:3:'; then
	ok "bad-config: refused: $(journalctl -u choke-bridge@bad.service --no-pager -o cat | grep -m1 'bad.conf:3:')"
else
	bad bad-config "$(journalctl -u choke-bridge@bad.service --no-pager | tail -3)"
fi
systemctl stop choke-bridge@bad.service 2>/dev/null

# --- the exporter, as its unit runs it: its own user, two bridges, one of
# which never answers, scraped by Prometheus with a 10 s timeout -----------
# the second bridge: a socket in /run/choke, the group's as a bridge's are,
# that takes connections and never answers
python3 - <<'PY' &
import grp, os, socket, time
p = "/run/choke/bridge-silent.sock"
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.bind(p)
os.chown(p, 0, grp.getgrnam("choke").gr_gid)
os.chmod(p, 0o660)
s.listen(16)
time.sleep(600)
PY
silent=$!
for i in $(seq 50); do [ -S /run/choke/bridge-silent.sock ] && break; sleep 0.1; done
if systemctl start choke-exporter.service 2>"$out/exp.err"; then
	python3 - >"$out/metrics" 2>&1 <<'PY'
import urllib.request
r = urllib.request.urlopen(urllib.request.Request("http://127.0.0.1:9469/metrics",
    headers={"X-Prometheus-Scrape-Timeout-Seconds": "3"}), timeout=10)
print(r.status, r.headers["Content-Type"])
print(r.read().decode())
PY
	epid=$(prop choke-exporter.service MainPID)
	euser=$(getent passwd "$(status_field $epid Uid | cut -f1)" | cut -d: -f1)
	if head -1 "$out/metrics" | grep -q '^200 text/plain; version=0.0.4' &&
		grep -q '^choke_exporter_bridge_up{bridge="ba",socket="/run/choke/bridge-ba.sock"} 1$' "$out/metrics" &&
		grep -q '^choke_exporter_bridge_up{bridge="silent",socket="/run/choke/bridge-silent.sock"} 0$' "$out/metrics" &&
		grep -q '^choke_bridge_sent_packets_total{bridge="ba",in="ba",out="bz"} ' "$out/metrics" &&
		grep -q '^choke_exporter_qdiscs_up 1$' "$out/metrics" &&
		grep -q '^choke_build_info{version="[0-9.]*"} 1$' "$out/metrics" &&
		[ "$euser" = _choke-exporter ] && [ "$(status_field $epid Uid | cut -f1)" != 0 ] &&
		[ "$(status_field $epid CapEff)" = 0000000000000000 ] &&
		[ "$(status_field $epid CapBnd)" = 0000000000000000 ]; then
		ok "exporter: choke-exporter.service as $euser (uid $(status_field $epid Uid | cut -f1), no capability) reaches the bridge through the group choke; the silent one up 0; the qdiscs"
	else
		bad exporter "$euser: $(head -3 "$out/metrics"; grep bridge_up "$out/metrics"; status_field $epid CapBnd; journalctl -u choke-exporter.service --no-pager | tail -3)"
	fi
	# Prometheus itself, scrape_timeout 10 s: the scrape succeeds (up 1)
	# with the answering bridge's series, within the exporter's budget of
	# 9.5 s (the silent bridge is waited for until then)
	if [ -x /usr/local/bin/prometheus ]; then
		mkdir -p /tmp/prom
		printf '%s\n' 'global:' '  scrape_interval: 15s' '  scrape_timeout: 10s' \
			'scrape_configs:' '  - job_name: choke' '    static_configs:' \
			"      - targets: ['127.0.0.1:9469']" >/tmp/prom/prometheus.yml
		/usr/local/bin/prometheus --config.file=/tmp/prom/prometheus.yml \
			--storage.tsdb.path=/tmp/prom/data --web.listen-address=127.0.0.1:9090 \
			>"$out/prometheus.log" 2>&1 &
		prom=$!
		python3 - >"$out/prom-scrape" 2>&1 <<'PY'
import json, time, urllib.parse, urllib.request
def get(path):
    with urllib.request.urlopen("http://127.0.0.1:9090" + path, timeout=5) as r:
        return json.load(r)
t = None
for _ in range(90):
    time.sleep(1)
    try:
        ts = get("/api/v1/targets")["data"]["activeTargets"]
    except Exception:
        continue
    if ts and ts[0]["health"] != "unknown":
        t = ts[0]
        break
if not t:
    print("no scrape in 90 s")
    raise SystemExit(1)
def q(e):
    return get("/api/v1/query?query=" + urllib.parse.quote(e))["data"]["result"]
time.sleep(1)
sent = q('choke_bridge_sent_packets_total{bridge="ba"}')
silent = q('choke_exporter_bridge_up{bridge="silent"}')
print("health %s, scrape %.2f s, error %r, ba's series %d, silent up %s" % (
    t["health"], t["lastScrapeDuration"], t["lastError"], len(sent),
    silent[0]["value"][1] if silent else None))
ok = (t["health"] == "up" and not t["lastError"] and 9.0 <= t["lastScrapeDuration"] < 10
      and sent and silent and silent[0]["value"][1] == "0")
raise SystemExit(0 if ok else 1)
PY
		if [ $? = 0 ]; then
			ok "prometheus: scrape_timeout 10s, one bridge silent: $(cat "$out/prom-scrape")"
		else
			bad prometheus "$(cat "$out/prom-scrape"; tail -3 "$out/prometheus.log")"
		fi
		kill $prom 2>/dev/null
		wait $prom 2>/dev/null
	else
		bad prometheus "no /usr/local/bin/prometheus (tests/deb.sh binds the host's)"
	fi
else
	bad exporter "$(cat "$out/exp.err"; journalctl -u choke-exporter.service --no-pager | tail -5)"
fi
kill $silent 2>/dev/null
wait $silent 2>/dev/null
rm -f /run/choke/bridge-silent.sock

# --- a crash: Restart=on-failure ----------------------------------------------------
if [ "$pid" -gt 0 ]; then
	kill -SEGV "$pid"
	for i in $(seq 40); do
		npid=$(prop choke-bridge@ba.service MainPID)
		[ "$npid" -gt 0 ] && [ "$npid" != "$pid" ] &&
			[ "$(prop choke-bridge@ba.service ActiveState)" = active ] && break
		sleep 0.5
	done
	if [ "$npid" -gt 0 ] && [ "$npid" != "$pid" ] && choke stats >/dev/null 2>&1; then
		ok "restart: after SIGSEGV, restarted (pid $pid -> $npid, $(prop choke-bridge@ba.service NRestarts) restart)"
	else
		bad restart "$(systemctl status choke-bridge@ba.service 2>&1 | tail -5)"
	fi
fi

# --- an upgrade (the choke package installed again over itself): the
# postinst restarts the running bridge, which was started but never enabled,
# and the running exporter ---------------------------------------------------
bpid=$(prop choke-bridge@ba.service MainPID)
xpid=$(prop choke-exporter.service MainPID)
benabled=$(systemctl is-enabled choke-bridge@ba.service 2>&1)
if dpkg -i /root/debs/choke_*.deb >"$out/upgrade.log" 2>&1; then
	for i in $(seq 40); do
		nb=$(prop choke-bridge@ba.service MainPID)
		nx=$(prop choke-exporter.service MainPID)
		[ "$nb" -gt 0 ] && [ "$nb" != "$bpid" ] && [ "$nx" -gt 0 ] && [ "$nx" != "$xpid" ] &&
			[ "$(prop choke-bridge@ba.service ActiveState)" = active ] &&
			[ "$(prop choke-exporter.service ActiveState)" = active ] && break
		sleep 0.5
	done
	if [ "$nb" != "$bpid" ] && [ "$nx" != "$xpid" ] && [ "$nb" -gt 0 ] && [ "$nx" -gt 0 ] &&
		choke stats >/dev/null 2>&1; then
		ok "upgrade: dpkg -i choke again restarted the running bridge ($benabled; pid $bpid -> $nb) and exporter (pid $xpid -> $nx)"
	else
		bad upgrade "bridge $bpid -> $nb, exporter $xpid -> $nx; $(tail -3 "$out/upgrade.log")"
	fi
else
	bad upgrade "dpkg -i: $(tail -3 "$out/upgrade.log")"
fi

# --- stop: the final counters in the journal, /run/choke kept -------------------------
if systemctl stop choke-bridge@ba.service &&
	[ "$(prop choke-bridge@ba.service ActiveState)" = inactive ] &&
	journalctl -u choke-bridge@ba.service --no-pager -o cat | grep -q '"directions"' &&
	[ -d /run/choke ] && [ ! -e /run/choke/bridge-ba.sock ]; then
	ok "stop: inactive, the final counters in the journal, /run/choke kept for the other instances"
else
	bad stop "$(prop choke-bridge@ba.service ActiveState) $(ls -la /run/choke 2>&1)"
fi

# --- a late interface: choke-bridge@ waits for it (--wait 120) ----------------------
mkdir -p /etc/choke
printf 'in la\nout lz\nrate 10mbit\n' >/etc/choke/la.conf
systemctl start --no-block choke-bridge@la.service
sleep 3
early=$(prop choke-bridge@la.service ActiveState)
estatus=$(prop choke-bridge@la.service StatusText)
for l in "la xla" "lz xlz"; do
	set -- $l
	ip link add $1 type veth peer name $2 && ip link set $1 up && ip link set $2 up
done
for i in $(seq 40); do
	[ "$(prop choke-bridge@la.service ActiveState)" = active ] && break
	sleep 0.25
done
if [ "$early" = activating ] && [ "$estatus" = "waiting for la to appear" ] &&
	[ "$(prop choke-bridge@la.service ActiveState)" = active ] &&
	journalctl -u choke-bridge@la.service --no-pager -o cat | grep -q '^choke: bridge: lz is there'; then
	ok "late-interface: choke-bridge@la waited (\"$estatus\", $early), then started when la and lz appeared: $(journalctl -u choke-bridge@la.service --no-pager -o cat | grep -m1 'is there')"
else
	bad late-interface "$early [$estatus] then $(prop choke-bridge@la.service ActiveState): $(journalctl -u choke-bridge@la.service --no-pager -o cat | tail -4)"
fi
systemctl stop choke-bridge@la.service

# --- backend xdp: choke-bridge-xdp@.service ------------------------------------------
for l in "da xda" "dz xdz"; do
	set -- $l
	ip link add $1 type veth peer name $2 && ip link set $1 up && ip link set $2 up
done
printf 'in da\nout dz\nrate 10mbit\nbackend xdp\nfifo limit 100\n' >/etc/choke/da.conf
if systemctl start choke-bridge-xdp@da.service 2>"$out/xdp.err"; then
	xpid=$(prop choke-bridge-xdp@da.service MainPID)
	n0=$(cat /sys/class/net/xdz/statistics/rx_packets)
	# 20 frames into da (through its peer), out of dz (seen on its peer)
	python3 -c '
import socket, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("xda", 0))
for i in range(20):
    s.send(bytes.fromhex("02000000000202000000000188b5") + bytes(50))
    time.sleep(0.005)' 2>"$out/xdp.send"
	sleep 1
	n1=$(cat /sys/class/net/xdz/statistics/rx_packets)
	choke stats --socket /run/choke/bridge-da.sock >"$out/xdp.stats" 2>&1
	capeff=$(status_field $xpid CapEff) capbnd=$(status_field $xpid CapBnd)
	nnp=$(status_field $xpid NoNewPrivs) sec=$(status_field $xpid Seccomp)
	# kept: CAP_NET_ADMIN, CAP_NET_RAW, CAP_IPC_LOCK, CAP_SYS_ADMIN (12, 13, 14, 21)
	if [ $((n1 - n0)) -ge 20 ] && grep -q '^ backend xdp (' "$out/xdp.stats" &&
		[ "$capeff" = 0000000000207000 ] && [ $(( 0x$capbnd & ~0x207000 )) = 0 ] &&
		[ "$nnp" = 1 ] && [ "$sec" = 2 ]; then
		ok "xdp: choke-bridge-xdp@da forwards ($((n1 - n0)) frames da -> dz; $(grep -m1 '^ backend' "$out/xdp.stats" | sed 's/^ //')), keeps CapEff $capeff, no_new_privs, a seccomp filter"
	else
		bad xdp "$((n1 - n0)) frames through; $(head -c 300 "$out/xdp.stats"); CapEff $capeff CapBnd $capbnd NoNewPrivs $nnp Seccomp $sec; $(cat "$out/xdp.send")"
	fi
	systemd-analyze security --no-pager choke-bridge-xdp@da.service >"$out/security.choke-bridge-xdp@da.service" 2>&1
	echo "choke-bridge-xdp@da.service: $(grep 'Overall exposure level' "$out/security.choke-bridge-xdp@da.service")" >"$out/security-xdp"
	systemctl stop choke-bridge-xdp@da.service
	if ip link show da | grep -q ' xdp'; then
		bad xdp-stop "an XDP program is left on da: $(ip link show da)"
	else
		ok "xdp-stop: the XDP programs left da and dz with the bridge"
	fi
else
	bad xdp "$(cat "$out/xdp.err"; journalctl -u choke-bridge-xdp@da.service --no-pager -o cat | tail -5)"
fi
# under choke-bridge@ (no AF_XDP allowed): refused, saying which unit to use
if ! systemctl start choke-bridge@da.service 2>/dev/null &&
	journalctl -u choke-bridge@da.service --no-pager -o cat | grep -q 'run backend xdp as choke-bridge-xdp@.service'; then
	ok "xdp-wrong-unit: $(journalctl -u choke-bridge@da.service --no-pager -o cat | grep -m1 'choke-bridge-xdp@')"
else
	bad xdp-wrong-unit "$(journalctl -u choke-bridge@da.service --no-pager -o cat | tail -3)"
fi
systemctl stop choke-bridge@da.service 2>/dev/null

# --- systemd's own verdicts -------------------------------------------------------
: >"$out/security"
for u in choke-bridge@ba.service choke-exporter.service; do
	systemd-analyze security --no-pager "$u" >"$out/security.$u" 2>&1
	echo "$u: $(grep 'Overall exposure level' "$out/security.$u")" >>"$out/security"
done
if grep -q 'choke-bridge@ba.service: .*Overall exposure level for choke-bridge@ba.service: [0-9.]* ' "$out/security" &&
	grep -q 'choke-exporter.service: .*Overall exposure level' "$out/security"; then
	ok "security: $(sed 's/Overall exposure level for [^:]*: //' "$out/security" | tr '\n' ';')"
else
	bad security "$(cat "$out/security")"
fi
if grep -q 'Overall exposure level for choke-bridge-xdp@da.service: [0-9.]* ' "$out/security-xdp" 2>/dev/null; then
	ok "security-xdp: $(sed 's/Overall exposure level for [^:]*: //' "$out/security-xdp")"
else
	bad security-xdp "$(cat "$out/security-xdp" 2>/dev/null)"
fi
if systemd-analyze verify choke-bridge@ba.service choke-exporter.service >"$out/verify" 2>&1 &&
	[ ! -s "$out/verify" ]; then
	ok "verify: systemd-analyze verify, booted"
else
	bad verify "$(cat "$out/verify")"
fi
touch "$out/done"
