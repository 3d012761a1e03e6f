# overlap-lib.bash - for the signature tests on t/t7030/overlap.c (t7030,
# t7040): `load overlap-lib` after test-lib.  Once per file, overlap is
# compiled and its signatures built from a normal run of a fixed number
# of requests (the same work however loaded the machine is):
# $OVERLAP_SIG_REQUESTS if the file sets it, else 3000; each test then
# has $OVERLAP, and $BATS_FILE_TMPDIR/ov.sig.

setup_file() {
	[ "$(id -u)" = 0 ] || return 0
	[ -e /sys/kernel/tracing/events ] ||
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || :
	"${VS_CC:-cc}" -O2 -fno-omit-frame-pointer -pthread \
		-o "$BATS_FILE_TMPDIR/overlap" "$SRC/t/t7030/overlap.c"
	"$VARSCOPE" signature build -o "$BATS_FILE_TMPDIR/ov.sig" -- \
		"$BATS_FILE_TMPDIR/overlap" \
		--requests="${OVERLAP_SIG_REQUESTS:-3000}" \
		2>"$BATS_FILE_TMPDIR/build.log" || :
}

setup() {
	vs_setup
	require_root
	require_tracefs
	[ -s "$BATS_FILE_TMPDIR/ov.sig" ] ||
		fail "signature build failed: $(cat "$BATS_FILE_TMPDIR/build.log")"
	OVERLAP=$BATS_FILE_TMPDIR/overlap
}
