package dev.voicegateway.core.ws;

import dev.voicegateway.core.TlsConfig;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.UnknownHostException;
import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSocket;

/**
 * A small RFC 6455 client over java.net and javax.net.ssl: ws:// and wss:// (with the hostname
 * checked after the TLS handshake), text and binary messages, fragmented messages from the server,
 * ping/pong and the close handshake. No extensions, no subprotocols.
 *
 * Writes go through one writer thread and a bounded queue: text beyond {@link Options#maxQueuedBytes}
 * fails the connection (the peer is not reading), binary beyond {@link Options#maxQueuedAudioBytes}
 * is dropped and counted (late audio is worth nothing). Listener calls come from the client's own
 * threads (mostly the reader), never at the same time, and {@link Listener#onClose} comes exactly
 * once, last.
 */
public final class WebSocketClient {
    public interface Listener {
        void onText(WebSocketClient ws, String text);

        void onBinary(WebSocketClient ws, byte[] data);

        void onPong(WebSocketClient ws);

        /** The connection is over: {@code error} is null after a close handshake, else why it broke (code 1006). */
        void onClose(WebSocketClient ws, int code, String reason, Exception error);
    }

    public static final class Options {
        public int connectTimeoutMs = 10000;
        public int maxMessageBytes = 1 << 20;
        public long maxQueuedBytes = 1 << 20;
        /** One second of 16 kHz s16le audio. */
        public long maxQueuedAudioBytes = 32000;
        public int closeTimeoutMs = 2000;
        /** How a host name becomes addresses (the system's resolver; a test names its own). */
        public Resolver resolver = SYSTEM_RESOLVER;
        /** Binds each socket to a network before it connects (the app's LAN binding); null binds none. */
        public SocketBinder binder;
    }

    /** Chooses the network of a socket before it connects (Android: Network.bindSocket). */
    public interface SocketBinder {
        void bind(Socket socket, InetAddress target) throws IOException;
    }

    /**
     * An address of the local network, where the gateway is reached through the Wi-Fi even when
     * that Wi-Fi has no internet: RFC 1918 (10/8, 172.16/12, 192.168/16), link-local (169.254/16,
     * fe80::/10) and IPv6 unique local (fc00::/7). Not the carrier's shared range (100.64/10), nor
     * loopback.
     */
    public static boolean isLanAddress(InetAddress a) {
        if (a.isSiteLocalAddress() || a.isLinkLocalAddress()) return true;
        byte[] b = a.getAddress();
        return b.length == 16 && (b[0] & 0xfe) == 0xfc;
    }

    /** Resolves a host name to every address it has, in the order to try them. */
    public interface Resolver {
        InetAddress[] resolve(String host) throws UnknownHostException;
    }

    public static final Resolver SYSTEM_RESOLVER = new Resolver() {
        @Override
        public InetAddress[] resolve(String host) throws UnknownHostException {
            return InetAddress.getAllByName(host);
        }
    };

    public static final int NORMAL = 1000;
    public static final int GOING_AWAY = 1001;
    public static final int ABNORMAL = 1006;

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final byte[] EMPTY = new byte[0];

    private final Socket socket;
    /** The TCP socket under {@link #socket} (the same object for ws://). */
    private final Socket transport;
    private final InputStream in;
    private final OutputStream out;
    private final Options options;
    private final LinkedBlockingDeque<byte[]> queue = new LinkedBlockingDeque<byte[]>();
    private final AtomicLong queuedBytes = new AtomicLong();
    private final AtomicLong droppedFrames = new AtomicLong();
    private final AtomicBoolean closeSent = new AtomicBoolean();
    private final AtomicBoolean finished = new AtomicBoolean();
    private final CountDownLatch closeReceived = new CountDownLatch(1);
    private volatile long lastReceivedNanos = System.nanoTime();
    private Listener listener;

    private WebSocketClient(Socket socket, Socket transport, InputStream in, OutputStream out, Options options) {
        this.socket = socket;
        this.transport = transport;
        this.in = in;
        this.out = out;
        this.options = options;
    }

