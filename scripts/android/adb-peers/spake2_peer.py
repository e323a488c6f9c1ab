#!/usr/bin/env python3
"""BoringSSL's own SPAKE2 as one side of an exchange over stdin/stdout (the reference peer of
test/android/adb-spake2.test.ts; android/jvm/test/.../Spake2Peer.java speaks the same lines).

usage: spake2_peer.py LIBCRYPTO client|server PASSWORD_HEX
prints "msg HEX", reads the peer's message as hex, prints "key HEX" or "refused".
LIBCRYPTO is Debian bookworm's android-libboringssl libcrypto.so.0 (it exports SPAKE2_*);
scripts/android/adb-peers.sh fetches it. The names are AOSP pairing_auth.cpp's, NUL included."""
import ctypes
import sys

lib = ctypes.CDLL(sys.argv[1])
role = 0 if sys.argv[2] == "client" else 1  # spake2_role_alice, spake2_role_bob
password = bytes.fromhex(sys.argv[3])
CLIENT, SERVER = b"adb pair client\0", b"adb pair server\0"
me, them = (CLIENT, SERVER) if role == 0 else (SERVER, CLIENT)

lib.SPAKE2_CTX_new.restype = ctypes.c_void_p
lib.SPAKE2_CTX_new.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t]
for f in (lib.SPAKE2_generate_msg, lib.SPAKE2_process_msg):
    f.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_size_t), ctypes.c_size_t,
                  ctypes.c_char_p, ctypes.c_size_t]

ctx = lib.SPAKE2_CTX_new(role, me, len(me), them, len(them))
out, n = ctypes.create_string_buffer(32), ctypes.c_size_t()
# BoringSSL draws the private scalar from its own RAND_bytes: an exchange, not a fixed vector.
assert lib.SPAKE2_generate_msg(ctx, out, ctypes.byref(n), 32, password, len(password)) == 1
print("msg", out.raw[:n.value].hex(), flush=True)
theirs = bytes.fromhex(sys.stdin.readline().strip())
key, n = ctypes.create_string_buffer(64), ctypes.c_size_t()
if lib.SPAKE2_process_msg(ctx, key, ctypes.byref(n), 64, theirs, len(theirs)) == 1:
    print("key", key.raw[:n.value].hex(), flush=True)
else:
    print("refused", flush=True)
