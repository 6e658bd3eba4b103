#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test_cli.sh - metacachectl's command line on a host without the module:
# exit codes (0 ok, 1 failure, 2 usage), usage messages, JSON validity and
# the "module is not loaded" path.  TAP output.
#
#	sh test_cli.sh path/to/metacachectl
set -u
M=${1:-./metacachectl/metacachectl}
n=0
fail=0
skip=0
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

ok() { n=$((n + 1)); echo "ok $n $1"; }
notok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n $1"; shift; for l in "$@"; do echo "# $l"; done; }
skipped() { n=$((n + 1)); skip=$((skip + 1)); echo "ok $n $1 # SKIP $2"; }

# expect STATUS NAME ARGS...: run, check the exit status
expect() {
	want=$1 name=$2
	shift 2
	"$M" "$@" >"$out" 2>"$err"
	rc=$?
	if [ "$rc" = "$want" ]; then
		ok "$name"
	else
		notok "$name" "metacachectl $* exited $rc, want $want" \
			"stdout: $(head -c 300 "$out")" "stderr: $(head -c 300 "$err")"
	fi
}

# grep_in FILE PATTERN NAME
grep_in() {
	if grep -q -- "$2" "$1"; then ok "$3"; else notok "$3" "no '$2' in: $(head -c 300 "$1")"; fi
}

echo "TAP version 13"

expect 0 "help" help
for c in show set defaults policy stats flush bench version help; do
	grep_in "$out" "metacachectl $c" "help lists $c"
done
expect 0 "-h" -h
expect 0 "help set" help set
for k in entry_ttl neg_ttl attr_ttl dir_ttl close_ttl max_entries max_neg max_handles; do
	grep_in "$out" "$k" "help set lists $k"
done
expect 0 "help keys" help keys
expect 0 "show --help" show --help
grep_in "$out" "usage: metacachectl show" "show --help prints the synopsis"
expect 2 "no command" 
expect 2 "unknown command" frobnicate
expect 2 "unknown global option" --frob show
expect 2 "help of an unknown command" help frobnicate
expect 2 "set without arguments" set
grep_in "$err" "usage: metacachectl set MOUNT KEY VALUE" "set usage prints the synopsis"
expect 2 "set without a value" set /mnt/x entry_ttl
expect 2 "set with a bad duration" set /mnt/x entry_ttl 5x
grep_in "$err" "entry_ttl: '5x'" "bad duration names the key and value"
expect 2 "set with a ttl too large" set 1 neg_ttl 366d
expect 2 "set with a negative ttl" set /mnt/x entry_ttl -1
grep_in "$err" "entry_ttl: '-1': negative" "a negative ttl is a refused value, not an option"
expect 2 "defaults with a negative limit" defaults max_entries -5
grep_in "$err" "max_entries: '-5': negative" "a negative limit is a refused value"
expect 2 "policy add with a negative ttl" policy add 1 /a attr_ttl -2
grep_in "$err" "attr_ttl: '-2': negative" "a negative policy ttl is a refused value"
expect 2 "set with a limit too large" set 1 max_entries 17M
expect 2 "set with an unknown key" set 1 colour blue
grep_in "$err" "unknown key 'colour'" "unknown key named"
expect 2 "defaults with a bad value" defaults max_neg lots
expect 2 "policy without subcommand" policy
expect 2 "policy with unknown subcommand" policy frob 1 /
expect 2 "policy add without rule" policy add 1 /a
expect 2 "policy add bypass with tunables" policy add 1 /a bypass entry_ttl 5
expect 2 "policy add with '..'" policy add 1 ../a bypass
expect 2 "policy del extra argument" policy del 1 /a /b
expect 2 "policy list without mount" policy list
expect 2 "stats without mount" stats
expect 2 "stats with a bad interval" stats 1 --watch soon
expect 2 "stats with a tiny interval" stats 1 --watch 1ms
expect 2 "stats with an unknown option" stats 1 --bogus
expect 2 "stats with two mounts" stats 1 2
expect 2 "flush without mount" flush
expect 2 "flush with an unknown option" flush 1 --everything
expect 2 "version with an argument" version now
expect 0 "help bench" help bench
for w in run start compare status stop results list mdtest mixed randrw seqread seqwrite; do
	grep_in "$out" "$w" "help bench mentions $w"
