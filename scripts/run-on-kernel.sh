#!/bin/bash
# run-on-kernel.sh [OPTIONS] VERSION -- COMMAND [ARG...] - run COMMAND in
# this machine's own system, booted on Debian's kernel VERSION (6.1 is
# Debian 12's) under qemu-system-x86_64 with KVM, and exit with its status.
#
#   scripts/run-on-kernel.sh 6.1 -- make test T='t2000 t2070'
#
# The guest's root is the host's / shared read-only over virtio-9p with a
# tmpfs over it (overlayfs): the guest sees this tree, its build and every
# installed tool as they are, and whatever it writes (a rebuild, test
# folders) is gone when it stops.  COMMAND runs as root in the current
# folder with no standard input; its output and the guest kernel's
# warnings are printed as they come.
#
# What it needs it fetches on the first run (root): the package
# qemu-system-x86, and into build/kernels/ (never into /boot) the newest
# linux-image-VERSION.*-amd64 of the apt sources and busybox-static, both
# unpacked with dpkg-deb.  The boot's initramfs holds busybox and the
# kernel's modules for 9p and overlayfs; the guest then mounts the rest of
# the kernel's modules on /lib/modules/VERSION.
#
# Options:
#   --cpus=N        virtual CPUs (default: the host's)
#   --mem=MB        guest memory, tmpfs included (default 4096)
#   --timeout=S     stop the guest after S seconds (default: none); 30 s
#                   before, a COMMAND still running has the guest's
#                   processes printed (state, wait channel, kernel stack)
#   --accel=A       kvm (the default) or tcg (emulation, many times
#                   slower); tcg where /dev/kvm is missing or is PVM's
#                   (kvm_pvm, which boots only PVM guest kernels: a stock
#                   kernel hangs after its setup code), said in one line
#   --dmesg         print the guest's kernel log after COMMAND
#
# Exit status: COMMAND's; 125 when the guest could not run it (no KVM, no
# kernel package, the guest did not finish).
#
# Inside the guest the same script runs as the first process after the
# initramfs (--guest RUNDIR): it mounts /proc, /sys, tracefs, the BPF file
# system, a tmpfs on /run, runs COMMAND and powers off.
set -u

me=$(readlink -f "$0")
top=$(cd "$(dirname "$me")/.." && pwd)

die() {
	echo "run-on-kernel: $*" >&2
	exit 125
}

usage() {
	sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$me"
	exit "$1"
}

# --- in the guest ------------------------------------------------------------

