#!/usr/bin/env bats
# --mpi across real separate hosts: network namespaces joined by a bridge,
# each with its own hostname; mpirun (in the head's namespace) starts its
# daemons through an agent script that runs `ip netns exec` instead of ssh
# (doc: shared multi-host recipe, README "Several client hosts").  tbench
# from two client hosts against tbench_srv in a third; dbench -B nfs from the
# two against nfs-ganesha in a namespace of its own on the same bridge
# (tests/lib/nfs.sh with NFS_NETNS).  Needs root, ip, unshare, mpirun and a
# dbench built with MPI; skipped otherwise.

load helpers

setup() {
	"$DBENCH" --mpi --mpi-timeout 0 -B null 1 2>&1 | grep -q 'built without MPI' &&
		skip "dbench was built without MPI (configure found no OpenMPI)"
	command -v mpirun >/dev/null || skip "mpirun is not installed (openmpi-bin)"
	[ "$(id -u)" = 0 ] || skip "needs root (ip netns)"
	command -v ip >/dev/null && command -v unshare >/dev/null || skip "needs ip and unshare"
	make_tmp
	# under ASan (build.sh sanitize): OpenMPI's own allocations outlive
	# MPI_Finalize in components it has unloaded, so LeakSanitizer cannot
	# name them for a suppression; memory errors are still caught
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	# names and a subnet of this test run only: nothing outside them is addressed
	P=mh$(printf '%04x' $(($$ % 65536)))
	NET=10.$((200 + $$ % 50)).$(($$ / 50 % 250)).
	NSS=()
	ip netns add "${P}sw" && NSS+=("${P}sw")
	ip -n "${P}sw" link add br0 type bridge
	ip -n "${P}sw" link set br0 up
	add_host h1 1
	add_host h2 2
	add_host h3 3
	add_host srv 4
	export NETNS_AGENT_PREFIX=$P
	printf 'h2 slots=1\nh3 slots=1\n' >"$T/hosts"
	ip netns exec "${P}srv" "$(dirname "$DBENCH")/tbench_srv" -p 0 -b "${NET}4" -v \
		--pid-file "$T/srv.pid" 2>"$T/srv.log" &
	wait_for -t 5 "tbench_srv on ${NET}4 to listen" tbench_srv_listening
}

# add_host NAME I: namespace $P$NAME on the bridge, address $NET$I
add_host() {
	ip netns add "$P$1" && NSS+=("$P$1")
	ip link add "${P}v$2" netns "$P$1" type veth peer name "p$2" netns "${P}sw"
	ip -n "${P}sw" link set "p$2" master br0
	ip -n "${P}sw" link set "p$2" up
	ip -n "$P$1" addr add "$NET$2/24" dev "${P}v$2"
	ip -n "$P$1" link set "${P}v$2" up
	ip -n "$P$1" link set lo up
}

teardown() {
	# ganesha first (its namespace is ours to delete below)
	declare -F nfs_stop >/dev/null && nfs_stop
	[ -s "${T:-/nonexistent}/srv.pid" ] && kill "$(cat "$T/srv.pid")" 2>/dev/null
	[ -n "${T:-}" ] && pkill -KILL -f -- "$T" 2>/dev/null
	local ns
	for ns in "${NSS[@]}"; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	remove_tmp
	# every namespace of this test is gone (with ganesha's, the hosts' processes)
	[ -z "${P:-}" ] || [ -z "$(ip netns list | grep "^$P")" ]
}

# hosts_empty: no process is left in the namespaces of h2 and h3.
hosts_empty() {
	[ -z "$(ip netns pids "${P}h2"; ip netns pids "${P}h3")" ]
}

# mpirun on the head h1, ranks on h2 and h3
mpirun_hosts() {
	ip netns exec "${P}h1" unshare --uts sh -c "hostname h1; exec timeout 120 mpirun --allow-run-as-root \
		--mca plm_rsh_agent $DBENCH_SRCDIR/tests/lib/netns-agent.sh --mca btl tcp,self \
		--mca btl_tcp_if_include ${NET}0/24 --mca oob_tcp_if_include ${NET}0/24 \
		--hostfile $T/hosts -np 2 $*"
}

@test "mpi hosts: tbench from two client hosts against tbench_srv on a third: one report, a line per host" {
	run mpirun_hosts "$TBENCH" --mpi --mpi-timeout 60 -t 2 --warmup 1 --json "$T/r.json" 4 "${NET}4:$PORT"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	grep -q '^Throughput .* 4 clients  4 procs' <<<"$output"
	grep -q '^MPI: 4 clients over 2 ranks .* on h2 h3' <<<"$output"
	grep -Eq '^ 0 +h2 +2 ' <<<"$output"
	grep -Eq '^ 1 +h3 +2 ' <<<"$output"
	# the server saw both client hosts
	grep -q "${NET}2:" "$T/srv.log"
	grep -q "${NET}3:" "$T/srv.log"
	"$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [r["host"] for r in d["mpi"]["per_rank"]] == ["h2", "h3"]; assert d["results"]["ops"] == sum(r["result"]["results"]["ops"] for r in d["mpi"]["per_rank"])' "$T/r.json"
}