    /**
     * Opens the TCP (and TLS) connection and performs the upgrade, blocking for at most about
     * {@link Options#connectTimeoutMs} per address the host name has, plus one for the upgrade. Nothing is read after the upgrade until {@link #start}.
     *
     * @throws HandshakeException when the server answers with a status other than 101
     */
    public static WebSocketClient connect(URI uri, Map<String, String> headers, TlsConfig tls, Options options) throws IOException {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(java.util.Locale.ROOT);
        boolean secure = scheme.equals("wss");
        if (!secure && !scheme.equals("ws")) throw new IllegalArgumentException("not a ws:// or wss:// address: " + uri);
        String host = uri.getHost();
        if (host == null) throw new IllegalArgumentException("no host in " + uri);
        int port = uri.getPort() != -1 ? uri.getPort() : secure ? 443 : 80;
        String bareHost = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;

        Socket plain = connectAny(options.resolver.resolve(bareHost), port, options.connectTimeoutMs, options.binder);
        Socket socket = plain;
        try {
            plain.setTcpNoDelay(true);
            plain.setSoTimeout(options.connectTimeoutMs);
            if (secure) {
                // Passing the host name makes the TLS layer send it as SNI.
                SSLSocket ssl = (SSLSocket) tls.socketFactory.createSocket(plain, bareHost, port, true);
                socket = ssl;
                ssl.startHandshake();
                if (!tls.hostnameVerifier.verify(bareHost, ssl.getSession())) {
                    throw new SSLPeerUnverifiedException("the certificate of the server does not name " + bareHost);
                }
            }
            InputStream in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
            OutputStream out = socket.getOutputStream();
            byte[] nonce = new byte[16];
            RANDOM.nextBytes(nonce);
            String key = dev.voicegateway.core.Base64.encode(nonce);
            out.write(Handshake.request(uri, key, headers).getBytes("ISO-8859-1"));
            out.flush();
            Handshake.check(Handshake.readResponse(in), key, in);
            // From here on the phone client owns liveness (pings and its own deadline).
            socket.setSoTimeout(0);
            return new WebSocketClient(socket, plain, in, out, options);
        } catch (IOException e) {
            closeQuietly(socket);
            throw e;
        } catch (RuntimeException e) {
            closeQuietly(socket);
            throw e;
        }
    }

    /**
     * Connects to the first of {@code addresses} that accepts, each given {@code timeoutMs}: a name
     * with an IPv6 address the network cannot reach, or a stale first record, must not make the
     * gateway unreachable while another address works. The last failure is thrown when none does.
     */
    static Socket connectAny(InetAddress[] addresses, int port, int timeoutMs, SocketBinder binder) throws IOException {
        IOException last = null;
        for (InetAddress address : addresses) {
            Socket s = new Socket();
            try {
                if (binder != null) binder.bind(s, address);
                s.connect(new InetSocketAddress(address, port), timeoutMs);
                return s;
            } catch (IOException e) {
                closeQuietly(s);
                if (last != null) e.addSuppressed(last);
                last = e;
            }
        }
        if (last == null) throw new UnknownHostException("no address");
        throw last;
    }

    /** Starts reading and writing; every later event goes to {@code listener}. */
    public void start(Listener listener) {
        this.listener = listener;
        Thread reader = new Thread(new Runnable() {
            @Override
            public void run() {
                readLoop();
            }
        }, "vg-ws-reader");
        Thread writer = new Thread(new Runnable() {
            @Override
            public void run() {
                writeLoop();
            }
        }, "vg-ws-writer");
        reader.setDaemon(true);
        writer.setDaemon(true);
        reader.start();
        writer.start();
    }

    /** Queues a text message; false when the connection is closing or the peer stopped reading (the connection is then failed). */
    public boolean sendText(String text) {
        byte[] payload = Utf8.encode(text);
        if (isClosing()) return false;
        if (queuedBytes.get() + payload.length > options.maxQueuedBytes) {
            fail(new IOException("the server does not read: " + queuedBytes.get() + " bytes are waiting to be sent"));
            return false;
        }
        enqueue(Frames.encode(Frames.TEXT, payload, 0, payload.length, mask()), false);
        return true;
    }

    /** Queues a binary message, or drops it (false) when more than a second of audio is waiting. */
    public boolean sendBinary(byte[] data) {
        if (isClosing()) return false;
        if (queuedBytes.get() + data.length > options.maxQueuedAudioBytes) {
            droppedFrames.incrementAndGet();
            return false;
        }
        enqueue(Frames.encode(Frames.BINARY, data, 0, data.length, mask()), false);
        return true;
    }

    public void ping() {
        if (!isClosing()) enqueue(Frames.encode(Frames.PING, EMPTY, 0, 0, mask()), true);
    }

    /**
     * Starts the close handshake after the messages already queued; the TCP connection is dropped
     * if the server does not answer within {@link Options#closeTimeoutMs}.
     */
    public void close(int code, String reason) {
        if (!closeSent.compareAndSet(false, true)) return;
        byte[] payload = Frames.closePayload(code, reason);
        enqueue(Frames.encode(Frames.CLOSE, payload, 0, payload.length, mask()), false);
    }

    /** Drops the TCP connection at once, as a lost network would. */
    public void abort() {
        fail(new IOException("connection aborted by the client"));
    }

    /** Monotonic time (System.nanoTime) of the last frame received, of any kind. */
    public long lastReceivedNanos() {
        return lastReceivedNanos;
    }

    public long queuedBytes() {
        return queuedBytes.get();
    }

    /** Binary messages dropped because too much was waiting to be sent. */
    public long droppedFrames() {
        return droppedFrames.get();
    }

    private boolean isClosing() {
        return closeSent.get() || finished.get();
    }

    private static byte[] mask() {
        byte[] m = new byte[4];
        RANDOM.nextBytes(m);
        return m;
    }

