#!/usr/bin/env bash
# BoringSSL's libcrypto (Debian's android-libboringssl, which exports SPAKE2_*), unpacked, not
# installed, into android/.adb-peers/boringssl/ (gitignored), the reference peer of
# test/android/adb-spake2.test.ts. Cached: does nothing when already there. About 0.7 MB.
# Uses this machine's own apt sources (Debian 12 has android-libboringssl 13, built for its glibc).
set -euo pipefail
cd "$(dirname "$0")/../../.."
dest=android/.adb-peers/boringssl
lib=$(find "$dest" -name libcrypto.so.0 2>/dev/null | head -n 1 || true)
if [ -n "$lib" ]; then echo "$lib"; exit 0; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download -q android-libboringssl >/dev/null 2>&1) ||
  { echo "adb-peers: 'apt-get download android-libboringssl' failed (run apt-get update first?)" >&2; exit 1; }
mkdir -p "$dest"
dpkg -x "$work"/android-libboringssl_*.deb "$dest"
find "$dest" -name libcrypto.so.0 | head -n 1