done
expect 2 "bench without subcommand" bench
expect 2 "bench with unknown subcommand" bench frob
expect 2 "bench start without workload" bench start /tmp
expect 2 "bench start with an unknown workload" bench start /tmp fio
grep_in "$err" "unknown workload 'fio'" "unknown workload named"
expect 2 "bench start with a bad thread count" bench start /tmp mdtest --threads lots
grep_in "$err" "threads lots" "bad thread count named"
expect 2 "bench start with 2^32 threads" bench start /tmp mdtest -t 4294967296
expect 2 "bench start with a bad mix" bench start /tmp mixed --ops 10 --mix stat=90,open=20
grep_in "$err" "add up to 100" "bad mix explained"
expect 2 "bench start with a read percentage above 100" bench start /tmp randrw --ops 1 -r 101
expect 2 "bench start with a duration too long" bench start /tmp randrw -D 25h
expect 2 "bench start with a bad size" bench start /tmp randrw --ops 1 --io-size 4X
expect 2 "bench status without a job" bench status
expect 2 "bench status with a bad job id" bench status 0
expect 2 "bench stop with a bad job id" bench stop x1
expect 2 "bench results with two jobs" bench results 1 2
expect 2 "bench list with an argument" bench list 1
expect 2 "bench compare with one path" bench compare /a mdtest

expect 0 "version" version
grep_in "$out" "^metacachectl [0-9]" "version prints the tool version"
expect 0 "version -j" -j version
if command -v python3 >/dev/null 2>&1; then
	if python3 -m json.tool "$out" >/dev/null 2>&1; then
		ok "version -j is valid JSON"
	else
		notok "version -j is valid JSON" "$(cat "$out")"
	fi
else
	skipped "version -j is valid JSON" "no python3"
fi

# Without the module every command that needs it fails with exit 1 and says
# how to load it.
if grep -q '"module":null' "$out"; then
	msg="metacachectl: metacache module is not loaded (try: modprobe metacache)"
	for args in "show" "show /mnt/fast" "-j show" "set 1 entry_ttl 30s" \
		    "defaults" "defaults neg_ttl 1m" "policy list 1" \
		    "policy add /mnt/fast /a bypass" "policy del 1 a" "stats 1" \
		    "stats 1 --watch 1 --reset" "flush 1" "flush /mnt/fast /a --subtree --handles" \
		    "bench list" "bench status 1" "bench stop 1" "bench results 1" \
		    "bench start /tmp mdtest" "bench run /tmp randrw --ops 10"; do
		# shellcheck disable=SC2086
		expect 1 "module not loaded: $args" $args
		if [ "$(cat "$err")" = "$msg" ] && [ ! -s "$out" ]; then
			ok "module not loaded: $args: message"
		else
			notok "module not loaded: $args: message" "stderr: $(cat "$err")" "stdout: $(cat "$out")"
		fi
	done
	expect 0 "version without the module" version
	grep_in "$out" "module: not loaded" "version says the module is not loaded"
else
	skipped "module not loaded" "the metacache module is loaded"
fi

# bash completion: syntax, mount points from /proc/mounts, the same keys
comp=$(dirname "$0")/../completion/metacachectl
if command -v bash >/dev/null 2>&1 && [ -f "$comp" ]; then
	mounts=$(mktemp)
	printf '%s\n' 'srv:/e /mnt/share nfs4 rw 0 0' \
		'/mnt/share /mnt/fast metacache rw,entry_ttl=5 0 0' \
		'/mnt/share /mnt/with\040space metacache rw 0 0' >"$mounts"
	got=$(_METACACHECTL_MOUNTS=$mounts bash -c '. "$1"
		COMP_WORDS=(metacachectl stats ""); COMP_CWORD=2; _metacachectl
		printf "%s|" "${COMPREPLY[@]}"' sh "$comp" 2>&1)
	rm -f "$mounts"
	if [ "$got" = "/mnt/fast|/mnt/with space|" ]; then
		ok "completion offers metacache mount points"
	else
		notok "completion offers metacache mount points" "got: $got"
	fi
	want=$("$M" help keys | awk '/^  [a-z_]+ +([0-9]+[a-z]*|on|off) /{print $1}' | tr '\n' ' ')
	got=$(bash -c '. "$1"; echo "$_metacachectl_keys "' sh "$comp")
	if [ "$got" = "$want" ]; then
		ok "completion knows the keys of the key table"
	else
		notok "completion knows the keys of the key table" "completion: $got" "table: $want"
	fi
else
	skipped "bash completion" "no bash"
fi

echo "1..$n"
echo "# Totals: pass:$((n - fail - skip)) fail:$fail skip:$skip"
[ "$fail" = 0 ]
