package dev.voicegateway.app.helper;

import android.os.ParcelFileDescriptor;
import android.system.ErrnoException;
import android.system.Os;
import android.system.OsConstants;
import android.system.StructPollfd;
import dev.voicegateway.core.helper.HelperLink;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.SocketTimeoutException;

/**
 * One end of the socketpair the helper makes for each OPEN (ParcelFileDescriptor.createSocketPair,
 * API 19). The app may only read, write and shut down a socket of the shell's that it was handed
 * (SELinux: `allow appdomain appdomain:unix_stream_socket { getopt getattr read write shutdown }`,
 * ../shared/android/sepolicy-facts.md): no setsockopt, so a read timeout is a poll(2) before the
 * read, not SO_RCVTIMEO, and nothing here asks the kernel how much is waiting (FIONREAD is an ioctl).
 */
final class FdConnection implements HelperLink.Connection {
    private final ParcelFileDescriptor pfd;
    private final FileDescriptor fd;
    private final int peerUid;
    private final String peerProcess;
    private final InputStream in;
    private final OutputStream out;
    private volatile int timeoutMs;

    FdConnection(ParcelFileDescriptor pfd, int peerUid, String peerProcess) {
        this.pfd = pfd;
        this.fd = pfd.getFileDescriptor();
        this.peerUid = peerUid;
        this.peerProcess = peerProcess;
        final FileInputStream raw = new FileInputStream(fd);
        this.in = new InputStream() {
            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                int n = read(one, 0, 1);
                return n < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                waitReadable();
                return raw.read(b, off, len);
            }
        };
        this.out = new FileOutputStream(fd);
    }

    private void waitReadable() throws IOException {
        int ms = timeoutMs;
        if (ms <= 0) return;
        StructPollfd p = new StructPollfd();
        p.fd = fd;
        p.events = (short) OsConstants.POLLIN;
        long end = System.nanoTime() + ms * 1000000L;
        while (true) {
            int left = (int) Math.max(0, (end - System.nanoTime()) / 1000000L);
            try {
                if (Os.poll(new StructPollfd[] {p}, left) > 0) return;
                throw new SocketTimeoutException("nothing to read within " + ms + " ms");
            } catch (ErrnoException e) {
                if (e.errno != OsConstants.EINTR) throw new IOException("poll failed: " + e.getMessage());
            }
        }
    }

    @Override
    public InputStream input() {
        return in;
    }

    @Override
    public OutputStream output() {
        return out;
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
    public void setReadTimeout(int ms) {
        timeoutMs = ms;
    }

    @Override
    public void close() {
        // Shut down first: a thread blocked reading this end returns at once (close(2) alone would not wake it).
        try {
            Os.shutdown(fd, OsConstants.SHUT_RDWR);
        } catch (ErrnoException e) {
            // already down
        }
        try {
            pfd.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}
