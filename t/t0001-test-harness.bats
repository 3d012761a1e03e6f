#!/usr/bin/env bats
# t0001-test-harness: the test harness itself.  t/run-tests.sh counts
# passes, failures and skips of bats files and unit binaries, and fails on
# what would otherwise slip through (crashes, non-zero exits without a
# "not ok", short plans, sanitizer reports); the prerequisites of
# test-lib.bash skip with their reason or fix what they can.

load test-lib

# A source tree of its own with the harness and the given tests in it.
setup() {
	vs_setup
	mkdir -p tree/t tree/build/t
	cp "$SRC/t/run-tests.sh" "$SRC/t/test-lib.bash" tree/t/
	printf '#!/bin/sh\n' >tree/varscope
	chmod +x tree/varscope
}

# bats_file NAME <<EOF: a bats file of tests written "TEST name { ... }"
# (a line starting with the real keyword would be a test of this file)
bats_file() {
	printf 'load test-lib\n' >"tree/t/$1"
	sed 's/^TEST /@test /' >>"tree/t/$1"
}

unit_bin() {
	cat >"tree/build/t/$1"
	chmod +x "tree/build/t/$1"
}

# The harness in a clean environment, as make test starts it: nothing of
# this bats run leaks into the nested one, not even bats' own libexec
# folder in front of PATH (its "bats" is not the command).
HARNESS_ENV=(env -i HOME="$HOME" TMPDIR="${TMPDIR:-/tmp}"
	PATH="$(printf '%s' "$PATH" | tr ':' '\n' | grep -v bats-core | paste -sd:)")

run_harness() {
	run "${HARNESS_ENV[@]}" VS_TEST_TIMEOUT="${TIMEOUT:-60}" \
		tree/t/run-tests.sh "$@"
}

@test "passes, failures and skips are counted, failures shown, status 1" {
	bats_file t0100-mixed.bats <<'EOF'
TEST "passes" { true; }
TEST "fails" { run echo hello; assert_output "goodbye"; }
TEST "skips" { skip "no such hardware"; }
EOF
	unit_bin good <<'EOF'
#!/bin/sh
echo "ok 1 - one"; echo "ok 2 - two"; echo "1..2"
EOF
	run_harness
	assert_failure 1
	assert_line --regexp "^t0100-mixed.bats +FAILED \(1\): 1 passed, 1 skipped"
	assert_line --regexp "^unit/good +ok: 2 passed"
	assert_line "  t0100-mixed.bats: skips: no such hardware"
	assert_line "t0100-mixed.bats: not ok 2 fails"
	assert_line --partial "expected : goodbye"
	assert_equal "${lines[-1]}" "3 passed, 1 failed, 1 skipped"
}

@test "all passing: status 0 and the closing line last" {
	bats_file t0100-good.bats <<'EOF'
TEST "passes" { true; }
EOF
	run_harness
	assert_success
	assert_equal "${lines[-1]}" "1 passed, 0 failed, 0 skipped"
}

@test "a crash, an exit without 'not ok' and a short plan are failures" {
	unit_bin crash <<'EOF'
#!/bin/sh
echo "ok 1 - before the crash"
kill -SEGV $$
EOF
	unit_bin status <<'EOF'
#!/bin/sh
echo "ok 1 - all fine, says the test"
exit 3
EOF
	unit_bin short <<'EOF'
#!/bin/sh
echo "1..3"; echo "ok 1 - one"
EOF
	run_harness
	assert_failure 1
	assert_line "unit/crash: killed by signal 11; its output:"
	assert_line "unit/status: exited with status 3 without a 'not ok' line; its output:"
	assert_line "unit/short: only 1 of the 3 planned tests ran; its output:"
	assert_equal "${lines[-1]}" "3 passed, 3 failed, 0 skipped"
}

@test "a file that hangs fails at the timeout" {
	unit_bin hang <<'EOF'
#!/bin/sh
echo "ok 1 - then it hangs"
sleep 100
EOF
	TIMEOUT=1 run_harness
	assert_failure 1
	assert_line "unit/hang: timed out after 1s; its output:"
}

