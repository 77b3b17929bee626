# sb-pg.sh - sourced by the switchback tests that need a real service
# (after lib.sh): PostgreSQL under its own load generator, pgbench -S
# (select-only, random accounts), in a memory cgroup small enough that its
# shared buffers swap to zswap. The test (not swaptune) sets the service up
# and takes it down: a scratch swap on a loop device (non-rotational, so
# VMA readahead) when the host has none, zswap on, the cgroup, the cluster.
#
#   pg_need                   skip (77) with a reason unless it can run here
#   pg_start LIMIT_MB SCALE SHARED_BUFFERS_MB
#                             cluster + data + prewarm + limit, then the load;
#                             sets PG_CG (cgroup name), PG_PROGRESS (pgbench's
#                             per-second progress, Unix timestamps), PG_COUNTER
#                             (a file holding the transactions so far, updated
#                             every second, replaced atomically), PG_TPS_CMD
#                             (a --metric-cmd printing the mean tps over the
#                             counted part of a window, from PG_PROGRESS)
#   pg_stop                   everything down, the host as it was (a cleanup hook)
#   sb_swap_on / sb_swap_off  only the scratch swap (when the host has none) and zswap on,
#                             and back (for tests with a workload of their own)
#   sb_switchback OUT WINDOWS UNIT ARGS...
#                             switchback pc3 against pc0 with ARGS (design, metric,
#                             --cgroup) into OUT/switchback.json and progress.log, then
#                             the checks every service test makes: every window measured
#                             and plausible (UNIT names the metric in messages), a
#                             verdict, the service swapped, page-cluster as before,
#                             nothing pending, recommend agrees, report --run into
#                             OUT/report.txt; sets run (uses st, db, pc_before); returns 2
#                             (no failure) when the run stopped, restored, because the
#                             service's cgroup OOM-killed a process of it (the caller may
#                             start the service again with more room and run once more),
#                             or when it had already killed one before the run;
#                             SB_FORCE_OOM=S makes it kill one S seconds into the run
#   sb_diag                   the service's cgroup, load and log faults (after a failure)
#   sb_cgroup_remove DIR      kill what is in memory cgroup DIR and remove it
#   sb_sweep_stale            what a test killed with SIGKILL (no trap runs) left: its
#                             cgroups, scratch swap and zswap setting, when its shell is gone
#                             (pg_need and sb_swap_on call it; the caller holds the host lock)
PG_CG=swaptune-sbpg-$$
PG_PORT=$((5500 + $$ % 400))
PG_DIR=/var/tmp/swaptune-sbpg-$$
PG_LOADPID=""
PG_BRIDGEPID=""
PG_LOOP=""
PG_ZSWAP_BEFORE=""
PG_MEMCG=""

