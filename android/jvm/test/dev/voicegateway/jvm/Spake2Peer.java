package dev.voicegateway.jvm;

import dev.voicegateway.core.adb.Hex;
import dev.voicegateway.core.adb.Spake2;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.security.SecureRandom;

/**
 * One side of a SPAKE2 exchange over stdin/stdout, so test/android/adb-spake2.test.ts can pair our
 * Spake2 with BoringSSL's (scripts/android/adb-peers/spake2_peer.py speaks the same lines):
 * args {@code client|server PASSWORD_HEX}; prints {@code msg HEX}, reads the peer's message in hex,
 * prints {@code key HEX} or {@code refused REASON}.
 */
public final class Spake2Peer {
    private Spake2Peer() {}

    public static void main(String[] args) throws Exception {
        Spake2 me = "client".equals(args[0]) ? Spake2.adbClient(new SecureRandom()) : Spake2.adbServer(new SecureRandom());
        System.out.println("msg " + Hex.encode(me.generateMessage(Hex.decode(args[1]))));
        System.out.flush();
        String theirs = new BufferedReader(new InputStreamReader(System.in, "US-ASCII")).readLine().trim();
        try {
            System.out.println("key " + Hex.encode(me.processMessage(Hex.decode(theirs))));
        } catch (IllegalArgumentException e) {
            System.out.println("refused " + e.getMessage());
        }
    }
}