    private void enqueue(byte[] frame, boolean first) {
        queuedBytes.addAndGet(frame.length);
        if (first) queue.addFirst(frame);
        else queue.addLast(frame);
    }

    private void writeLoop() {
        try {
            while (true) {
                byte[] frame = queue.poll(1, TimeUnit.SECONDS);
                if (frame == null) {
                    if (!finished.get()) continue;
                    closeQuietly(socket);
                    return;
                }
                queuedBytes.addAndGet(-frame.length);
                out.write(frame);
                if (queue.isEmpty()) out.flush();
                if ((frame[0] & 0x0F) == Frames.CLOSE) {
                    out.flush();
                    // The server answers our close (or this was the answer to its close): wait, then hang up.
                    closeReceived.await(options.closeTimeoutMs, TimeUnit.MILLISECONDS);
                    closeQuietly(socket);
                    return;
                }
            }
        } catch (IOException e) {
            fail(e);
        } catch (InterruptedException e) {
            fail(new IOException("writer interrupted"));
        }
    }

    private void readLoop() {
        Frames.Reader reader = new Frames.Reader(in, options.maxMessageBytes);
        ByteArrayOutputStream partial = null;
        int partialOpcode = 0;
        try {
            while (true) {
                Frames.Frame frame = reader.next();
                lastReceivedNanos = System.nanoTime();
                switch (frame.opcode) {
                    case Frames.TEXT:
                    case Frames.BINARY:
                        if (partial != null) throw new WebSocketException(WebSocketException.PROTOCOL_ERROR, "a new message began inside a fragmented one");
                        if (frame.fin) {
                            deliver(frame.opcode, frame.payload);
                        } else {
                            partial = new ByteArrayOutputStream();
                            partial.write(frame.payload, 0, frame.payload.length);
                            partialOpcode = frame.opcode;
                        }
                        break;
                    case Frames.CONTINUATION:
                        if (partial == null) throw new WebSocketException(WebSocketException.PROTOCOL_ERROR, "continuation without a message");
                        if (partial.size() + frame.payload.length > options.maxMessageBytes) {
                            throw new WebSocketException(WebSocketException.TOO_BIG, "message over " + options.maxMessageBytes + " bytes");
                        }
                        partial.write(frame.payload, 0, frame.payload.length);
                        if (frame.fin) {
                            byte[] whole = partial.toByteArray();
                            partial = null;
                            deliver(partialOpcode, whole);
                        }
                        break;
                    case Frames.PING:
                        if (!isClosing()) enqueue(Frames.encode(Frames.PONG, frame.payload, 0, frame.payload.length, mask()), true);
                        break;
                    case Frames.PONG:
                        listener.onPong(this);
                        break;
                    default: // CLOSE
                        onCloseFrame(frame.payload);
                        return;
                }
            }
        } catch (WebSocketException e) {
            close(e.closeCode, e.getMessage());
            closeReceived.countDown();
            finish(e.closeCode, e.getMessage(), e);
        } catch (IOException e) {
            fail(e);
        }
    }

    private void deliver(int opcode, byte[] payload) throws WebSocketException {
        if (opcode == Frames.TEXT) listener.onText(this, Utf8.decode(payload));
        else listener.onBinary(this, payload);
    }

    private void onCloseFrame(byte[] payload) throws WebSocketException {
        int code = 1005;
        String reason = "";
        if (payload.length == 1) throw new WebSocketException(WebSocketException.PROTOCOL_ERROR, "close frame of one byte");
        if (payload.length >= 2) {
            code = ((payload[0] & 0xff) << 8) | (payload[1] & 0xff);
            byte[] text = new byte[payload.length - 2];
            System.arraycopy(payload, 2, text, 0, text.length);
            reason = Utf8.decode(text);
        }
        closeReceived.countDown();
        // Answer the server's close with the same code, unless we started the handshake; what was
        // still waiting to be sent is pointless now.
        if (closeSent.compareAndSet(false, true)) {
            queue.clear();
            queuedBytes.set(0);
            byte[] echo = Frames.closePayload(code == 1005 ? NORMAL : code, "");
            enqueue(Frames.encode(Frames.CLOSE, echo, 0, echo.length, mask()), true);
        }
        finish(code, reason, null);
    }

    private void fail(IOException error) {
        // Closing the TCP socket first: closing a TLS socket waits for a lock that a writer blocked
        // on a dead connection holds; with the transport gone that writer fails and lets go.
        closeQuietly(transport);
        if (socket != transport) {
            Thread closer = new Thread(new Runnable() {
                @Override
                public void run() {
                    closeQuietly(socket);
                }
            }, "vg-ws-close");
            closer.setDaemon(true);
            closer.start();
        }
        closeReceived.countDown();
        finish(ABNORMAL, error.getMessage() == null ? error.toString() : error.getMessage(), error);
    }

    private void finish(int code, String reason, Exception error) {
        if (!finished.compareAndSet(false, true)) return;
        Listener l = listener;
        if (l != null) l.onClose(this, code, reason, error);
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing a broken socket: nothing left to do
        }
    }
}
