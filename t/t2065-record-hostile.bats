#!/usr/bin/env bats
#
# A traced program that attacks what it shares with the recorder's
# in-kernel engine (issue 19): it scribbles over every slot of the
# engine's map and over its own task ring, then lies in the ring's head
# and counts (t/helper/hostile-slots.c); a thread asks for its sibling's
# registration (t/helper/hostile-sibling.c); a program truncates its
# task ring (hostile-slots --shrink); another user holds
# connections to the registration socket open.  The recorder, root, must end
# with the command, stay within a small memory bound, keep every task of
# the honest process or thread beside it, and say in one line what it
# refused.

load test-lib
load record-lib

HOSTILE=$BUILD/t/helper/hostile-slots

# record_hostile ARGS: record the helper under timeout into t.data, its
# output in out, record's messages in err, its peak RSS (KiB) in rss
record_hostile() {
	/usr/bin/time -o rss -f %M timeout -k 10 120 \
		"$VARSCOPE" record -o t.data -- "$HOSTILE" "$@" > out 2> err
	"$VARSCOPE" script -i t.data --format json > t.json
}

# no number printed by record is one it did not bound (a count read from
# shared memory would be 18446744073709551615 and the like)
bounded_numbers() {
	! grep -E '[0-9]{10,}' err
}

@test "a ring head of 2^64-1 and counts that go back: the thread is no longer read" {
	record_hostile 300
	grep -q '^honest: pid=[0-9]* tasks=300$' out
	grep -q '^hostile: slots=[1-9][0-9]* ring=[1-9][0-9]*$' out
	grep -qx 'varscope record: 1 thread wrote impossible values into its task ring (its head, its counts): its later tasks were not read' err
	bounded_numbers
	# the honest process beside it: every task
	honest=$(sed -n 's/^honest: pid=\([0-9]*\) .*/\1/p' out)
	check "T['1']['tasks'] == 300 and T['1']['pids'] == [$honest]"
	# 4 MiB of task ring and 3.4 MiB of slots, read at most once each
	[ "$(cat rss)" -lt 100000 ]
}

@test "a ring of random entries under a plausible head: every one dropped and counted" {
	record_hostile --garbage 300
	grep -q '^honest: pid=[0-9]* tasks=300$' out
	grep -qE '^varscope record: [0-9]+ tasks? dropped as impossible' err
	bounded_numbers
	honest=$(sed -n 's/^honest: pid=\([0-9]*\) .*/\1/p' out)
	check "T['1']['tasks'] == 300 and T['1']['pids'] == [$honest]"
	# no task of a type the program never used, none longer than the run
	check "set(T) <= {'1', '2'} and all(t['max']['latency_ns'] < 60e9 for t in T.values())"
	[ "$(cat rss)" -lt 100000 ]
}

@test "a task ring truncated by its program: refused, the recorder reads on" {
	record_hostile --shrink 300
	# a ring cut to nothing was a SIGBUS in the root recorder
	grep -qx 'hostile: shrink=EPERM tasks=50' out
	grep -q '^honest: pid=[0-9]* tasks=300$' out
	honest=$(sed -n 's/^honest: pid=\([0-9]*\) .*/\1/p' out)
	check "T['1']['tasks'] == 300 and T['1']['pids'] == [$honest]"
	# the program's own tasks, before and after, are all there too
	check "T['2']['tasks'] == 51"
	[ "$(cat rss)" -lt 100000 ]
}

@test "counts that creep up faster than tasks can end: the thread is no longer read" {
	record_hostile --creep 300
	grep -qx 'hostile: creep=50' out
	grep -qx 'varscope record: 1 thread wrote impossible values into its task ring (its head, its counts): its later tasks were not read' err
	# 2^30 a step, fifty steps: never a count in the summary
	bounded_numbers
	! grep -q 'without begin\|task ring full' err
	honest=$(sed -n 's/^honest: pid=\([0-9]*\) .*/\1/p' out)
	check "T['1']['tasks'] == 300 and T['1']['pids'] == [$honest]"
	# nor in the trace: no LOST record of tasks
	! grep -q '"kind":"lost"' t.json
}

@test "tasks that say they began on CPU 2,000,000: dropped and counted" {
	record_hostile --cpu 300
	grep -qx 'hostile: cpu=50' out
	grep -qE '^varscope record: [0-9]+ tasks? dropped as impossible' err
	bounded_numbers
	honest=$(sed -n 's/^honest: pid=\([0-9]*\) .*/\1/p' out)
	check "T['1']['tasks'] == 300 and T['1']['pids'] == [$honest]"
	# a task read before its CPU was rewritten is whole; no other
	python3 - "$(nproc --all)" <<-'EOF2'
	import json, sys
	T = [r for l in open("t.json") if (r := json.loads(l))["kind"] == "task"]
	assert all(t["cpu"] < int(sys.argv[1]) for t in T), [t for t in T if t["cpu"] >= int(sys.argv[1])][:3]
	EOF2
	[ "$(cat rss)" -lt 100000 ]
}

