package dev.voicegateway.jvm;

import dev.voicegateway.core.helper.HelperLink;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * The socketpair of the helper channel on the host. Java 8 has no socketpair(2), so a pair is two
 * loopback sockets connected to each other through a listener that takes exactly that one
 * connection (checked by port) and closes. Each end reports the uid and process name of the other
 * side as the phone's helper learns them from Binder.getCallingUid/Pid when it makes the pair.
 */
final class JvmSockets {
    private JvmSockets() {
    }

    /** Two connected sockets: [0] and [1], each the other's peer. */
    static Socket[] pair() throws IOException {
        ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Socket a = new Socket();
        try {
            a.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.getLocalPort()), 2000);
            listener.setSoTimeout(2000);
            Socket b = listener.accept();
            // Another process of the machine could have connected first: only our own socket is the pair.
            if (b.getPort() != a.getLocalPort()) {
                b.close();
                throw new IOException("the loopback pair was taken by another connection");
            }
            a.setTcpNoDelay(true);
            b.setTcpNoDelay(true);
            return new Socket[] {a, b};
        } catch (IOException e) {
            a.close();
            throw e;
        } finally {
            listener.close();
        }
    }

    /** A connection that hands every call to another one; tests override what they change. */
    static class Forwarding implements HelperLink.Connection {
        final HelperLink.Connection inner;

        Forwarding(HelperLink.Connection inner) {
            this.inner = inner;
        }

        @Override
        public InputStream input() throws IOException {
            return inner.input();
        }

        @Override
        public OutputStream output() throws IOException {
            return inner.output();
        }

        @Override
        public int peerUid() throws IOException {
            return inner.peerUid();
        }

        @Override
        public String peerProcess() throws IOException {
            return inner.peerProcess();
        }

        @Override
        public void setReadTimeout(int ms) throws IOException {
            inner.setReadTimeout(ms);
        }

        @Override
        public void close() {
            inner.close();
        }
    }

    /** One end of a pair, knowing who is at the other. */
    static final class End implements HelperLink.Connection {
        private final Socket socket;
        private final int peerUid;
        private final String peerProcess;

        End(Socket socket, int peerUid, String peerProcess) {
            this.socket = socket;
            this.peerUid = peerUid;
            this.peerProcess = peerProcess;
        }

        @Override
        public InputStream input() throws IOException {
            return socket.getInputStream();
        }

        @Override
        public OutputStream output() throws IOException {
            return socket.getOutputStream();
        }

        @Override
        public int peerUid() {
            return peerUid;
        }

        @Override
        public String peerProcess() {
            return peerProcess;
        }

        @Override
        public void setReadTimeout(int ms) throws IOException {
            socket.setSoTimeout(ms);
        }

        @Override
        public void close() {
            try {
                socket.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
    }
}
