package dev.voicegateway.core.adb;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.Charset;

/**
 * A minimal ADB client of the transport adbd speaks on Wireless debugging (AOSP
 * packages/modules/adb/protocol.txt and transport.cpp): CNXN; adbd answers STLS, we answer STLS and
 * both switch to TLS 1.3 on the same socket, where adbd admits our certificate only if its public key
 * was paired (adbd_tls_verify_cert in daemon/auth.cpp); adbd's CNXN; then one stream: OPEN
 * "shell:COMMAND", the output in WRTE packets each acknowledged by OKAY, until CLSE.
 *
 * <p>Each packet: a 24-byte header of six little-endian words (command, arg0, arg1, payload length,
 * payload byte sum, command XOR 0xffffffff), then the payload.
 */
public final class AdbConnection {
    static final int A_CNXN = 0x4e584e43;
    static final int A_STLS = 0x534c5453;
    static final int A_AUTH = 0x48545541;
    static final int A_OPEN = 0x4e45504f;
    static final int A_OKAY = 0x59414b4f;
    static final int A_CLSE = 0x45534c43;
    static final int A_WRTE = 0x45545257;
    static final int VERSION = 0x01000001;
    static final int STLS_VERSION = 0x01000000;
    static final int MAX_PAYLOAD = 256 * 1024;
    private static final Charset UTF8 = Charset.forName("UTF-8");

    /** The phone refused our key: it was never paired, or the pairing was revoked in the settings. */
    public static final class KeyRefused extends IOException {
        public KeyRefused(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** What a shell command printed (stdout and stderr mixed, as adb's plain "shell:" service gives them). */
    public static final class ShellResult {
        public final String output;

        ShellResult(String output) {
            this.output = output;
        }
    }

    static final class Packet {
        final int command;
        final int arg0;
        final int arg1;
        final byte[] payload;

        Packet(int command, int arg0, int arg1, byte[] payload) {
            this.command = command;
            this.arg0 = arg0;
            this.arg1 = arg1;
            this.payload = payload;
        }
    }

    private AdbConnection() {}

    /** Connects, runs {@code command} with the shell's rights, returns its output, closes. */
    public static ShellResult shell(AdbTls tls, AdbKey key, String host, int port, String command, int timeoutMillis) throws IOException {
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress(host, port), timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            OutputStream plainOut = socket.getOutputStream();
            DataInputStream plainIn = new DataInputStream(socket.getInputStream());
            write(plainOut, A_CNXN, VERSION, MAX_PAYLOAD, "host::\0".getBytes(UTF8));
            Packet first = read(plainIn);
            if (first.command == A_AUTH) {
                throw new IOException("this adbd asks for the old USB-style key authentication, not Wireless debugging's TLS");
            }
            if (first.command == A_CNXN) {
                // A daemon without TLS (not what Wireless debugging runs): the stream is the same.
                return run(plainIn, plainOut, command);
            }
            if (first.command != A_STLS) throw new IOException("unexpected first packet " + name(first.command));
            write(plainOut, A_STLS, STLS_VERSION, 0, new byte[0]);
            AdbTls.Session session = tls.handshake(socket, key);
            try {
                DataInputStream in = new DataInputStream(session.input());
                OutputStream out = session.output();
                Packet cnxn;
                try {
                    cnxn = read(in);
                } catch (IOException e) {
                    // TLS 1.3: the client's handshake is over before adbd checks its certificate, so an
                    // unknown key shows here, as adbd's alert or its closing the connection.
                    throw new KeyRefused("the phone refused this ADB key: pair again (Wireless debugging > Pair device with pairing code)", e);
                }
                if (cnxn.command != A_CNXN) throw new IOException("expected CNXN after TLS, got " + name(cnxn.command));
                return run(in, out, command);
            } finally {
                session.close();
            }
        } finally {
            socket.close();
        }
    }

    private static ShellResult run(DataInputStream in, OutputStream out, String command) throws IOException {
        final int localId = 1;
        write(out, A_OPEN, localId, 0, ("shell:" + command + "\0").getBytes(UTF8));
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        int remoteId = 0;
        while (true) {
            Packet p;
            try {
                p = read(in);
            } catch (EOFException e) {
                throw new IOException("the phone closed the connection before the command ended", e);
            }
            if (p.command == A_OKAY) {
                remoteId = p.arg0;
            } else if (p.command == A_WRTE) {
                remoteId = p.arg0;
                output.write(p.payload, 0, p.payload.length);
                write(out, A_OKAY, localId, remoteId, new byte[0]);
            } else if (p.command == A_CLSE) {
                if (remoteId == 0) throw new IOException("the phone refused to open shell:" + command);
                write(out, A_CLSE, localId, p.arg0, new byte[0]);
                return new ShellResult(new String(output.toByteArray(), UTF8));
            }
            // Anything else (another CNXN, a packet for another stream) is not ours: ignored.
        }
    }

    static void write(OutputStream out, int command, int arg0, int arg1, byte[] payload) throws IOException {
        int sum = 0;
        for (byte b : payload) sum += b & 0xff;
        ByteBuffer b = ByteBuffer.allocate(24 + payload.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(command).putInt(arg0).putInt(arg1).putInt(payload.length).putInt(sum).putInt(~command).put(payload);
        out.write(b.array());
        out.flush();
    }

    static Packet read(DataInputStream in) throws IOException {
        byte[] header = new byte[24];
        in.readFully(header);
        ByteBuffer b = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
        int command = b.getInt();
        int arg0 = b.getInt();
        int arg1 = b.getInt();
        int length = b.getInt();
        b.getInt(); // the byte sum: adbd leaves it 0 from version 0x01000001 on and checks nothing
        int magic = b.getInt();
        if (magic != ~command) throw new IOException("bad ADB packet header (magic)");
        if (length < 0 || length > MAX_PAYLOAD) throw new IOException("ADB packet of " + length + " bytes");
        byte[] payload = new byte[length];
        in.readFully(payload);
        return new Packet(command, arg0, arg1, payload);
    }

    static String name(int command) {
        byte[] b = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(command).array();
        return new String(b, Charset.forName("US-ASCII"));
    }

}
