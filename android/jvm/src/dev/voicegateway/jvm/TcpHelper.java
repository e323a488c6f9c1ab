package dev.voicegateway.jvm;

import dev.voicegateway.core.helper.HelperEndpoint;
import dev.voicegateway.core.helper.HelperLink;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * The helper's byte stream on the host: TCP on the loopback, where the phone has an
 * abstract-namespace LocalSocket. TCP cannot tell the peer's uid, so the endpoint gives every
 * connection the uid it was told the app has ({@code peerUid}), and the link reports none (-1).
 */
final class TcpHelper {
    private TcpHelper() {
    }

    /** The app's side: connects to 127.0.0.1:{@code port}. */
    static HelperLink link(final int port) {
        return new HelperLink() {
            @Override
            public Connection open() throws IOException {
                Socket s = new Socket();
                try {
                    s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
                } catch (IOException e) {
                    s.close();
                    throw e;
                }
                return new TcpConnection(s, -1);
            }
        };
    }

    /** The helper's side: listens on 127.0.0.1:{@code port} (0: any free port, kept for the next listen). */
    static class Endpoint implements HelperEndpoint {
        private final int peerUid;
        private volatile int port;
        private volatile ServerSocket server;

        Endpoint(int port, int peerUid) {
            this.port = port;
            this.peerUid = peerUid;
        }

        int port() {
            return port;
        }

        @Override
        public void listen() throws IOException {
            ServerSocket s = new ServerSocket();
            s.setReuseAddress(true);
            try {
                s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            } catch (IOException e) {
                s.close();
                throw e;
            }
            port = s.getLocalPort();
            server = s;
        }

        @Override
        public HelperLink.Connection accept() throws IOException {
            ServerSocket s = server;
            if (s == null) throw new IOException("not listening");
            return new TcpConnection(s.accept(), peerUid);
        }

        @Override
        public void close() {
            ServerSocket s = server;
            if (s == null) return;
            try {
                s.close();
            } catch (IOException e) {
                // closing anyway
            }
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

    static final class TcpConnection implements HelperLink.Connection {
        private final Socket socket;
        private final int peerUid;

        TcpConnection(Socket socket, int peerUid) throws IOException {
            this.socket = socket;
            this.peerUid = peerUid;
            socket.setTcpNoDelay(true);
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
            return null; // TCP cannot tell
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