# stall_report: with a timeout, 30 s before it (the host counts from the
# guest's boot), the processes of a COMMAND still running: what each waits
# in, user space's and the kernel's, so that a hang says where it is.
# Bash's builtins alone once the wait is over: a hung file system (the
# root is 9p's) would hang any program started then.
stall_report() {
	local up d argv stat wchan line

	[ "$timeout" != 0 ] || return 0
	read -r up _ </proc/uptime
	up=${up%.*}
	[ $((timeout - 30 - up)) -gt 0 ] || return 0
	sleep $((timeout - 30 - up))
	echo "run-on-kernel: COMMAND still runs 30 s before the timeout; its processes:"
	for d in /proc/[0-9]*; do
		mapfile -d '' -t argv <"$d/cmdline" 2>/dev/null
		# kernel threads have no command line; this report is not
		[ ${#argv[@]} -gt 0 ] && [ "${d#/proc/}" != "$BASHPID" ] || continue
		read -r stat <"$d/stat" 2>/dev/null
		read -r wchan <"$d/wchan" 2>/dev/null
		stat=${stat##*) }
		echo "run-on-kernel: ${d#/proc/} ${stat%% *} in ${wchan:--}: ${argv[*]}"
		while read -r line; do
			echo "    $line"
		done <"$d/stack" 2>/dev/null
	done
}

guest() {
	local rundir=$1 status

	mount -t proc proc /proc
	mount -t sysfs sysfs /sys
	mount -t devtmpfs devtmpfs /dev 2>/dev/null
	mkdir -p /dev/pts /dev/shm
	mount -t devpts devpts /dev/pts
	mount -t tmpfs tmpfs /dev/shm
	ln -sf /proc/self/fd /dev/fd
	ln -sf /proc/self/fd/0 /dev/stdin
	ln -sf /proc/self/fd/1 /dev/stdout
	ln -sf /proc/self/fd/2 /dev/stderr
	# /tmp stays the host's, as the rest: COMMAND may run in a folder
	# there; the host's /run describes the host's services, not these
	mount -t tmpfs tmpfs /run
	mount -t tracefs tracefs /sys/kernel/tracing
	mount -t debugfs debugfs /sys/kernel/debug
	mount -t bpf bpf /sys/fs/bpf
	mount -t cgroup2 cgroup2 /sys/fs/cgroup
	# the run folder, writable: COMMAND's exit status goes back there
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 vsrun "$rundir"
	. "$rundir/settings"
	# the kernel's modules, loaded on demand (unix_diag...) by busybox's
	# modprobe with the index busybox's depmod made
	mkdir -p "/lib/modules/$kver" /run/run-on-kernel
	mount --bind "$kroot/lib/modules/$kver" "/lib/modules/$kver"
	ln -s "$busybox" /run/run-on-kernel/modprobe
	echo /run/run-on-kernel/modprobe >/proc/sys/kernel/modprobe
	hostname "kernel-$kver"
	ip link set lo up
	export HOME=/root TERM=dumb PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	stty -F /dev/console -onlcr 2>/dev/null

	if [ -r /sys/kernel/btf/vmlinux ]; then
		btf="BTF $(stat -c %s /sys/kernel/btf/vmlinux) bytes"
	else
		btf="no BTF (/sys/kernel/btf/vmlinux)"
	fi
	echo "run-on-kernel: Linux $(uname -r), $(nproc) CPUs, $btf"
	echo "run-on-kernel: in $cwd: ${cmd[*]}"
	cd "$cwd" || status=125
	if [ -z "${status:-}" ]; then
		stall_report &
		"${cmd[@]}" </dev/null 2>&1 | cat
		status=${PIPESTATUS[0]}
		kill $! 2>/dev/null
	fi
	if [ "$dmesg" = 1 ]; then
		echo "run-on-kernel: the guest's kernel log"
		dmesg
	fi
	echo "$status" >"$rundir/status"
	umount "$rundir"
	sync
	echo o >/proc/sysrq-trigger
	sleep 60 2>/dev/null	# its file system may be gone already
}

if [ "${1:-}" = --guest ]; then
	guest "$2"
	exit 1
fi

# --- on the host -------------------------------------------------------------
# One compound command, which bash reads whole before it runs any of it: an
# edit of this file while a guest runs cannot change what the host runs.
{
cpus=$(nproc)
mem=4096
timeout=0
dmesg=0
accel=
while [ $# -gt 0 ]; do
	case "$1" in
	--cpus=*) cpus=${1#*=} ;;
	--mem=*) mem=${1#*=} ;;
	--timeout=*) timeout=${1#*=} ;;
	--dmesg) dmesg=1 ;;
	--accel=kvm|--accel=tcg) accel=${1#*=} ;;
	-h|--help) usage 0 ;;
	-*) echo "run-on-kernel: unknown option $1" >&2; usage 129 >&2 ;;
	*) break ;;
	esac
	shift
done
[ $# -ge 3 ] && [ "$2" = -- ] || usage 129 >&2
version=$1
shift 2
case "$version$cpus$mem$timeout" in
*[!0-9.]*) echo "run-on-kernel: VERSION, --cpus, --mem and --timeout are numbers" >&2; exit 129 ;;
esac

[ "$(id -u)" = 0 ] || die "needs root (KVM, the 9p share of /)"
if [ -z "$accel" ]; then
	if [ ! -w /dev/kvm ]; then
		echo "run-on-kernel: no /dev/kvm: emulating the guest (tcg, slow)" >&2
		accel=tcg
	elif [ -d /sys/module/kvm_pvm ]; then
		echo "run-on-kernel: /dev/kvm is kvm_pvm's, which boots no stock kernel: emulating the guest (tcg, slow)" >&2
		accel=tcg
	else
		accel=kvm
	fi
fi
case $accel in
kvm) cpu=host kargs= ;;
# An emulated TSC fails the kernel's synchronization check: the scheduler's
# clock (cpu-clock, run times) then drifts from CLOCK_MONOTONIC (on the
# HPET) by percents.  tsc=reliable keeps both on the TSC, as on hardware.
tcg) cpu=max accel=tcg,thread=multi kargs=tsc=reliable ;;
esac

kernels=$top/build/kernels
mkdir -p "$kernels" || die "cannot create $kernels"

apt_install() {
	dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null | grep -qx installed &&
		return 0
	echo "run-on-kernel: installing $1"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq &&
		apt-get install -y -qq --no-install-recommends "$1" >/dev/null
}

# apt_unpack PACKAGE: the package's files under $kernels/PACKAGE
apt_unpack() {
	local dir=$kernels/$1
	[ -e "$dir/.unpacked" ] && return 0
	echo "run-on-kernel: fetching $1 into $dir"
	rm -rf "$dir" "$kernels"/"$1"_*.deb
	(cd "$kernels" && apt-get download -qq "$1" 2>/dev/null) ||
		{ apt-get update -qq && (cd "$kernels" && apt-get download -qq "$1"); } ||
		return 1
	dpkg-deb -x "$kernels"/"$1"_*.deb "$dir" && touch "$dir/.unpacked" &&
		rm -f "$kernels"/"$1"_*.deb
}

kernel_package() {
	apt-cache pkgnames "linux-image-$version." |
		grep -E "^linux-image-${version//./\\.}\\.[0-9]+(-[0-9]+|\\+deb[0-9]+)-amd64\$" |
		sort -V | tail -n 1
}

