package dev.voicegateway.core.adb;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;

/**
 * The client side of ADB's Wireless debugging pairing ("Pair device with pairing code"), as AOSP
 * packages/modules/adb/pairing_connection/pairing_connection.cpp runs it:
 * <ol>
 * <li>TLS 1.3, our certificate presented, the server's accepted as it is;</li>
 * <li>password = the six-digit code followed by 64 bytes exported from TLS with the label
 *   "adb-label\0" (tls/tls_connection.cpp), so the code is bound to this very TLS session;</li>
 * <li>SPAKE2 ({@link Spake2}) messages exchanged in packets of a 6-byte header: version 1, type
 *   (0 = SPAKE2 message, 1 = peer info), payload length big-endian;</li>
 * <li>both sides' peer info (8192 bytes: a type byte, then NUL-padded data; ours is type 0, our
 *   public key in adb's format) sealed with AES-128-GCM under HKDF-SHA256(SPAKE2 key, no salt,
 *   "adb pairing_auth aes-128-gcm key") with a 12-byte nonce holding a counter from 0
 *   (pairing_auth/aes_128_gcm.cpp).</li>
 * </ol>
 * A wrong code is seen as the server's peer info failing to decrypt, or (what AOSP's server does: it
 * fails to decrypt ours first) as the server closing the connection: both are {@link Refused}.
 */
public final class AdbPairingClient {
    static final byte[] EXPORTER_LABEL = "adb-label\0".getBytes(Charset.forName("US-ASCII"));
    static final int EXPORTED_KEY_SIZE = 64;
    static final int PEER_INFO_SIZE = 8192;
    static final int TYPE_SPAKE2_MSG = 0;
    static final int TYPE_PEER_INFO = 1;
    static final int PEER_RSA_PUB_KEY = 0;
    static final int PEER_DEVICE_GUID = 1;
    /** AOSP refuses payloads over twice the peer info's size (kMaxPayloadSize). */
    private static final int MAX_PAYLOAD = PEER_INFO_SIZE * 2;

    /** The code did not pair: wrong code, or the phone stopped listening. The message is for a person. */
    public static final class Refused extends IOException {
        public Refused(String message) {
            super(message);
        }
    }

    /** What the phone told about itself on success (its type byte and text, e.g. a device GUID). */
    public static final class Paired {
        public final int peerType;
        public final String peerData;

        Paired(int peerType, String peerData) {
            this.peerType = peerType;
            this.peerData = peerData;
        }
    }

    private final AdbTls tls;
    private final AdbKey key;
    private final String keyName;
    private final SecureRandom random;
    private final int timeoutMillis;

    /** {@code keyName} follows the public key in the phone's list of authorized keys (e.g. "voicegateway@phone"). */
    public AdbPairingClient(AdbTls tls, AdbKey key, String keyName, SecureRandom random, int timeoutMillis) {
        this.tls = tls;
        this.key = key;
        this.keyName = keyName;
        this.random = random;
        this.timeoutMillis = timeoutMillis;
    }

    public Paired pair(String host, int port, String code) throws IOException {
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress(host, port), timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            AdbTls.Session session = tls.handshake(socket, key);
            try {
                return pair(session, code);
            } finally {
                session.close();
            }
        } finally {
            socket.close();
        }
    }

    /** The protocol over an established TLS session (the part that does not depend on whose TLS runs). */
    Paired pair(AdbTls.Session session, String code) throws IOException {
        byte[] codeBytes = code.getBytes(Charset.forName("UTF-8"));
        byte[] ekm = session.exportKeyingMaterial(EXPORTER_LABEL, EXPORTED_KEY_SIZE);
        byte[] password = new byte[codeBytes.length + ekm.length];
        System.arraycopy(codeBytes, 0, password, 0, codeBytes.length);
        System.arraycopy(ekm, 0, password, codeBytes.length, ekm.length);

        Spake2 spake = Spake2.adbClient(random);
        OutputStream out = session.output();
        DataInputStream in = new DataInputStream(session.input());
        writePacket(out, TYPE_SPAKE2_MSG, spake.generateMessage(password));
        Arrays.fill(password, (byte) 0);
        byte[] theirMsg = readPacket(in, TYPE_SPAKE2_MSG);
        byte[] secret;
        try {
            secret = spake.processMessage(theirMsg);
        } catch (IllegalArgumentException e) {
            throw new IOException("the phone's pairing message is malformed: " + e.getMessage());
        }
        PairingCipher cipher = new PairingCipher(secret);
        Arrays.fill(secret, (byte) 0);

        byte[] ours = new byte[PEER_INFO_SIZE];
        ours[0] = (byte) PEER_RSA_PUB_KEY;
        byte[] pub = key.adbPublicKey(keyName).getBytes(Charset.forName("US-ASCII"));
        if (pub.length >= PEER_INFO_SIZE - 1) throw new IllegalStateException("public key too long for peer info");
        System.arraycopy(pub, 0, ours, 1, pub.length);
        try {
            writePacket(out, TYPE_PEER_INFO, cipher.encrypt(ours));
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot seal the peer info", e);
        }
        byte[] sealed;
        try {
            sealed = readPacket(in, TYPE_PEER_INFO);
        } catch (EOFException e) {
            throw new Refused("the phone refused the pairing code (wrong code, or the dialog was closed)");
        }
        byte[] theirs;
        try {
            theirs = cipher.decrypt(sealed);
        } catch (GeneralSecurityException e) {
            throw new Refused("the phone's answer does not decrypt: the pairing code was wrong");
        }
        if (theirs.length != PEER_INFO_SIZE) throw new IOException("the phone's peer info has " + theirs.length + " bytes, not " + PEER_INFO_SIZE);
        int end = 1;
        while (end < theirs.length && theirs[end] != 0) end++;
        return new Paired(theirs[0] & 0xff, new String(theirs, 1, end - 1, Charset.forName("UTF-8")));
    }

    static void writePacket(OutputStream out, int type, byte[] payload) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(6 + payload.length);
        b.put((byte) 1).put((byte) type).putInt(payload.length).put(payload);
        out.write(b.array());
        out.flush();
    }

    static byte[] readPacket(DataInputStream in, int expectedType) throws IOException {
        int version = in.readUnsignedByte();
        int type = in.readUnsignedByte();
        int length = in.readInt();
        if (version != 1) throw new IOException("unsupported pairing packet version " + version);
        if (type != expectedType) throw new IOException("unexpected pairing packet type " + type + " (wanted " + expectedType + ")");
        if (length <= 0 || length > MAX_PAYLOAD) throw new IOException("pairing packet of " + length + " bytes");
        byte[] payload = new byte[length];
        in.readFully(payload);
        return payload;
    }
}
