package dev.voicegateway.core;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.Charset;

/**
 * {@link Storage} as files in one directory (the app's private files directory on the phone):
 * each write goes to a temporary file that is synced and then renamed over the old one.
 */
public final class FileStorage implements Storage {
    private static final Charset UTF8 = Charset.forName("UTF-8");
    private final File dir;

    public FileStorage(File dir) {
        this.dir = dir;
    }

    @Override
    public synchronized String read(String name) throws IOException {
        File file = file(name);
        InputStream in;
        try {
            in = new FileInputStream(file);
        } catch (FileNotFoundException e) {
            return null;
        }
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            int n;
            while ((n = in.read(buf)) > 0) out.write(buf, 0, n);
            return new String(out.toByteArray(), UTF8);
        } finally {
            in.close();
        }
    }

    @Override
    public synchronized void write(String name, String text) throws IOException {
        if (!dir.isDirectory() && !dir.mkdirs()) throw new IOException("cannot create " + dir);
        File target = file(name);
        File tmp = new File(dir, name + ".tmp");
        FileOutputStream out = new FileOutputStream(tmp);
        ownerOnly(tmp);
        try {
            out.write(text.getBytes(UTF8));
            out.getFD().sync();
        } finally {
            out.close();
        }
        if (!tmp.renameTo(target)) throw new IOException("cannot replace " + target);
    }

    @Override
    public synchronized void append(String name, String text, boolean sync) throws IOException {
        if (!dir.isDirectory() && !dir.mkdirs()) throw new IOException("cannot create " + dir);
        File target = file(name);
        boolean fresh = !target.exists();
        FileOutputStream out = new FileOutputStream(target, true);
        try {
            if (fresh) ownerOnly(target);
            out.write(text.getBytes(UTF8));
            if (sync) out.getFD().sync();
        } finally {
            out.close();
        }
    }

    /** The device token and the events are the app's alone, whatever the umask (0600). */
    private static void ownerOnly(File f) {
        f.setReadable(false, false);
        f.setReadable(true, true);
        f.setWritable(false, false);
        f.setWritable(true, true);
    }

    @Override
    public synchronized void delete(String name) throws IOException {
        File file = file(name);
        if (file.exists() && !file.delete()) throw new IOException("cannot delete " + file);
    }

    private File file(String name) {
        if (!name.matches("[a-z0-9._-]+")) throw new IllegalArgumentException("bad storage name " + name);
        return new File(dir, name);
    }
}
