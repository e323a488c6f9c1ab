#!/usr/bin/env bash
# The real ADB peers the pairing and transport tests run against, built from Debian's own packages
# into android/.adb-peers/ (gitignored; nothing is installed into the system):
#   bin/adb_pairing_server  AOSP's pairing server (pairing_connection/pairing_server.cpp) + our main
#   bin/adbd-tls            Debian's adbd with the shared recipe's adbd-probe-env.patch: ADBD_TLS=1 sends STLS and speaks
#                           TLS 1.3 as Wireless debugging does, ADBD_AUTH=1 checks keys, ADBD_KEYS=file
#   run                     runs either with trixie's own loader and libraries (they need glibc 2.38)
# About 30 MB of downloads from Debian trixie (binaries, -dev headers, the android-platform-tools
# source) and about 1.5 minutes of g++ on two cores. Cached: each step is skipped when its output is
# there, each object file when newer than its source. Needs apt-get, dpkg, g++ (any Debian 12+).
# Recipe learnt from shared/android/adb-peers/ (fetch.sh, build_*.sh), whose adbd patch and header shim
# are used from there as they are (shared/ lies beside the repository, here and in CI), not copied in.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
A=${ADB_PEERS_DIR:-$(cd "$HERE/../../.." && pwd)/android/.adb-peers}
mkdir -p "$A/bin"
# The real path: bin/run names it, and android/.adb-peers may be a link to a cache that outlives the clone.
A=$(cd "$A" && pwd -P)
# Built already (a kept cache): nothing to build, so the recipe is not needed either.
if [ -x "$A/bin/adb_pairing_server" ] && [ -x "$A/bin/adbd-tls" ] && [ -x "$A/bin/run" ]; then exit 0; fi

# The recipe lies beside the repository; a clone made elsewhere (git clone . /tmp/x) finds it beside
# the repository it was cloned from.
REPO=$(cd "$HERE/../../.." && pwd)
ORIGIN=$(git -C "$REPO" remote get-url origin 2>/dev/null || true)
RECIPE=${VG_ADB_RECIPE_DIR:-$(dirname "$REPO")/shared/android/adb-peers}
if [ -z "${VG_ADB_RECIPE_DIR:-}" ] && [ ! -d "$RECIPE" ] && [ -d "$ORIGIN" ]; then
  RECIPE=$(cd "$ORIGIN/.." && pwd)/shared/android/adb-peers
fi
if [ ! -f "$RECIPE/adbd-probe-env.patch" ] || [ ! -d "$RECIPE/shim" ]; then
  echo "build-peers: the shared ADB recipe is not at $RECIPE (adbd-probe-env.patch, shim/); set VG_ADB_RECIPE_DIR" >&2
  exit 1
fi

