package dev.voicegateway.app.helper;

import java.io.FileInputStream;
import java.io.IOException;

/** A process's name from /proc/<pid>/cmdline, which the shell may read for any process (as `ps -A` does). */
final class ProcessNames {
    private ProcessNames() {
    }

    /** The first word of /proc/<pid>/cmdline: an app's process name; null when it cannot be read. */
    static String of(int pid) {
        FileInputStream in = null;
        try {
            in = new FileInputStream("/proc/" + pid + "/cmdline");
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
