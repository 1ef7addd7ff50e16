# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
#
# The part of the kernel's tools/testing/selftests/net/lib.sh (and
# lib/sh/defer.sh) that the selftest of upstream/linux/net/ uses, written
# here from their documented behaviour, for kernels whose tree has no such
# lib.sh (Debian's linux-source-6.1, our UML harness). guest-upstream.sh
# puts it beside the selftest as lib.sh; with CHOKE_SELFTEST_LIB=DIR it
# uses DIR/lib.sh (a newer kernel tree's own) instead. Bash only.
#
# Provided: ksft_pass/fail/xfail/skip, RET, EXIT_STATUS, busywait,
# slowwait, setup_ns, cleanup_ns, cleanup_all_ns, defer, defer_prio,
# defer_scope_push, defer_scope_pop, defer_scopes_cleanup, in_defer_scope,
# check_err, check_fail, log_test, log_test_skip, log_info, tests_run.

: "${WAIT_TIMEOUT:=20}"
BUSYWAIT_TIMEOUT=$((WAIT_TIMEOUT * 1000))
ksft_pass=0
ksft_fail=1
ksft_xfail=2
ksft_skip=4
NS_LIST=()
EXIT_STATUS=0
RET=0
retmsg=

# ------------------------------------------------------------- waiting
__now_ms()
{
	local t=${EPOCHREALTIME/./}

	echo $((t / 1000))
}

# __poll SLEEP_CMD TIMEOUT_MS CMD...: run CMD until it succeeds (its
# output of the last try is printed) or TIMEOUT_MS have passed
__poll()
{
	local pause=$1 limit=$2 start out
	shift 2

	start=$(__now_ms)
	while :; do
		if out=$("$@"); then
			echo -n "$out"
			return 0
		fi
		if (($(__now_ms) - start > limit)); then
			echo -n "$out"
			return 1
		fi
		$pause
	done
}

busywait() # TIMEOUT_MS CMD...
{
	local limit=$1
	shift
	__poll : "$limit" "$@"
}

slowwait() # TIMEOUT_S CMD...
{
	local limit=$1
	shift
	__poll "sleep 0.1" "$((limit * 1000))" "$@"
}

# ------------------------------------------------------------- namespaces
# setup_ns NAME...: a namespace per NAME, its name (NAME in lower case and
# a random suffix) stored in the variable NAME, lo up, rp_filter off
setup_ns()
{
	local var name

	for var in "$@"; do
		name=${var,,}-$(mktemp -u XXXXXX)
		if ! ip netns add "$name"; then
			echo "Failed to create namespace $var"
			return $ksft_skip
		fi
		printf -v "$var" %s "$name"
		NS_LIST+=("$name")
		ip -n "$name" link set lo up
		ip netns exec "$name" sysctl -wq net.ipv4.conf.all.rp_filter=0
		ip netns exec "$name" sysctl -wq net.ipv4.conf.default.rp_filter=0
	done
}

cleanup_ns() # NAME...
{
	local ns n kept ret=0

	for ns in "$@"; do
		[ -n "$ns" ] || continue
		ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
		ip netns delete "$ns" 2>/dev/null
		if ip netns list | grep -q "^$ns\b"; then
			echo "Warn: Failed to remove namespace $ns"
			ret=1
		fi
		kept=()
		for n in "${NS_LIST[@]}"; do
			[ "$n" = "$ns" ] || kept+=("$n")
		done
		NS_LIST=("${kept[@]}")
	done
	return $ret
}

cleanup_all_ns()
{
	cleanup_ns "${NS_LIST[@]}"
}

# ------------------------------------------------------------- defer
# Commands deferred to the end of the current scope, run in reverse
# order (those of defer_prio first). Scope 0 is the script's.
__DEFER_SCOPE=0
declare -A __DEFER_CMDS __DEFER_N

__defer_add() # TRACK CMD...
{
	local key=$__DEFER_SCOPE,$1 n
	shift
	n=${__DEFER_N[$key]:-0}
	__DEFER_CMDS[$key,$n]=${*@Q}
	__DEFER_N[$key]=$((n + 1))
}

defer()
{
	__defer_add d "$@"
}

defer_prio()
{
	__defer_add p "$@"
}

defer_scope_push()
{
	((__DEFER_SCOPE++))
	__DEFER_N[$__DEFER_SCOPE,p]=0
	__DEFER_N[$__DEFER_SCOPE,d]=0
}

defer_scope_pop()
{
	local track key i

	for track in p d; do
		key=$__DEFER_SCOPE,$track
		for ((i = ${__DEFER_N[$key]:-0} - 1; i >= 0; i--)); do
			eval "${__DEFER_CMDS[$key,$i]}"
			unset "__DEFER_CMDS[$key,$i]"
		done
		__DEFER_N[$key]=0
	done
	((__DEFER_SCOPE--))
}

defer_scopes_cleanup()
{
	while ((__DEFER_SCOPE >= 0)); do
		defer_scope_pop
	done
}

in_defer_scope() # CMD...
{
	local ret

	defer_scope_push
	"$@"
	ret=$?
	defer_scope_pop
	return $ret
}

# ------------------------------------------------------------- results
# The worse of two statuses: for a test fail > skip > xfail > pass; for
# the script fail > skip > pass > xfail (a script whose tests all passed
# or xfailed passes).
__worse() # A B ORDER...
{
	local a=$1 b=$2 i ra rb
	shift 2

	for ((i = 1; i <= $#; i++)); do
		[ "${!i}" = "$a" ] && ra=$i
		[ "${!i}" = "$b" ] && rb=$i
	done
	if ((ra >= rb)); then echo "$a"; else echo "$b"; fi
}

check_err() # STATUS MESSAGE: a non-zero STATUS fails the test
{
	if (($1)) && ((RET != ksft_fail)); then
		RET=$ksft_fail
		retmsg=$2
	fi
}

check_fail() # STATUS MESSAGE: a zero STATUS fails the test
{
	if ! (($1)); then
		check_err 1 "$2"
	fi
}

log_test() # NAME [DETAIL]
{
	local name=$1 detail= word

	[ $# -ge 2 ] && detail="($2)"
	case $RET in
	$ksft_pass) word=" OK " ;;
	$ksft_xfail) word=XFAIL ;;
	$ksft_skip) word=SKIP ;;
	*) word=FAIL ;;
	esac
	printf "TEST: %-60s  [%s]\n" "$name $detail" "$word"
	if [ "$RET" != "$ksft_pass" ] && [ -n "$retmsg" ]; then
		printf "\t%s\n" "$retmsg"
	fi
	EXIT_STATUS=$(__worse "$EXIT_STATUS" "$RET" \
		$ksft_xfail $ksft_pass $ksft_skip $ksft_fail)
	return "$RET"
}

log_test_skip() # NAME [DETAIL]
{
	RET=$ksft_skip retmsg= log_test "$@"
}

log_info()
{
	echo "INFO: $1"
}

tests_run()
{
	local t

	for t in ${TESTS:-$ALL_TESTS}; do
		retmsg=
		in_defer_scope "$t"
	done
}