# h3_rank_executes: the clients execute and the rank's tbench on h3 (not
# one of its clients) is there; sets pid.  (/proc, not ps: three ps a
# process took a loaded machine most of the 60 s run.)
h3_rank_executes() {
	local p stat
	grep -q execute "$T/out" || return 1
	for p in $(ip netns pids "${P}h3"); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = tbench ] || continue
		stat=$(cat "/proc/$p/stat" 2>/dev/null) || continue
		stat=${stat##*) }	# "STATE PPID ...", after the comm
		stat=${stat#* }
		[ "$(cat "/proc/${stat%% *}/comm" 2>/dev/null)" = tbench ] && continue
		pid=$p
		return 0
	done
	return 1
}

@test "mpi hosts: the rank on h3 not bound to one core; killed mid-run it ends the run on every host, no client left" {
	# --mpi-timeout 120: the kill, not a loaded machine's slow report, ends the run
	mpirun_hosts "$TBENCH" --mpi --mpi-timeout 120 -t 60 --warmup 0 4 "${NET}4:$PORT" >"$T/out" 2>&1 &
	local job=$! pid= st=0
	wait_for -t 30 "the clients to execute, and the rank on h3" h3_rank_executes
	# mpirun's default binding (the rank on h3 to a core of its "host") was
	# undone: the rank and its clients may use every CPU this test may
	local cpus c
	cpus=$(sed -n 's/^Cpus_allowed_list:\t*//p' /proc/$$/status)
	for c in "$pid" $(pgrep -P "$pid" -x tbench); do
		[ "$(sed -n 's/^Cpus_allowed_list:\t*//p' "/proc/$c/status")" = "$cpus" ] ||
			{ grep Cpus_allowed_list "/proc/$c/status"; echo "test: $cpus"; false; }
	done
	kill -KILL "$pid"
	local t0=$SECONDS
	wait "$job" || st=$?
	[ "$st" -ne 0 ]
	[ $((SECONDS - t0)) -lt 30 ]
	grep -q 'rank 1 .* on node h3 exited on signal 9' "$T/out"
	# no tbench left on any host
	wait_for -t 5 "no process left on h2 and h3" hosts_empty
}

@test "mpi hosts: dbench -B nfs from two client hosts against ganesha on a third: one export, a directory per client" {
	sanitizer_pass_skip "-B nfs across ranks is mpi.bats' ganesha test; ranks on two client hosts, a line each, are the tbench test's above"
	"$DBENCH" --help | grep -q -- '--export' || skip "dbench was built without the nfs backend"
	source "$BATS_TEST_DIRNAME/../lib/nfs.sh"
	# ganesha (and its rpcbind) in a namespace of its own on the bridge
	add_host nfs 5
	NFS_NETNS=${P}nfs NFS_ADDR=${NET}5 srv_start_or_skip nfs_ns_start
	# a loadfile that never removes the client's directory (no Deltree a time
	# limit could cut a pass after); --mpi-timeout 60 in the runs: a loaded
	# machine has held a rank's report back for 10 s, the default
	cat >"$T/example.txt" <<'L'
0.000 MKDIR3 "/clients" *
0.000 MKDIR3 "/clients/client1" *
0.000 CREATE3 "/clients/client1/small-file" 0 0x00000000
0.000 WRITE3 "/clients/client1/small-file" 0 10240 2 0x00000000
0.000 GETATTR3 "/clients/client1/small-file" 0x00000000
0.000 READ3 "/clients/client1/small-file" 0 10240 0x00000000
L
	run mpirun_hosts "$DBENCH" --mpi --mpi-timeout 60 -B nfs --server "${NET}5" --export /export --nfs-timeout 30 \
		-c "$T/example.txt" -D "$T/d" -t 2 --warmup 1 --json "$T/r.json" 4
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(grep -c '^Throughput' <<<"$output")" -eq 1 ]
	grep -q '^Throughput .* 4 clients  4 procs' <<<"$output"
	grep -q ', 0 mismatches,' <<<"$output"
	grep -q '^MPI: 4 clients over 2 ranks .* on h2 h3' <<<"$output"
	grep -Eq '^ 0 +h2 +2 ' <<<"$output"
	grep -Eq '^ 1 +h3 +2 ' <<<"$output"
	"$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [r["host"] for r in d["mpi"]["per_rank"]] == ["h2", "h3"]; assert d["results"]["mismatches"] == 0' "$T/r.json"
	# the run removed what it made: the export is empty
	[ -z "$(find "$NFS_EXPORT_DIR" -mindepth 1 | head)" ] || { find "$NFS_EXPORT_DIR" | head; false; }
	# with --skip-cleanup each client's tree stays: one per global client id
	run mpirun_hosts "$DBENCH" --mpi --mpi-timeout 60 -B nfs --server "${NET}5" --export /export --nfs-timeout 30 \
		-c "$T/example.txt" -D "$T/d" -t 1 --warmup 0 --skip-cleanup 4
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	grep -q ', 0 mismatches,' <<<"$output"
	[ "$(ls "$NFS_EXPORT_DIR/clients" | tr '\n' ' ')" = "client0 client1 client2 client3 " ] ||
		{ ls -R "$NFS_EXPORT_DIR"; false; }
	for c in 0 1 2 3; do
		[ -f "$NFS_EXPORT_DIR/clients/client$c/small-file" ]
	done
	nfs_stop
	[ -z "$(ip netns pids "${P}nfs")" ]
}