apt_install qemu-system-x86 || die "cannot install qemu-system-x86"
kpkg=$(kernel_package)
[ -n "$kpkg" ] || { apt-get update -qq; kpkg=$(kernel_package); }
[ -n "$kpkg" ] || die "no package linux-image-$version.*-amd64 in the apt sources"
apt_unpack "$kpkg" || die "cannot fetch $kpkg"
apt_unpack busybox-static || die "cannot fetch busybox-static"
kroot=$kernels/$kpkg
kver=${kpkg#linux-image-}
busybox=$kernels/busybox-static/bin/busybox
[ -r "$kroot/lib/modules/$kver/modules.dep" ] ||
	"$busybox" depmod -b "$kroot" "$kver" ||
	die "cannot index the modules of $kpkg"
vmlinuz=$kroot/boot/vmlinuz-$kver
[ -r "$vmlinuz" ] || die "$kpkg has no $vmlinuz"

rundir=$(mktemp -d "$kernels/run.XXXXXX") || die "cannot create a run folder"
trap 'rm -rf "$rundir"' EXIT
{
	printf 'kver=%q kroot=%q busybox=%q cwd=%q dmesg=%q timeout=%q\ncmd=(' \
		"$kver" "$kroot" "$busybox" "$PWD" "$dmesg" "$timeout"
	printf '%q ' "$@"
	printf ')\n'
} >"$rundir/settings"

# modules_in_order NAME...: the .ko paths that load NAME... and what they
# depend on, each after its dependencies (modules.dep by busybox depmod,
# which lists every dependency of a module but not in load order);
# built-in modules give nothing.
modules_in_order() {
	awk -v want="$*" '
		function base(p) { sub(/.*\//, "", p); sub(/\.ko.*/, "", p); gsub(/-/, "_", p); return p }
		function visit(p,    i, n, d) {
			if (p in done) return
			done[p] = 1
			n = split(deps[p], d, " ")
			for (i = 1; i <= n; i++) visit(d[i])
			print p
		}
		{ sub(/:$/, "", $1); path[base($1)] = $1; $1 = $1; deps[$1] = substr($0, length($1) + 2) }
		END { n = split(want, w, " ")
		      for (i = 1; i <= n; i++) if (w[i] in path) visit(path[w[i]]) }' \
		"$kroot/lib/modules/$kver/modules.dep"
}

initrd=$rundir/initrd
mkdir -p "$initrd/bin" "$initrd/mods"
cp "$busybox" "$initrd/bin/busybox"
# the guest runs a copy of this script: the tree may change meanwhile
cp "$me" "$rundir/run-on-kernel.sh"
{
	echo '#!/bin/busybox sh'
	echo 'busybox mkdir -p /proc /dev /lower /upper /newroot'
	echo 'busybox mount -t proc proc /proc'
	echo 'busybox mount -t devtmpfs devtmpfs /dev'
	for ko in $(modules_in_order virtio_pci 9pnet_virtio 9p overlay); do
		cp "$kroot/lib/modules/$kver/$ko" "$initrd/mods/"
		echo "busybox insmod /mods/${ko##*/} || exit 1"
	done
	cat <<-EOF
	busybox mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=262144,cache=loose vsroot /lower || exit 1
	busybox mount -t tmpfs tmpfs /upper || exit 1
	busybox mkdir -p /upper/data /upper/work
	busybox mount -t overlay overlay -o lowerdir=/lower,upperdir=/upper/data,workdir=/upper/work /newroot || exit 1
	busybox umount /proc /dev
	exec busybox switch_root /newroot /bin/bash $(printf %q "$rundir/run-on-kernel.sh") --guest $(printf %q "$rundir")
	EOF
} >"$initrd/init"
chmod +x "$initrd/init"
(cd "$initrd" && find . | "$busybox" cpio -o -H newc 2>/dev/null) \
	>"$rundir/initrd.cpio" || die "cannot build the initramfs"

# A guest kernel that locks up says where: loglevel=5 shows the stacks of
# its soft lockup and RCU stall reports (printed at the default level, 4),
# of every CPU, and the lockup ends the guest at once instead of at the
# timeout (a CI run saw the recorder stuck 500 s on 6.1's CPU 0 with no
# stack).
qemu=(qemu-system-x86_64 -machine q35 -accel "$accel" -cpu "$cpu" -smp "$cpus" -m "$mem"
	-kernel "$vmlinuz" -initrd "$rundir/initrd.cpio"
	-append "console=ttyS0 quiet loglevel=5 softlockup_panic=1 softlockup_all_cpu_backtrace=1 panic=-1 rdinit=/init $kargs"
	-fsdev local,id=vsroot,path=/,security_model=passthrough,readonly=on,multidevs=remap
	-device virtio-9p-pci,fsdev=vsroot,mount_tag=vsroot
	-fsdev local,id=vsrun,path="$rundir",security_model=passthrough,multidevs=remap
	-device virtio-9p-pci,fsdev=vsrun,mount_tag=vsrun
	-display none -monitor none -serial stdio -nic none -no-reboot)
if [ "$timeout" != 0 ]; then
	qemu=(timeout -k 10 "$timeout" "${qemu[@]}")
fi
"${qemu[@]}" </dev/null
qemu_status=$?
[ -r "$rundir/status" ] ||
	die "the guest stopped before COMMAND's end (qemu's exit status $qemu_status)"
status=$(cat "$rundir/status")
echo "run-on-kernel: exit status $status"
exit "$status"
}
