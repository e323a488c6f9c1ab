package dev.voicegateway.app.helper;

import android.net.LocalServerSocket;
import android.net.LocalSocket;
import android.net.LocalSocketAddress;
import dev.voicegateway.core.helper.HelperEndpoint;
import dev.voicegateway.core.helper.HelperLink;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * The helper's socket on the phone: one name in the abstract namespace (no file, no permission;
 * any process may connect to it or try to bind it), so both ends check the other's uid:
 * {@code HelperService} lets only the app's uid (and the shell's, to stop it) in, and
 * {@code HelperAudioPort} talks only to a helper running as the shell.
 */
public final class LocalSockets {
    public static final String NAME = "dev.voicegateway.app.audio-helper";

    private LocalSockets() {
    }

    /** The connecting side: the app, or a newly started helper asking the running one to hand over. */
    public static HelperLink link() {
        return new HelperLink() {
            @Override
            public Connection open() throws IOException {
                LocalSocket s = new LocalSocket();
                try {
                    s.connect(new LocalSocketAddress(NAME, LocalSocketAddress.Namespace.ABSTRACT));
                } catch (IOException e) {
                    s.close();
                    throw e;
                }
                return new Local(s);
            }
        };
    }

    /** The helper's listening side. */
    public static final class Endpoint implements HelperEndpoint {
        private volatile LocalServerSocket server;

        @Override
        public void listen() throws IOException {
            server = new LocalServerSocket(NAME);
        }

        @Override
        public HelperLink.Connection accept() throws IOException {
            LocalServerSocket s = server;
            if (s == null) throw new IOException("not listening");
            return new Local(s.accept());
        }

        @Override
        public void close() {
            LocalServerSocket s = server;
            if (s == null) return;
            try {
                s.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
    }

    private static final class Local implements HelperLink.Connection {
        private final LocalSocket socket;

        Local(LocalSocket socket) {
            this.socket = socket;
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
        public int peerUid() throws IOException {
            return socket.getPeerCredentials().getUid();
        }

        @Override
        public String peerProcess() throws IOException {
            // The shell reads other processes' command lines (as `ps -A` does); an app may not: null.
            return processName(socket.getPeerCredentials().getPid());
        }

        @Override
        public void setReadTimeout(int ms) throws IOException {
            socket.setSoTimeout(ms);
        }

        @Override
        public void close() {
            // Shut down first: a thread blocked reading returns at once on every Android version.
            try {
                socket.shutdownInput();
            } catch (IOException e) {
                // already down
            }
            try {
                socket.shutdownOutput();
            } catch (IOException e) {
                // already down
            }
            try {
                socket.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
    }

    /** The first word of /proc/<pid>/cmdline: an app's process name; null when it cannot be read. */
    static String processName(int pid) {
        java.io.FileInputStream in = null;
        try {
            in = new java.io.FileInputStream("/proc/" + pid + "/cmdline");
            byte[] buf = new byte[256];
            int n = in.read(buf);
            if (n <= 0) return null;
            int end = 0;
            while (end < n && buf[end] != 0) end++;
            return new String(buf, 0, end, "UTF-8");
        } catch (IOException e) {
            return null;
        } finally {
            if (in != null) {
                try {
                    in.close();
                } catch (IOException e) {
                    // read already
                }
            }
        }
    }
}
