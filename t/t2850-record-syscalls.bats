#!/usr/bin/env bats
# t2850-record-syscalls: varscope record --syscalls stores the enter and
# the exit of every system call of the command (checked against a known
# count) and its context switches.

load test-lib

setup() {
	vs_setup
	require_root
	require_tracefs
}

# Count the syscall records of number $2 and direction $3 in trace $1.
count_calls() {
	"$VARSCOPE" script -i "$1" --format json | python3 -c 'import json, sys
nr, d = int(sys.argv[1]), int(sys.argv[2])
print(sum(1 for l in sys.stdin
          if (r := json.loads(l))["kind"] == "syscall" and r["nr"] == nr
          and r["dir"] == d))' "$2" "$3"
}

@test "record --syscalls: every umask enters and exits, in 2 threads" {
	run "$VARSCOPE" record --syscalls -o s.data -- python3 -c '
import os, threading
t = threading.Thread(target=lambda: [os.umask(0o22) for _ in range(700)])
t.start()
for _ in range(1300):
    os.umask(0o22)
t.join()'
	assert_success
	assert_equal "$(count_calls s.data 95 0)" 2000
	assert_equal "$(count_calls s.data 95 1)" 2000
	run python3 -c 'import json, subprocess, sys
out = subprocess.run([sys.argv[1], "script", "-i", "s.data",
                      "--format", "json"], capture_output=True, text=True)
tids = {r["tid"] for l in out.stdout.splitlines()
        if (r := json.loads(l))["kind"] == "syscall" and r["nr"] == 95}
print(len(tids))' "$VARSCOPE"
	assert_output 2
}

@test "record --syscalls: context switches of the command's threads" {
	run "$VARSCOPE" record --syscalls -o s.data -- python3 -c '
import time
for _ in range(20):
    time.sleep(0.002)'
	assert_success
	run python3 -c 'import json, subprocess, sys
out = subprocess.run([sys.argv[1], "script", "-i", "s.data",
                      "--format", "json"], capture_output=True, text=True)
sw = [r for l in out.stdout.splitlines()
      if (r := json.loads(l))["kind"] == "switch"]
outs = sum(r["out"] for r in sw)
print(outs >= 20, len(sw) - outs >= 20)' "$VARSCOPE"
	assert_output "True True"
}

@test "record without --syscalls stores no system call" {
	"$VARSCOPE" record -o n.data -- true
	assert_equal "$(count_calls n.data 231 0)" 0
	run "$VARSCOPE" script -i n.data
	refute_line --partial " syscall "
}
