#!/bin/sh
# install-deps.sh [--bench] - install the Debian 12 packages varscope needs,
# when missing.  A second run checks with dpkg-query only and installs
# nothing; apt-get update runs only when something is missing.  Needs root
# only then.
#
#   (no option)  what the build, the tests, the docs, the examples and CI
#                need
#   --bench      also what the benchmarks under bench/ drive
#
# The Makefile reruns this script whenever it changes, so a package added
# here reaches every existing build tree.
set -e

# build: compiler, libperf from linux-source-6.1 (flex, bison, xz to build
# it), the tracing and symbol libraries, the TUI's ncurses, and for the
# recording engine's BPF programs clang (-target bpf), libbpf and bpftool
# (vmlinux.h from the kernel's BTF, the skeletons)
BUILD_PKGS="gcc make pkg-config libc6-dev linux-source-6.1 xz-utils flex bison
libtraceevent-dev libtracefs-dev libelf-dev libdw-dev zlib1g-dev libncurses-dev
clang libbpf-dev bpftool"
# tests: bats and its helpers, timeout (coreutils), /usr/bin/time for peak
# memory, python3 for the JSON checks, xmllint (libxml2-utils) and
# rsvg-convert (librsvg2-bin) for the SVG plots, tmux for the TUI tests,
# strace to count how often a command opens a trace, util-linux's script
# for a pty, man for "varscope help", procps (ps, pgrep), PostgreSQL 15
# with pgbench for record --task-func PortalRun, nginx for record
# --task-func on a pre-forking server's workers, and for t2500's annotated
# memcached: memcaslap (libmemcached-tools) to drive it, and what
# bench/memcached/build.sh needs to fetch and build it from its Debian
# source (dpkg-dev, patch, libevent-dev)
TEST_PKGS="bats bats-assert bats-support coreutils time python3 libxml2-utils
librsvg2-bin tmux strace util-linux man-db procps postgresql-15 nginx
libmemcached-tools dpkg-dev patch libevent-dev libc6-dbg"
# docs: asciidoctor converts Documentation/*.txt to man pages in one step
DOC_PKGS="asciidoctor"
# CI: clang's compiler-rt runtimes for make SANITIZE=1 and make fuzz
# (ASan, UBSan, libFuzzer: a separate package, only recommended by
# clang), git for the fresh clone
CI_PKGS="libclang-rt-dev git"
# benchmarks only: the servers bench/ drives (the annotated memcached's
# tools are the tests'), perf to compare with
BENCH_PKGS="memcached linux-perf lighttpd"

pkgs="$BUILD_PKGS $TEST_PKGS $DOC_PKGS $CI_PKGS"
case "$1" in
--bench) pkgs="$pkgs $BENCH_PKGS" ;;
"") ;;
*)
	echo "usage: scripts/install-deps.sh [--bench]" >&2
	exit 129
	;;
esac

missing=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' $pkgs 2>/dev/null |
	awk -v want="$(echo $pkgs)" '$2 == "installed" { ok[$1] = 1 }
	     END { n = split(want, p, " ");
		   for (i = 1; i <= n; i++) if (!ok[p[i]]) printf " %s", p[i] }')
[ -z "$missing" ] && exit 0

echo "varscope: installing missing packages:$missing"
if [ "$(id -u)" != 0 ]; then
	echo "varscope: run as root, or install:$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing >/dev/null
