#!/bin/sh
# build-libperf.sh OUTDIR - build libperf.a (and the libapi.a it needs)
# from Debian's linux-source-6.1 into OUTDIR, with its headers in
# OUTDIR/include.  Does nothing when OUTDIR/libperf.a exists.
set -e
out=${1:?usage: build-libperf.sh OUTDIR}
[ -f "$out/libperf.a" ] && [ -f "$out/libapi.a" ] && exit 0

tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)
if [ -z "$tarball" ]; then
	echo "varscope: no /usr/src/linux-source-*.tar.xz; install linux-source-6.1" >&2
	exit 1
fi
src="$out/src"
rm -rf "$src"
mkdir -p "$src"
echo "varscope: building libperf from $tarball"
top=$(basename "$tarball" .tar.xz)
tar -xJf "$tarball" -C "$src" --strip-components=1 \
	"$top/tools" "$top/include/uapi" "$top/arch/x86/include/uapi" "$top/scripts"
make -s -C "$src/tools/lib/api" libapi.a >/dev/null
make -s -C "$src/tools/lib/perf" libperf.a >/dev/null
mkdir -p "$out/include"
cp -r "$src/tools/lib/perf/include/perf" "$out/include/"
cp "$src/tools/lib/perf/libperf.a" "$src/tools/lib/api/libapi.a" "$out/"
rm -rf "$src"