# ---- fetch: trixie packages through a private apt state (the system's apt is not touched) ----
if [ ! -f "$A/src/.patched" ]; then
  MIRROR=${MIRROR:-$(cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null | grep -v -e security -e '^ *#' | grep -o 'http[s]*://[^ ]*debian[^ ]*' | head -n 1 || true)}; MIRROR=${MIRROR:-http://deb.debian.org/debian}
  rm -rf "$A/apt" "$A/debs" "$A/root" "$A/devroot" "$A/src"
  mkdir -p "$A"/apt/{lists/partial,cache/archives/partial} "$A/debs" "$A/root" "$A/devroot" "$A/src"
  cat > "$A/apt/sources.list" <<EOS
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ${MIRROR} trixie main
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ${MIRROR} trixie main
EOS
  touch "$A/apt/status"
  O=(-o "Dir::Etc::SourceList=$A/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$A/apt/lists"
     -o "Dir::Cache=$A/apt/cache" -o "Dir::State::status=$A/apt/status" -o Debug::NoLocking=1 -q)
  apt-get "${O[@]}" update >/dev/null
  cd "$A/debs"
  apt-get "${O[@]}" download android-libbase android-libboringssl android-libcutils android-liblog \
    libc6 libgcc-s1 libstdc++6 libprotobuf32t64 libbrotli1 liblz4-1 libzstd1 libsystemd0 libcap2 zlib1g libprotoc32t64 >/dev/null
  for d in *.deb; do dpkg -x "$d" "$A/root"; done
  apt-get "${O[@]}" download android-libboringssl-dev android-libbase-dev android-libcutils-dev android-liblog-dev \
    android-platform-system-core-headers libprotobuf-dev protobuf-compiler libbrotli-dev liblz4-dev libzstd-dev libsystemd-dev libcap-dev >/dev/null
  for d in *-dev_*.deb protobuf-compiler_*.deb android-platform-system-core-headers_*.deb libprotoc32t64_*.deb; do dpkg -x "$d" "$A/devroot"; done
  cd "$A/src" && apt-get "${O[@]}" source --download-only adb >/dev/null
  mkdir -p x && tar -xf android-platform-tools_*.orig.tar.xz -C x && tar -xf android-platform-tools_*.debian.tar.xz -C x
  cd x && for p in $(grep -v '^#' debian/patches/series); do patch -p1 -s --forward < "debian/patches/$p" >/dev/null || true; done
  patch -p1 -s --forward < "$RECIPE/adbd-probe-env.patch"
  rm -f "$A"/debs/*.deb "$A"/apt/cache/archives/*.deb
  touch "$A/src/.patched"
fi

R=$A/root; L=$R/usr/lib/x86_64-linux-gnu
LP=$L/android:$L:$R/lib/x86_64-linux-gnu
LD=$L/ld-linux-x86-64.so.2; [ -e "$LD" ] || LD=$R/lib64/ld-linux-x86-64.so.2
S=$A/src/x; M=$S/packages/modules/adb; G=$A/build/gen; mkdir -p "$G"
for p in adb_known_hosts app_processes key_type pairing; do
  [ -f "$G/$p.pb.cc" ] || "$LD" --library-path "$LP" "$A/devroot/usr/bin/protoc" -I "$M/proto" --cpp_out="$G" "$M/proto/$p.proto"
done
INC="-I$RECIPE/shim -I$M -I$M/crypto/include -I$M/pairing_auth/include -I$M/pairing_connection/include -I$M/tls/include -I$M/proto -I$G
 -I$S/frameworks/native/libs/adbd_auth/include -I$M/libs/libadbd_fs/include -I$M/libs/adbconnection/include
 -I$S/system/core/diagnose_usb/include -I$S/system/core/include -I$S/system/core/libasyncio/include
 -I$S/system/core/libcrypto_utils/include -I$S/system/core/libcutils/include -I$S/system/libbase/include
 -I$S/system/logging/liblog/include -I$A/devroot/usr/include/android -I$A/devroot/usr/include"
DEFS="-D_GNU_SOURCE -DADB_HOST=0 -DPLATFORM_TOOLS_VERSION=\"34.0.5\" -DADB_VERSION=\"34.0.5-vg-test\"
 -DANDROID_BASE_UNIQUE_FD_DISABLE_IMPLICIT_CONVERSION=1 -DPAGE_SIZE=4096 -D_Nonnull= -D_Nullable= -D_Null_unspecified= -include condition_variable"
LIBS="-L$L/android -L$L -Wl,--allow-shlib-undefined -l:libbase.so.0 -l:libcutils.so.0 -l:liblog.so.0 -l:libcrypto.so.0 -l:libssl.so.0 -l:libprotobuf.so.32"

# Compiles each source (skipping up-to-date objects) into $A/build/$1 and prints the object paths.
objects() {
  local dir=$A/build/$1; shift; mkdir -p "$dir"
  local s o
  for s in "$@"; do
    o=$dir/$(echo "${s#"$A"/}" | tr / _).o
    [ "$o" -nt "$s" ] || nice g++ -std=gnu++2a -O1 -fPIC -w $DEFS $INC -c "$s" -o "$o" >&2
    echo "$o"
  done
}

if [ ! -x "$A/bin/adb_pairing_server" ]; then
  PS=""
  for f in pairing_connection/pairing_server.cpp pairing_connection/pairing_connection.cpp pairing_auth/pairing_auth.cpp \
    pairing_auth/aes_128_gcm.cpp tls/tls_connection.cpp tls/adb_ca_list.cpp crypto/key.cpp crypto/rsa_2048_key.cpp \
    crypto/x509_generator.cpp sysdeps/env.cpp; do PS="$PS $M/$f"; done
  PS="$PS $S/system/core/libcrypto_utils/android_pubkey.cpp $G/pairing.pb.cc $HERE/pairing_server_main.cpp"
  # shellcheck disable=SC2046,SC2086
  g++ -o "$A/bin/adb_pairing_server" $(objects ps $PS) $LIBS -lpthread
fi

if [ ! -x "$A/bin/adbd-tls" ]; then
  AD=""
  for f in adb.cpp adb_io.cpp adb_listeners.cpp adb_trace.cpp services.cpp sockets.cpp socket_spec.cpp transport.cpp \
    transport_fd.cpp types.cpp daemon/adb_wifi.cpp daemon/auth.cpp daemon/jdwp_service.cpp daemon/logging.cpp \
    daemon/main.cpp daemon/transport_local.cpp daemon/usb.cpp daemon/usb_ffs.cpp libs/adbconnection/adbconnection_server.cpp \
    daemon/file_sync_service.cpp daemon/services.cpp daemon/shell_service.cpp shell_service_protocol.cpp libs/libadbd_fs/adbd_fs.cpp \
    adb_unique_fd.cpp adb_utils.cpp fdevent/fdevent.cpp sysdeps/env.cpp sysdeps/errno.cpp sysdeps_unix.cpp sysdeps/posix/network.cpp \
    fdevent/fdevent_epoll.cpp pairing_auth/aes_128_gcm.cpp pairing_auth/pairing_auth.cpp pairing_connection/pairing_connection.cpp \
    crypto/key.cpp crypto/rsa_2048_key.cpp crypto/x509_generator.cpp tls/adb_ca_list.cpp tls/tls_connection.cpp; do AD="$AD $M/$f"; done
  AD="$AD $S/system/core/diagnose_usb/diagnose_usb.cpp $S/system/core/libasyncio/AsyncIO.cpp
    $S/frameworks/native/libs/adbd_auth/adbd_auth.cpp $S/system/core/libcrypto_utils/android_pubkey.cpp
    $G/adb_known_hosts.pb.cc $G/app_processes.pb.cc $G/key_type.pb.cc $G/pairing.pb.cc"
  # shellcheck disable=SC2046,SC2086
  g++ -o "$A/bin/adbd-tls" $(objects adbd $AD) $LIBS \
    -l:libbrotlidec.so.1 -l:libbrotlienc.so.1 -l:liblz4.so.1 -l:libzstd.so.1 -l:libsystemd.so.0 -lresolv -lpthread
fi

cat > "$A/bin/run" <<EOS
#!/bin/sh
# Runs a peer built against trixie with trixie's loader and libraries: run PROGRAM ARGS...
exec "$LD" --library-path "$LP" "\$@"
EOS
chmod +x "$A/bin/run"
echo "adb peers ready in $A/bin"