@test "a sanitizer report fails the file even when its tests passed" {
	# a program that reports like ASan does: into log_path.PID
	unit_bin reports <<'EOF'
#!/bin/sh
path=$(echo "$ASAN_OPTIONS" | tr ':' '\n' | sed -n 's/^log_path=//p' | tail -n 1)
echo "ERROR: AddressSanitizer: heap-buffer-overflow" >"$path.$$"
echo "ok 1 - the test saw nothing"
EOF
	run_harness
	assert_failure 1
	assert_line "unit/reports: sanitizer report:"
	assert_line "ERROR: AddressSanitizer: heap-buffer-overflow"
}

@test "patterns select tests by name prefix; no match is an error" {
	bats_file t0100-a.bats <<'EOF'
TEST "a" { true; }
EOF
	bats_file t0200-b.bats <<'EOF'
TEST "b" { false; }
EOF
	unit_bin u <<'EOF'
#!/bin/sh
echo "ok 1 - u"
EOF
	run_harness t01 unit
	assert_success
	refute_line --partial t0200
	assert_equal "${lines[-1]}" "2 passed, 0 failed, 0 skipped"
	run_harness t9
	assert_failure 2
	assert_output "run-tests: no test matches: t9"
}

@test "results print in name order whatever order the files finish in" {
	for n in 1 2 3 4; do
		bats_file "t010$n-order.bats" <<EOF
TEST "t$n" { sleep 0.$((5 - n)); }
EOF
	done
	run_harness
	assert_success
	assert_equal "$(printf '%s\n' "${lines[@]}" | grep -o '^t010[0-9]')" \
		"$(printf 't010%s\n' 1 2 3 4)"
}

@test "require_cmd and require_pmu skip with their reason" {
	bats_file t0100-skips.bats <<'EOF'
TEST "cmd" { require_cmd no-such-command-here; }
TEST "pmu" { require_pmu; echo "has a PMU"; }
EOF
	run_harness
	assert_success
	assert_line "  t0100-skips.bats: cmd: needs no-such-command-here (not installed)"
	if [ -d /sys/bus/event_source/devices/cpu ] ||
	   [ -d /sys/bus/event_source/devices/cpu_core ]; then
		refute_line --partial "no hardware PMU"
	else
		assert_line "  t0100-skips.bats: pmu: no hardware PMU: cycles not supported"
	fi
}

@test "require_unshare skips with unshare's reason where it is refused" {
	# an unshare(1) that fails as in a chroot, first on the PATH
	mkdir bin
	printf '#!/bin/sh\necho "unshare: cannot change root filesystem propagation: Permission denied" >&2\nexit 1\n' >bin/unshare
	chmod +x bin/unshare
	bats_file t0100-unshare.bats <<'EOF'
TEST "mount namespace" { require_unshare -m; echo "not skipped"; false; }
EOF
	run "${HARNESS_ENV[@]/#PATH=/PATH=$TEST_TMP/bin:}" \
		VS_TEST_TIMEOUT=60 tree/t/run-tests.sh
	assert_success
	assert_line "  t0100-unshare.bats: mount namespace: needs namespaces (unshare -m): unshare: cannot change root filesystem propagation: Permission denied (a chroot or a container?)"
}

@test "require_tracefs mounts tracefs when it is not mounted" {
	require_root
	require_unshare -m
	bats_file t0100-tracefs.bats <<'EOF'
TEST "tracefs" {
	require_tracefs
	[ -e /sys/kernel/tracing/events/sched ]
}
EOF
	# in a mount namespace of its own, with tracefs unmounted
	run "${HARNESS_ENV[@]}" unshare -m sh -c '
		umount /sys/kernel/tracing 2>/dev/null
		[ ! -e /sys/kernel/tracing/events ] || exit 99
		tree/t/run-tests.sh t0100'
	[ "$status" != 99 ] || skip "cannot unmount tracefs here"
	assert_success
	assert_equal "${lines[-1]}" "1 passed, 0 failed, 0 skipped"
}