@test "a thread that asks for its sibling's registration is refused; the sibling keeps every task" {
	timeout -k 10 120 "$VARSCOPE" record -o t.data -- \
		"$BUILD/t/helper/hostile-sibling" 300 > out 2> err
	"$VARSCOPE" script -i t.data --format json > t.json
	# once before the sibling's first task, once in the middle of them
	grep -qx 'attack: accepted=0 refused=2' out
	grep -qx 'sibling: tid=[0-9]* tasks=300' out
	grep -qx 'varscope record: 2 registrations refused: sent by a thread other than the one named' err
	bounded_numbers
	sibling=$(sed -n 's/^sibling: tid=\([0-9]*\) .*/\1/p' out)
	# every task of the sibling, all of its own thread
	check "T['1']['tasks'] == 300 and T['1']['tids'] == [$sibling]"
}

@test "another user's connections to the registration socket cost the recording nothing" {
	require_cmd useradd
	require_cmd runuser
	local user=vs-t2065-$$
	useradd -M -s /usr/sbin/nologin "$user" || skip "cannot add a user"
	# the command starts its tasks after the stranger has connected
	"$VARSCOPE" record -o t.data -- sh -c \
		"sleep 2; exec '$IF' -n 40 --types sleep --sleep-us 5000" \
		> truth 2> err &
	local rec=$! name="" i
	# the socket's name is where anyone can read it: /proc/net/unix
	for i in $(seq 100); do
		name=$(grep -o "@varscope-$rec-[0-9a-f]*" /proc/net/unix | head -1)
		[ -n "$name" ] && break
		sleep 0.05
	done
	[ -n "$name" ] || { userdel "$user"; fail "no socket of record $rec"; }
	# 40 connections held until record ends, 20 that never send a byte
	# (a recorder that waited 1 s for each left the command unregistered)
	# and 20 that send a registration naming the command's process
	local magic cmd
	magic=$(sed -n 's/^#define VS_REG_MAGIC[[:space:]]*\(0x[0-9a-f]*\)u.*/\1/p' \
		"$SRC/core/record/task-ring.h")
	for i in $(seq 100); do
		cmd=$(pgrep -P $rec | head -1)
		[ -n "$cmd" ] && break
		sleep 0.05
	done
	[ -n "$magic" ] && [ -n "$cmd" ]
	runuser -u "$user" -- python3 -c 'import socket, struct, sys, time
conns = []
for i in range(40):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect("\0" + sys.argv[1][1:])
    if i % 2:
        pid = int(sys.argv[3])
        try:
            s.send(struct.pack("<III", int(sys.argv[2], 16), pid, pid))
        except OSError:
            pass    # closed unread already
    conns.append(s)
time.sleep(60)' "$name" "$magic" "$cmd" &
	local stranger=$!
	wait $rec
	kill $stranger 2>/dev/null || :
	wait $stranger 2>/dev/null || :
	userdel "$user"
	"$VARSCOPE" script -i t.data --format json > t.json
	check 'T["1"]["tasks"] == 40 and not T["1"]["flagged"]'
	grep -qx 'varscope record: 40 connections to the registration socket from outside the command closed unread' err
	# the outsiders are no threads of the recording
	grep -q '^varscope record: 40 tasks of 1 thread written to t.data' err
}

@test "a mapped file that becomes a FIFO: the recorder reads no build-id from it, and does not block" {
	require_cmd "$VS_CC"
	# an executable mapping of a file that is no ELF: the kernel finds no
	# build-id note, so the recorder looks in the file, by then a FIFO
	# that nobody writes (an open of it for reading blocks for good)
	cat > swap.c <<-'EOF2'
	#include <fcntl.h>
	#include <stdio.h>
	#include <sys/mman.h>
	#include <sys/stat.h>
	#include <unistd.h>
	#include "varscope.h"
	static void map_then_swap(const char *path)
	{
		int fd = open(path, O_RDONLY);
		if (fd < 0 || mmap(NULL, 4096, PROT_READ | PROT_EXEC,
				   MAP_PRIVATE, fd, 0) == MAP_FAILED)
			perror(path);
		close(fd);
		unlink(path);
		if (mkfifo(path, 0600))
			perror("mkfifo");
	}
	int main(void)
	{
		map_then_swap("lib1.so");
		for (int i = 0; i < 20; i++) {
			vs_task_begin(1);
			usleep(1000);
			vs_task_end(1);
		}
		return 0;
	}
	EOF2
	head -c 8192 /dev/zero > lib1.so
	# shellcheck disable=SC2086
	"$VS_CC" $VS_APP_CFLAGS -O2 -I"$SRC/include" -o swap swap.c \
		"$VS_LIBDIR/libvarscope.a" -lpthread
	run timeout -k 5 30 "$VARSCOPE" record -o t.data -- ./swap
	assert_success
	"$VARSCOPE" script -i t.data --format json > t.json
	check 'T["1"]["tasks"] == 20'
	grep '"kind":"mmap"' t.json | grep -q 'lib1.so"'
}
