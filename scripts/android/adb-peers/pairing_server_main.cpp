// AOSP's own ADB pairing server (packages/modules/adb/pairing_connection/pairing_server.cpp, from
// Debian's android-platform-tools source) behind a small command line, the peer the app's pairing
// client is tested against (test/android/adb-peers.test.ts).
// usage: adb_pairing_server PORT PASSWORD  (PORT 0: any free port)
// prints "listening PORT", then "paired type=T data=<peer info>" when a client paired (type 0: the
// client's public key, as adbd would store it in adb_keys). After a wrong code AOSP's server logs a
// decrypt failure and keeps listening for another attempt: a test stops it itself.
#include <adb/pairing/pairing_server.h>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

static std::mutex lock;
static std::condition_variable changed;
static bool finished = false;
static int status = 1;

static void on_result(const PeerInfo* peer, void*) {
    std::lock_guard<std::mutex> guard(lock);
    if (peer) {
        const char* data = reinterpret_cast<const char*>(peer->data);
        printf("paired type=%u data=%s\n", peer->type, std::string(data, strnlen(data, sizeof(peer->data))).c_str());
        status = 0;
    } else {
        printf("pairing failed\n");
        status = 3;
    }
    fflush(stdout);
    finished = true;
    changed.notify_all();
}

int main(int argc, char** argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s PORT PASSWORD\n", argv[0]); return 2; }
    std::string password = argv[2];
    PeerInfo ours = {};
    ours.type = ADB_DEVICE_GUID;
    strncpy(reinterpret_cast<char*>(ours.data), "adb-test-device-guid", sizeof(ours.data) - 1);
    PairingServerCtx* ctx = pairing_server_new_no_cert(reinterpret_cast<const uint8_t*>(password.data()),
                                                       password.size(), &ours, static_cast<uint16_t>(atoi(argv[1])));
    if (!ctx) { fprintf(stderr, "pairing_server_new_no_cert failed\n"); return 1; }
    uint16_t port = pairing_server_start(ctx, on_result, nullptr);
    if (port == 0) { fprintf(stderr, "pairing_server_start failed\n"); return 1; }
    printf("listening %u\n", port);
    fflush(stdout);
    std::unique_lock<std::mutex> guard(lock);
    changed.wait(guard, [] { return finished; });
    guard.unlock();
    pairing_server_destroy(ctx);
    return status;
}
