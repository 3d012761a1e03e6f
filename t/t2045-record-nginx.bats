#!/usr/bin/env bats
# t2045-record-nginx: --task-func on an unmodified pre-forking server,
# Debian's nginx (stripped: its functions come from .dynsym), a master
# and two workers: run by record, and attached by its master's pid, with
# the workers a reload forks after the attach.  Each request is one call
# of ngx_http_process_request in a worker: the tasks are counted against
# the requests a client made.

load test-lib
load record-lib

NGINX=/usr/sbin/nginx
FUNC=ngx_http_process_request

setup() {
	vs_setup
	require_root
	require_tracefs
	require_uprobes
	[ -x $NGINX ] || skip "needs nginx (scripts/install-deps.sh installs it)"
	mkdir html
	echo hello > html/index.html
	port=$(python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
	cat > nginx.conf <<-EOF
	daemon off;
	master_process on;
	worker_processes 2;
	user root;
	pid $TEST_TMP/nginx.pid;
	error_log $TEST_TMP/error.log;
	events { worker_connections 64; }
	http {
	    access_log off;
	    client_body_temp_path $TEST_TMP;
	    proxy_temp_path $TEST_TMP;
	    fastcgi_temp_path $TEST_TMP;
	    uwsgi_temp_path $TEST_TMP;
	    scgi_temp_path $TEST_TMP;
	    server { listen 127.0.0.1:$port; root $TEST_TMP/html; }
	}
	EOF
}

teardown() {
	[ -f nginx.pid ] && kill "$(cat nginx.pid)" 2>/dev/null
	return 0
}

nginx_cmd() {
	echo $NGINX -e "$TEST_TMP/error.log" -p "$TEST_TMP" -c "$TEST_TMP/nginx.conf"
}

# requests N [PATH]: N requests of PATH (default /, hello), 4 keep-alive
# connections, each answered 200, gzip accepted
requests() {
	python3 - "$port" "$1" "${2:-/}" <<-'EOF'
	import http.client, sys
	port, n, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
	conns = [http.client.HTTPConnection("127.0.0.1", port, timeout=30)
	         for _ in range(4)]
	for i in range(n):
	    c = conns[i % 4]
	    c.request("GET", path, headers={"Accept-Encoding": "gzip"})
	    r = c.getresponse()
	    body = r.read()
	    assert r.status == 200 and (path != "/" or body == b"hello\n"), r.status
	EOF
}

# the workers of the master in nginx.pid, one per line
workers() {
	pgrep -P "$(cat nginx.pid)" | sort
}

wait_workers() {
	local i

	for i in $(seq 100); do
		[ -s nginx.pid ] && [ "$(workers | wc -l)" = 2 ] && return 0
		sleep 0.1
	done
	fail "nginx did not start its 2 workers: $(cat error.log)"
}

@test "nginx run by record: each request a task of a worker, none of the master" {
	# shellcheck disable=SC2046
	"$VARSCOPE" record -o t.data --task-func "$FUNC" -- $(nginx_cmd) 2> err &
	rec=$!
	wait_workers
	workers > workers.pids
	requests 400
	kill -QUIT "$(cat nginx.pid)"	# a graceful stop: record ends with it
	wait $rec
	cat err
	grep -q "^varscope record: 400 function calls written to t.data" err
	"$VARSCOPE" script -i t.data --format json > t.json
	check 'T["1"]["tasks"] == 400 and T["1"]["flagged"] == {"FUNC_PROBE": 400}'
	check "set(T['1']['pids']) <= {$(paste -sd, workers.pids)}"
}

@test "record -p on nginx's master: its workers, and those a reload forks" {
	# shellcheck disable=SC2046
	$(nginx_cmd) &
	wait_workers
	workers > old.pids
	"$VARSCOPE" record -o t.data --task-func "$FUNC" -p "$(cat nginx.pid)" 2> err &
	rec=$!
	# attached once its probes are in place and a moment has passed
	for _ in $(seq 100); do
		grep -q "varscope_$rec/" "$TRACEFS/uprobe_events" && break
		sleep 0.1
	done
	sleep 1
	requests 200
	kill -HUP "$(cat nginx.pid)"	# new workers, forked after the attach
	for _ in $(seq 100); do
		[ -z "$(comm -12 old.pids <(workers))" ] &&
			[ "$(workers | wc -l)" = 2 ] && break
		sleep 0.1
	done
	workers > new.pids
	[ -z "$(comm -12 old.pids new.pids)" ]
	requests 200
	kill -INT $rec
	wait $rec
	cat err
	kill -0 "$(cat nginx.pid)"	# left running
	"$VARSCOPE" script -i t.data --format json > t.json
	check 'T["1"]["tasks"] == 400'
	check "set(T['1']['pids']) <= {$(cat old.pids new.pids | paste -sd,)}"
	# the new workers served the last 200
	python3 - "$(paste -sd, new.pids)" <<-'EOF'
	import json, sys
	new = {int(p) for p in sys.argv[1].split(",")}
	tasks = [json.loads(l) for l in open("t.json")]
	tasks = [t for t in tasks if t["kind"] == "task"]
	assert sum(t["pid"] in new for t in tasks) == 200, tasks[-1]
	EOF
}

@test "nginx sharing its CPU with a busy loop: report ranks the run-queue wait" {
	require_cmd chrt
	# each request gzips 30 KB (a few hundred us of CPU) on CPU 1, where
	# a real-time loop (SCHED_FIFO 1) is busy 3 ms every 20 ms: the
	# requests that come during a burst wait for it in the run queue,
	# whatever else runs (a plain busy loop lost its slices to nginx's
	# wake-ups on a loaded machine, and run.time ranked first)
	python3 -c 'import random
w = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta"]
print(" ".join(random.choice(w) for _ in range(5000)))' > html/text.txt
	sed -i 's/access_log off;/access_log off; gzip on; gzip_types text\/plain;/' nginx.conf
	# shellcheck disable=SC2046
	"$VARSCOPE" record -o t.data --task-func "$FUNC@$NGINX" -- taskset -c 1 $(nginx_cmd) 2> err &
	rec=$!
	wait_workers
	taskset -c 1 chrt -f 1 timeout 120 python3 -c 'import time
while True:
    end = time.monotonic() + 0.003
    while time.monotonic() < end:
        pass
    time.sleep(0.017)' &
	loop=$!
	requests 1500 /text.txt
	kill $loop
	kill -QUIT "$(cat nginx.pid)"
	wait $rec
	"$VARSCOPE" report -i t.data --format json > r.json
	python3 - <<-'EOF'
	import json
	t = json.load(open("r.json"))["task_types"][0]
	top = t["ranking"][0]
	print(top)
	assert t["tasks"] == 1500, t["tasks"]
	assert top["event"] == "sched.runnable.time", top
	# the slow requests waited for a burst: up to 3 ms each (2-3% of
	# the requests come during one, so the p99 is among them; without
	# them it falls to a request of plain gzip time: impact 0.26-0.28)
	assert 1e6 < top["slow_p50"] < 4e6, top
	assert top["adjusted_impact"] > 0.15, top
	EOF
}
