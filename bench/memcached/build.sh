#!/bin/sh
# build.sh - build Debian 12's memcached with VarMRI's two annotation lines
# (bench/memcached/varscope-annotate.patch) into build/memcached/memcached.
#
#   bench/memcached/build.sh [--force]
#
# On a fresh Debian 12 machine, as root: installs the packages it needs
# (scripts/install-deps.sh: dpkg-dev, patch, libevent-dev), adds a
# deb-src entry for the Debian repositories apt already uses when there is
# none, fetches the source with "apt-get source memcached" into
# build/memcached-src, applies the patch to a fresh copy, and builds
# against libvarscope.a.  A second run does nothing while the binary is
# newer than the patch, this script and libvarscope.a; --force rebuilds.
#
# Environment: LIBVARSCOPE, the archive to link (default libvarscope.a at
# the top of the tree, built by make).
set -e

top=$(cd "$(dirname "$0")/../.." && pwd)
src_dir=$top/build/memcached-src
out_dir=$top/build/memcached
bin=$out_dir/memcached
patch_file=$top/bench/memcached/varscope-annotate.patch
lib=${LIBVARSCOPE:-$top/libvarscope.a}

say() {
	echo "memcached: $*"
}

die() {
	echo "memcached: $*" >&2
	exit 1
}

case "$1" in
--force) force=1 ;;
"") force= ;;
*) echo "usage: bench/memcached/build.sh [--force]" >&2; exit 129 ;;
esac

[ -f "$lib" ] || die "$lib is not built (run make)"

# Up to date?
if [ -z "$force" ] && [ -x "$bin" ] &&
   [ -z "$(find "$patch_file" "$0" "$lib" -newer "$bin" 2>/dev/null)" ]; then
	exit 0
fi

"$top/scripts/install-deps.sh"

# The enabled deb822 stanzas and one-line entries of the Debian release
# apt uses (suites CODENAME and CODENAME-*), component main, rewritten as
# deb-src entries.  Nothing is invented: URIs, suites and keys are copied.
codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
[ -n "$codename" ] || die "no VERSION_CODENAME in /etc/os-release"

have_deb_src() {
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		grep -Eq "^[[:space:]]*deb-src[[:space:]].*[[:space:]]$codename([[:space:]]|-)" &&
		return 0
	cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk -v cn="$codename" '
		BEGIN { RS = ""; found = 0 }
		/(^|\n)Types:[^\n]*deb-src/ && $0 ~ "(^|\n)Suites:[^\n]*[ \t]" cn "([ \t-]|$|\n)" &&
		    $0 !~ /(^|\n)Enabled:[ \t]*no/ { found = 1 }
		END { exit !found }'
}

deb822_src() {
	cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk -v cn="$codename" '
	BEGIN { RS = ""; FS = "\n" }
	{
		delete f; key = ""; out = ""
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^#/)
				continue
			if ($i ~ /^[ \t]/ && key != "") {
				f[key] = f[key] "\n" $i
				continue
			}
			key = $i; sub(/:.*/, "", key)
			val = $i; sub(/^[^:]*:[ \t]*/, "", val)
			f[key] = val
		}
		if (f["Enabled"] == "no" || f["Types"] !~ /(^| )deb( |$)/ ||
		    f["Components"] !~ /(^| )main( |$)/)
			next
		n = split(f["Suites"], s, /[ \t]+/)
		suites = ""
		for (i = 1; i <= n; i++)
			if (s[i] == cn || index(s[i], cn "-") == 1)
				suites = suites (suites ? " " : "") s[i]
		if (!suites)
			next
		printf "Types: deb-src\nURIs: %s\nSuites: %s\nComponents: main\n", f["URIs"], suites
		if ("Signed-By" in f)
			printf "Signed-By: %s\n", f["Signed-By"]
		printf "\n"
	}'
}

oneline_src() {
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk -v cn="$codename" '
		$1 == "deb" {
			i = 2
			opts = ""
			if ($2 ~ /^\[/) {
				while (i <= NF && $i !~ /\]$/) { opts = opts $i " "; i++ }
				opts = opts $i " "; i++
			}
			uri = $i; suite = $(i + 1)
			if (suite != cn && index(suite, cn "-") != 1)
				next
			for (j = i + 2; j <= NF; j++)
				if ($j == "main")
					printf "deb-src %s%s %s main\n", opts, uri, suite
		}'
}

if ! have_deb_src; then
	[ "$(id -u)" = 0 ] || die "no deb-src entry for $codename; run as root to add one"
	added=
	entries=$(deb822_src)
	if [ -n "$entries" ]; then
		printf '%s\n' "$entries" >/etc/apt/sources.list.d/varscope-deb-src.sources
		added=/etc/apt/sources.list.d/varscope-deb-src.sources
	fi
	entries=$(oneline_src)
	if [ -n "$entries" ]; then
		printf '%s\n' "$entries" >/etc/apt/sources.list.d/varscope-deb-src.list
		added="$added /etc/apt/sources.list.d/varscope-deb-src.list"
	fi
	[ -n "$added" ] || die "no Debian $codename main repository in apt's sources"
	say "added deb-src entries:$added"
	apt-get update -qq
fi

# The source package, fetched once; a fresh copy is patched every build.
mkdir -p "$src_dir" "$out_dir"
if ! ls "$src_dir"/memcached_*.dsc >/dev/null 2>&1; then
	say "apt-get source memcached"
	(cd "$src_dir" && apt-get source -qq --download-only memcached) ||
		die "apt-get source memcached failed"
fi
dsc=$(ls "$src_dir"/memcached_*.dsc | sort -V | tail -n 1)
tree=$src_dir/tree
rm -rf "$tree"
dpkg-source --no-check -q -x "$dsc" "$tree" >/dev/null
(cd "$tree" && patch -s -p1 <"$patch_file") || die "the patch does not apply to $dsc"

say "building $(basename "$dsc" .dsc) with the varscope annotations"
(
	cd "$tree"
	./configure -q --disable-docs --disable-sasl --disable-extstore \
		CFLAGS="-O2 -g -fno-omit-frame-pointer" \
		CPPFLAGS="-I$top/include" LIBS="$lib -lpthread" >/dev/null
	make -s -j"$(nproc)" memcached >/dev/null
) || die "build failed (see $tree)"
cp "$tree/memcached" "$bin.tmp"
mv "$bin.tmp" "$bin"
say "built $bin"
