#!/bin/sh
# Install the Debian packages memspy needs to build, test and benchmark, only those missing.
set -e
PKGS="cmake make gcc g++ clang gfortran pkg-config libdw-dev libelf-dev libjansson-dev
zlib1g-dev libzstd-dev libsqlite3-dev valgrind jq binutils autoconf automake chromium"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "memspy: installing missing Debian packages:$missing" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >&2
