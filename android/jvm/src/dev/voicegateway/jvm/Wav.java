package dev.voicegateway.jvm;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.util.Arrays;

/** Reads a RIFF/WAVE file and accepts only what the phone sends: 16 kHz mono 16-bit PCM (as the Node simulator does). */
final class Wav {
    private Wav() {
    }

    static byte[] read(File file) throws IOException {
        byte[] buf = Files.readAllBytes(file.toPath());
        ByteBuffer b = ByteBuffer.wrap(buf).order(ByteOrder.LITTLE_ENDIAN);
        if (buf.length < 12 || !new String(buf, 0, 4, "US-ASCII").equals("RIFF") || !new String(buf, 8, 4, "US-ASCII").equals("WAVE")) {
            throw new IOException(file + ": not a RIFF/WAVE file");
        }
        int format = -1, channels = 0, rate = 0, bits = 0;
        byte[] data = null;
        int offset = 12;
        while (offset + 8 <= buf.length) {
            String id = new String(buf, offset, 4, "US-ASCII");
            int size = b.getInt(offset + 4);
            int start = offset + 8;
            int end = (int) Math.min((long) start + (size & 0xffffffffL), buf.length);
            if (id.equals("fmt ") && end - start >= 16) {
                format = b.getShort(start) & 0xffff;
                if (format == 0xfffe && end - start >= 26) format = b.getShort(start + 24) & 0xffff;
                channels = b.getShort(start + 2);
                rate = b.getInt(start + 4);
                bits = b.getShort(start + 14);
            } else if (id.equals("data")) {
                data = Arrays.copyOfRange(buf, start, end - ((end - start) % 2));
            }
            offset = start + size + (size % 2);
            if (size < 0) break;
        }
        if (format != 1 || channels != 1 || rate != 16000 || bits != 16) {
            throw new IOException(file + ": must be 16 kHz mono 16-bit PCM (got format " + format + ", " + channels + " channel(s), " + rate + " Hz, " + bits + " bits)");
        }
        if (data == null || data.length == 0) throw new IOException(file + ": no audio data");
        return data;
    }
}