sb_cgroup_remove() {
	for p in $(cat "$1/cgroup.procs"); do kill -9 "$p" 2>/dev/null; done
	i=0
	while [ -n "$(cat "$1/cgroup.procs")" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	rmdir "$1"
}

sb_switchback() {
	sb_out=$1 sb_windows=$2 sb_unit=$3
	shift 3
	sb_cg=${PG_MEMCG:-$MC_MEMCG}
	# a service that lost a process in its warm-up is not the one to measure
	if [ "$(awk '$1 == "oom_kill" { print $2 }' "$sb_cg/memory.oom_control")" != 0 ]; then
		echo "# the service's cgroup OOM-killed a process before the run"
		sb_diag
		return 2
	fi
	if [ -n "${SB_FORCE_OOM:-}" ]; then
		# (a check of the test's own retry: a process that its cgroup's memory+swap
		# limit kills SB_FORCE_OOM seconds into the run)
		echo $(($(cat "$sb_cg/memory.memsw.usage_in_bytes") + (16 << 20))) >"$sb_cg/memory.memsw.limit_in_bytes"
		sh -c 'echo $$ >"$0/cgroup.procs"; sleep "$1"; exec python3 -c "b = bytearray(256 << 20)"' \
			"$sb_cg" "$SB_FORCE_OOM" >/dev/null 2>&1 &
		SB_FORCE_OOM=""
	fi
	st switchback --yes --json --progress plain --arms pc3,pc0 --baseline pc3 "$@" \
		>"$sb_out/switchback.json" 2>"$sb_out/progress.log"
	rc=$?
	# the service's own limit killed a process of it: the run must stop so, restored
	if [ $rc -eq 1 ] && jq -r .stop_reason "$sb_out/switchback.json" 2>/dev/null | grep -q "OOM-killed"; then
		echo "# stopped: $(jq -r .stop_reason "$sb_out/switchback.json")"
		sb_diag
		[ "$(jq -r .status "$sb_out/switchback.json")" = stopped ] || fail "OOM: status $(jq -r .status "$sb_out/switchback.json")"
		[ "$(cat /proc/sys/vm/page-cluster)" = "$pc_before" ] ||
			fail "OOM: page-cluster is $(cat /proc/sys/vm/page-cluster), was $pc_before"
		[ "$(sqlite3 "$db" "SELECT count(*) FROM changes WHERE state = 'pending'")" = 0 ] ||
			fail "OOM: journal rows still pending"
		return 2
	fi
	[ $rc -eq 0 ] || { fail "switchback exit $rc: $(tail -n 5 "$sb_out/progress.log")"; sb_diag; }
	tail -n 4 "$sb_out/progress.log"
	j=$sb_out/switchback.json
	run=$(jq -r .run_id "$j")
	[ "$(jq -r .status "$j")" = ok ] || fail "status $(jq -r .status "$j")"
	n=$(jq '.windows | length' "$j")
	blocks=$(jq '.verdict.blocks' "$j")
	# a look may decide early: every window up to it is there, in whole blocks
	[ "$n" -eq $((blocks * 2)) ] && [ "$n" -ge 4 ] && [ "$n" -le "$sb_windows" ] ||
		fail "$n windows for $blocks blocks"
	ok=$(jq '[.windows[] | select(.outcome == "ok")] | length' "$j")
	[ "$ok" -eq "$n" ] || fail "$((n - ok)) windows failed: $(jq -c '[.windows[] | .failure | select(.)]' "$j")"
	# the values are the service's, well above 0
	jq -e '[.windows[] | select(.outcome == "ok") | .value > 10] | all' "$j" >/dev/null ||
		fail "a window's $sb_unit is not plausible: $(jq -c '[.windows[].value]' "$j")"
	jq -e '.verdict.decision | IN("change", "keep", "inconclusive")' "$j" >/dev/null ||
		fail "no verdict: $(jq -c .verdict "$j")"
	echo "verdict: $(jq -r '.verdict.decision' "$j"), pc0 $(jq -r '.verdict.arms[1].effect' "$j") % $sb_unit" \
		"[$(jq -r '.verdict.arms[1].ci_low' "$j"), $(jq -r '.verdict.arms[1].ci_high' "$j")]," \
		"zswpin/s in window 1: $(jq -r '.windows[0].kernel.zswpin_per_s' "$j")"
	# the service swapped to zswap during the run
	jq -e '[.windows[] | .kernel.zswpin_per_s > 0] | any' "$j" >/dev/null ||
		fail "no zswap loads in any window: the service did not swap"
	# the host as before, nothing pending
	[ "$(cat /proc/sys/vm/page-cluster)" = "$pc_before" ] ||
		fail "page-cluster is $(cat /proc/sys/vm/page-cluster), was $pc_before"
	[ "$(sqlite3 "$db" "SELECT count(*) FROM changes WHERE state = 'pending'")" = 0 ] ||
		fail "journal rows still pending"
	# the same run judged by recommend and told by report
	st recommend --run "$run" --json >"$sb_out/recommend.json" || fail "recommend --run $run: exit $?"
	[ "$(jq -r .switchback.decision "$sb_out/recommend.json")" = "$(jq -r .verdict.decision "$j")" ] ||
		fail "recommend and switchback disagree"
	st report --run "$run" >"$sb_out/report.txt" || fail "report --run $run: exit $?"
}

# what the service's cgroup and load generator were doing, when a run failed
sb_diag() {
	cg=${PG_MEMCG:-${MC_MEMCG:-}}
	[ -n "$cg" ] && [ -d "$cg" ] && {
		echo "# $cg: $(tr '\n' ' ' <"$cg/memory.oom_control") failcnt $(cat "$cg/memory.failcnt")," \
			"usage $(($(cat "$cg/memory.usage_in_bytes") >> 20)) MiB, procs $(wc -l <"$cg/cgroup.procs")"
	}
	[ -n "${PG_PROGRESS:-}" ] && [ -f "$PG_PROGRESS" ] && {
		echo "# pgbench's last lines:"; tail -n 4 "$PG_PROGRESS" | sed 's/^/#   /'
	}
	[ -n "${PG_DIR:-}" ] && [ -f "$PG_DIR/postgres.log" ] && {
		echo "# postgres's log, faults:"
		grep -E 'terminated|killed|PANIC|FATAL|out of memory' "$PG_DIR/postgres.log" | tail -n 5 | sed 's/^/#   /'
	}
	grep -E 'oom|Killed process' /dev/null $(ls /var/log/kern.log 2>/dev/null) 2>/dev/null | tail -n 3
	dmesg 2>/dev/null | grep -E 'Killed process|oom-kill|Memory cgroup out of memory' | tail -n 3 | sed 's/^/# dmesg: /'
	return 0
}

# the leftovers of tests in this file whose shell (the PID in the name) is gone
sb_sweep_stale() {
	for d in /sys/fs/cgroup/memory/swaptune-sbpg-* /sys/fs/cgroup/memory/swaptune-sbwl-* \
		/sys/fs/cgroup/memory/swaptune-sbmc-*; do
		[ -d "$d" ] || continue
		owner=${d##*-}
		[ -d "/proc/$owner" ] && continue
		echo "# removing $d, left by test shell $owner (gone)"
		sb_cgroup_remove "$d"
	done
	for d in /var/tmp/swaptune-sbpg-*; do
		[ -d "$d" ] || continue
		owner=${d##*-}
		[ -d "/proc/$owner" ] && continue
		echo "# removing $d, left by test shell $owner (gone)"
		if [ -f "$d/swap" ]; then
			for l in $(losetup -j "$d/swap" -O NAME -n 2>/dev/null); do
				grep -q "^$l " /proc/swaps && swapoff "$l"
				losetup -d "$l"
			done
		fi
		[ -s "$d/zswap.before" ] && cat "$d/zswap.before" >/sys/module/zswap/parameters/enabled
		rm -rf "$d"
	done
	return 0
}

pg_need() {
	need_probe_host
	PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
	[ -x "$PGBIN/postgres" ] && [ -x "$PGBIN/initdb" ] || skip "PostgreSQL is not installed (make deps installs postgresql)"
	command -v pgbench >/dev/null || skip "pgbench is not installed (postgresql-contrib)"
	command -v setpriv >/dev/null || skip "setpriv (util-linux) is missing"
	command -v python3 >/dev/null || skip "python3 is missing"
	id postgres >/dev/null 2>&1 || skip "no postgres user (the postgresql package makes it)"
	[ -d /sys/fs/cgroup/memory ] || skip "the test drives a cgroup v1 memory controller"
	sb_sweep_stale
	[ -f "$(ls -d /usr/share/postgresql/*/extension 2>/dev/null | tail -n 1)/pg_prewarm.control" ] ||
		skip "pg_prewarm is missing (postgresql-contrib)"
	PG_MEMCG=/sys/fs/cgroup/memory/$PG_CG
}

# a scratch swap when the host has none, and zswap on
sb_swap_on() {
	sb_sweep_stale
	PG_ZSWAP_BEFORE=$(cat /sys/module/zswap/parameters/enabled)
	# what to put back if this shell is killed outright (sb_sweep_stale reads it)
	mkdir -p "$PG_DIR" && echo "$PG_ZSWAP_BEFORE" >"$PG_DIR/zswap.before" || return 1
	if [ "$(tail -n +2 /proc/swaps | wc -l)" -eq 0 ]; then
		truncate -s 3G "$PG_DIR/swap" || return 1
		PG_LOOP=$(losetup --find --show "$PG_DIR/swap") || return 1
		echo 0 >"/sys/block/${PG_LOOP#/dev/}/queue/rotational"
		mkswap "$PG_LOOP" >/dev/null && swapon "$PG_LOOP" || return 1
	fi
	echo Y >/sys/module/zswap/parameters/enabled
}

sb_swap_off() {
	[ -n "$PG_LOOP" ] && { swapoff "$PG_LOOP"; losetup -d "$PG_LOOP"; PG_LOOP=""; }
	[ -n "$PG_ZSWAP_BEFORE" ] && { echo "$PG_ZSWAP_BEFORE" >/sys/module/zswap/parameters/enabled; PG_ZSWAP_BEFORE=""; }
	rm -f "$PG_DIR/swap" "$PG_DIR/zswap.before"
	return 0
}

pg_psql() {
	psql -h "$PG_DIR/sock" -p "$PG_PORT" -U postgres -qAt "$@" postgres
}

pg_start() {
	limit_mb=$1 scale=$2 sb_mb=$3
	sb_swap_on || { fail "cannot set up a scratch swap"; return 1; }
	mkdir -p "$PG_DIR/data" "$PG_DIR/sock" && chown postgres:postgres "$PG_DIR/data" "$PG_DIR/sock"
	setpriv --reuid postgres --regid postgres --init-groups "$PGBIN/initdb" -D "$PG_DIR/data" -A trust \
		>"$PG_DIR/initdb.log" 2>&1 || { fail "initdb failed: $(tail -n 3 "$PG_DIR/initdb.log")"; return 1; }
	cat >>"$PG_DIR/data/postgresql.conf" <<EOF
shared_buffers = ${sb_mb}MB
port = $PG_PORT
unix_socket_directories = '$PG_DIR/sock'
listen_addresses = ''
max_connections = 20
shared_preload_libraries = 'pg_prewarm'
pg_prewarm.autoprewarm = off
EOF
	mkdir "$PG_MEMCG" || { fail "cannot make $PG_MEMCG"; return 1; }
	# the service alone in the cgroup: the subshell joins it, then execs postgres
	(sh -c 'echo $PPID' >"$PG_MEMCG/cgroup.procs"; exec setpriv --reuid postgres --regid postgres \
		--init-groups "$PGBIN/postgres" -D "$PG_DIR/data" >"$PG_DIR/postgres.log" 2>&1) &
	for i in $(seq 100); do "$PGBIN/pg_isready" -q -h "$PG_DIR/sock" -p "$PG_PORT" && break; sleep 0.2; done
	"$PGBIN/pg_isready" -q -h "$PG_DIR/sock" -p "$PG_PORT" || { fail "postgres did not start: $(tail -n 3 "$PG_DIR/postgres.log")"; return 1; }
	pgbench -h "$PG_DIR/sock" -p "$PG_PORT" -U postgres -i -q -s "$scale" postgres >"$PG_DIR/init.log" 2>&1 ||
		{ fail "pgbench -i failed: $(tail -n 3 "$PG_DIR/init.log")"; return 1; }
	pg_psql -c "create extension pg_prewarm" -c "select pg_prewarm('pgbench_accounts', 'buffer')" \
		-c "select pg_prewarm('pgbench_accounts_pkey', 'buffer')" >/dev/null
	echo $((limit_mb << 20)) >"$PG_MEMCG/memory.limit_in_bytes"
	echo "postgres in $PG_CG: scale $scale, shared_buffers ${sb_mb} MiB, limit ${limit_mb} MiB," \
		"usage $(( $(cat "$PG_MEMCG/memory.usage_in_bytes") >> 20 )) MiB, swap $(awk '$1=="total_swap"{print int($2/1048576)}' "$PG_MEMCG/memory.stat") MiB"
	PG_PROGRESS=$PG_DIR/progress
	PG_COUNTER=$PG_DIR/transactions
	cat >"$PG_DIR/bridge.py" <<'EOF'
import os, sys
# pgbench -P 1 --progress-timestamp lines on stdin -> the transactions so far in a file
out, total, last = sys.argv[1], 0.0, None
for line in sys.stdin:
    f = line.split()
    if len(f) < 4 or f[0] != "progress:":
        continue
    t, tps = float(f[1]), float(f[3])
    total += tps * ((t - last) if last is not None else 1.0)
    last = t
    with open(out + ".tmp", "w") as o:
        o.write("%.0f\n" % total)
    os.replace(out + ".tmp", out)
EOF
	cat >"$PG_DIR/tps.awk" <<'EOF'
# the mean tps of the progress lines inside [SWAPTUNE_COUNT_START + 1, SWAPTUNE_WINDOW_END]
BEGIN { a = ENVIRON["SWAPTUNE_COUNT_START"] + 1; b = ENVIRON["SWAPTUNE_WINDOW_END"] }
$1 == "progress:" && $2 >= a && $2 <= b { s += $4; n++ }
END { if (n == 0) exit 1; printf "%.3f\n", s / n }
EOF
	PG_TPS_CMD="awk -f $PG_DIR/tps.awk $PG_PROGRESS"
	: >"$PG_PROGRESS"
	(pgbench -h "$PG_DIR/sock" -p "$PG_PORT" -U postgres -S -c 4 -j 2 -T 100000 -P 1 --progress-timestamp \
		postgres 2>&1 >/dev/null | tee "$PG_PROGRESS" | python3 -u "$PG_DIR/bridge.py" "$PG_COUNTER") &
	PG_LOADPID=$!
	for i in $(seq 100); do [ -s "$PG_COUNTER" ] && break; sleep 0.2; done
	[ -s "$PG_COUNTER" ] || { fail "pgbench reports no progress: $(tail -n 3 "$PG_PROGRESS")"; return 1; }
	return 0
}

pg_stop() {
	[ -n "$PG_MEMCG" ] || return 0
	# the load's pipeline: its processes by their parent, the subshell started here
	[ -n "$PG_LOADPID" ] && { pkill -P "$PG_LOADPID" 2>/dev/null; wait "$PG_LOADPID" 2>/dev/null; PG_LOADPID=""; }
	if [ -f "$PG_DIR/data/postmaster.pid" ]; then
		setpriv --reuid postgres --regid postgres --init-groups "$PGBIN/pg_ctl" -D "$PG_DIR/data" \
			-m immediate -w stop >/dev/null 2>&1
	fi
	[ -d "$PG_MEMCG" ] && sb_cgroup_remove "$PG_MEMCG"
	sb_swap_off
	rm -rf "$PG_DIR"
	PG_MEMCG=""
}
