# sb-memcached.sh - sourced by the switchback tests that drive memcached
# (after lib.sh and sb-pg.sh, whose scratch swap, zswap and stale-sweep
# helpers it shares): memcached from Debian in a memory cgroup small enough
# that its items swap to zswap, under memcaslap (libmemcached-tools, 9 gets
# to 1 set of 4 000-byte values over a key window larger than the cgroup).
# The metric is the service's own: memcached's cmd_get counter (its `stats`,
# read by memcstat once a second into a file, replaced atomically).
#
#   mc_need                   skip (77) with a reason unless it can run here
#   mc_start LIMIT_MB CACHE_MB CONCURRENCY WINDOW (WINDOW in k: 8k)
#                             swap + zswap, the cgroup, memcached, the load;
#                             sets MC_CG (cgroup name), MC_COUNTER (the gets
#                             so far, a file)
#   mc_stop                   everything down, the host as it was (a cleanup hook)
MC_CG=swaptune-sbmc-$$
MC_PORT=$((11500 + $$ % 400))
MC_MEMCG=""
MC_LOADPID=""
MC_BRIDGEPID=""

mc_need() {
	need_probe_host
	command -v memcached >/dev/null || skip "memcached is not installed (make deps installs it)"
	command -v memcaslap >/dev/null && command -v memcstat >/dev/null ||
		skip "memcaslap/memcstat are not installed (libmemcached-tools)"
	id nobody >/dev/null 2>&1 || skip "no user nobody to run memcached as"
	[ -d /sys/fs/cgroup/memory ] || skip "the test drives a cgroup v1 memory controller"
	sb_sweep_stale
	MC_MEMCG=/sys/fs/cgroup/memory/$MC_CG
}

mc_gets() {
	memcstat --servers="127.0.0.1:$MC_PORT" 2>/dev/null | awk '$1 == "cmd_get:" { print $2; f = 1 } END { exit !f }'
}

mc_start() {
	limit_mb=$1 cache_mb=$2 conc=$3 win=$4
	sb_swap_on || { fail "cannot set up a scratch swap"; return 1; }
	mkdir "$MC_MEMCG" || { fail "cannot make $MC_MEMCG"; return 1; }
	# the service alone in the cgroup: the subshell joins it, then execs memcached
	(sh -c 'echo $PPID' >"$MC_MEMCG/cgroup.procs"; exec memcached -u nobody -l 127.0.0.1 \
		-p "$MC_PORT" -U 0 -m "$cache_mb" -t 2 -c 256 >"$PG_DIR/memcached.log" 2>&1) &
	for i in $(seq 50); do mc_gets >/dev/null && break; sleep 0.2; done
	mc_gets >/dev/null || { fail "memcached did not start: $(tail -n 3 "$PG_DIR/memcached.log")"; return 1; }
	# first the items (sets only, a window per connection), then the limit: the
	# kernel pushes what does not fit to zswap at once; filling under the limit
	# instead can end in the cgroup's OOM killer (seen at 160 MiB)
	cat >"$PG_DIR/set.cfg" <<'EOF'
key
64 64 1
value
4000 4000 1
cmd
0 1.0
1 0.0
EOF
	memcaslap -s "127.0.0.1:$MC_PORT" -T 2 -c "$conc" -w "$win" -X 4000 -x $((conc * ${win%k} * 1024)) \
		-F "$PG_DIR/set.cfg" >"$PG_DIR/fill.log" 2>&1 || { fail "memcaslap could not fill: $(tail -n 3 "$PG_DIR/fill.log")"; return 1; }
	echo $((limit_mb << 20)) >"$MC_MEMCG/memory.limit_in_bytes" || { fail "cannot limit $MC_MEMCG"; return 1; }
	cat >"$PG_DIR/mix.cfg" <<'EOF'
key
64 64 1
value
4000 4000 1
cmd
0 0.1
1 0.9
EOF
	memcaslap -s "127.0.0.1:$MC_PORT" -T 2 -c "$conc" -w "$win" -X 4000 -t 100000s \
		-F "$PG_DIR/mix.cfg" >"$PG_DIR/load.log" 2>&1 &
	MC_LOADPID=$!
	MC_COUNTER=$PG_DIR/gets
	# the bridge: memcached's gets so far, every second, replaced atomically
	(while :; do
		g=$(mc_gets) && echo "$g" >"$MC_COUNTER.tmp" && mv "$MC_COUNTER.tmp" "$MC_COUNTER"
		sleep 1
	done) &
	MC_BRIDGEPID=$!
	for i in $(seq 50); do [ -s "$MC_COUNTER" ] && break; sleep 0.2; done
	[ -s "$MC_COUNTER" ] || { fail "no gets counter from memcstat"; return 1; }
	return 0
}

# memcached's items, its cgroup's memory and swap, in one line
mc_state() {
	echo "memcached in $MC_CG: $(memcstat --servers="127.0.0.1:$MC_PORT" | awk '$1 == "curr_items:" { print $2 }') items," \
		"$(( $(memcstat --servers="127.0.0.1:$MC_PORT" | awk '$1 == "bytes:" { print $2 }') >> 20 )) MiB," \
		"cgroup rss $(awk '$1=="rss"{print int($2/1048576)}' "$MC_MEMCG/memory.stat") MiB," \
		"swap $(awk '$1=="swap"{print int($2/1048576)}' "$MC_MEMCG/memory.stat") MiB"
}

mc_stop() {
	[ -n "$MC_MEMCG" ] || return 0
	[ -n "$MC_BRIDGEPID" ] && { kill "$MC_BRIDGEPID" 2>/dev/null; wait "$MC_BRIDGEPID" 2>/dev/null; MC_BRIDGEPID=""; }
	[ -n "$MC_LOADPID" ] && { kill "$MC_LOADPID" 2>/dev/null; wait "$MC_LOADPID" 2>/dev/null; MC_LOADPID=""; }
	[ -d "$MC_MEMCG" ] && sb_cgroup_remove "$MC_MEMCG"
	sb_swap_off
	rm -rf "$PG_DIR"
	MC_MEMCG=""
}
