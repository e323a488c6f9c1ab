package dev.voicegateway.jvm;

import dev.voicegateway.core.Protocol;
import dev.voicegateway.core.audio.AudioPort;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The host's stand-in for the audio helper: the remote party "says" a tone, a WAV file or silence
 * (the same samples as the Node simulator's sources), and what the gateway sends into the call is
 * recorded (up to a minute). Frames may carry the Node simulator's stamp (VGS1, sequence, send time).
 */
public final class ToneAudioPort implements AudioPort {
    /** Makes the remote party's audio for one call. */
    public interface Source {
        void fill(byte[] frame);
    }

    public interface SourceFactory {
        Source newSource();
    }

    private static final int STAMP_MAGIC = 0x31534756; // "VGS1" read as uint32 LE

    private final ScheduledExecutorService executor;
    private final SourceFactory sources;
    private final boolean stamp;
    private volatile Listener listener;
    private volatile String state = Protocol.AUDIO_RUNNING;
    private volatile boolean canInject = true;
    private ScheduledFuture<?> capture;
    private int sequence;
    private final PlayedAudio played = new PlayedAudio();

    public ToneAudioPort(ScheduledExecutorService executor, SourceFactory sources, boolean stamp) {
        this.executor = executor;
        this.sources = sources;
        this.stamp = stamp;
    }

    public static SourceFactory tone(final double frequency, final double amplitude) {
        return new SourceFactory() {
            @Override
            public Source newSource() {
                final double step = 2 * Math.PI * frequency / 16000;
                final double peak = amplitude * 32767;
                return new Source() {
                    private double phase;

                    @Override
                    public void fill(byte[] frame) {
                        for (int i = 0; i + 1 < frame.length; i += 2) {
                            // StrictMath and round-half-up: the same samples as the Node simulator's tone.
                            long s = Math.round(peak * StrictMath.sin(phase));
                            frame[i] = (byte) s;
                            frame[i + 1] = (byte) (s >> 8);
                            phase += step;
                        }
                        phase %= 2 * Math.PI;
                    }
                };
            }
        };
    }

    public static SourceFactory loop(final byte[] pcm) {
        return new SourceFactory() {
            @Override
            public Source newSource() {
                return new Source() {
                    private int pos;

                    @Override
                    public void fill(byte[] frame) {
                        int written = 0;
                        while (written < frame.length) {
                            int n = Math.min(frame.length - written, pcm.length - pos);
                            System.arraycopy(pcm, pos, frame, written, n);
                            written += n;
                            pos = (pos + n) % pcm.length;
                        }
                    }
                };
            }
        };
    }

    public static SourceFactory silence() {
        return new SourceFactory() {
            @Override
            public Source newSource() {
                return new Source() {
                    @Override
                    public void fill(byte[] frame) {
                        java.util.Arrays.fill(frame, (byte) 0);
                    }
                };
            }
        };
    }

    /** Changes what health.audio says (a helper that dies, or was never started). */
    public void setState(String newState, boolean inject) {
        state = newState;
        canInject = inject;
        Listener l = listener;
        if (l != null) l.onStateChanged();
    }

    @Override
    public void setListener(Listener listener) {
        this.listener = listener;
    }

    @Override
    public String state() {
        return state;
    }

    @Override
    public boolean canInject() {
        return canInject;
    }

    @Override
    public synchronized void startCall() {
        if (capture != null) return;
        final Source source = sources.newSource();
        capture = executor.scheduleAtFixedRate(new Runnable() {
            @Override
            public void run() {
                byte[] frame = new byte[Protocol.FRAME_BYTES];
                source.fill(frame);
                if (stamp) writeStamp(frame, sequence++);
                Listener l = listener;
                if (l != null) l.onCapturedFrame(frame);
            }
        }, Protocol.FRAME_MS, Protocol.FRAME_MS, TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void stopCall() {
        if (capture != null) capture.cancel(false);
        capture = null;
    }

    @Override
    public void play(byte[] frame) {
        played.record(frame);
    }

    /** What was played into calls, silence included, up to a minute. */
    PlayedAudio played() {
        return played;
    }

    private static final long EPOCH_MS = System.currentTimeMillis();
    private static final long EPOCH_NANOS = System.nanoTime();

    /** The Node simulator's stamp (VGS1, sequence, send time) in the first 16 bytes. */
    static void writeStamp(byte[] frame, int seq) {
        ByteBuffer b = ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0, STAMP_MAGIC);
        b.putInt(4, seq);
        b.putDouble(8, EPOCH_MS + (System.nanoTime() - EPOCH_NANOS) / 1e6);
    }
}
