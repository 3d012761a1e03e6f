#!/bin/sh
# install-deps.sh - install what varscope needs on Debian 12, when missing.
# A second run installs nothing.  Needs root (apt-get) only when something
# is missing.
set -e

PKGS="gcc make pkg-config libtraceevent-dev libtracefs-dev libelf-dev zlib1g-dev
libncurses-dev bats bats-assert bats-support linux-source-6.1 xz-utils
flex bison tmux man-db"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

echo "varscope: installing missing packages:$missing"
if [ "$(id -u)" != 0 ]; then
	echo "varscope: run as root, or install:$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing >/dev/null
