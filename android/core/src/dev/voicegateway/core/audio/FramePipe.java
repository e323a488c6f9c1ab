package dev.voicegateway.core.audio;

import dev.voicegateway.core.Clock;
import dev.voicegateway.core.Protocol;
import dev.voicegateway.core.ws.WebSocketClient;

/**
 * The call's frames between the audio port and the phone socket (phone-protocol.md section 4):
 * captured frames go to the gateway as they come, in real time; the gateway's paced frames go
 * through a {@link JitterBuffer} and are played one per 20 ms, silence when it is dry. It runs only
 * while a call is active, the socket is welcomed and the port is running; otherwise the gateway's
 * frames are dropped, not queued. Control methods run on the core's clock; captured frames may
 * arrive on any thread.
 */
public final class FramePipe {
    /** After a stall longer than this the play-out clock starts over instead of catching up. */
    private static final long MAX_LATE_MS = 100;
    private static final byte[] SILENCE = new byte[Protocol.FRAME_BYTES];

    private final AudioPort port;
    private final Clock clock;
    private final JitterBuffer jitter;
    private volatile WebSocketClient target;
    private Clock.Timer ticker;
    private long startedAt;
    private long ticks;
    private volatile long sent;
    private volatile long dropped;
    private long received;
    private long played;
    private long malformed;

    /** @param jitterTargetFrames frames buffered before play-out starts; {@code jitterMaxFrames} its bound */
    public FramePipe(AudioPort port, Clock clock, int jitterTargetFrames, int jitterMaxFrames) {
        this.port = port;
        this.clock = clock;
        this.jitter = new JitterBuffer(jitterTargetFrames, jitterMaxFrames);
    }

    /** Starts or stops the pipe: it runs exactly while {@code socket} is non-null and {@code callActive}. */
    public void update(WebSocketClient socket, boolean callActive) {
        boolean run = socket != null && callActive && Protocol.AUDIO_RUNNING.equals(port.state());
        if (run && target == null) {
            target = socket;
            jitter.clear();
            port.startCall();
            startedAt = clock.elapsed();
            ticks = 0;
            schedule();
        } else if (!run && target != null) {
            target = null;
            if (ticker != null) ticker.cancel();
            ticker = null;
            jitter.clear();
            port.stopCall();
        } else if (run && target != socket) {
            target = socket;
        }
    }

    public boolean isStreaming() {
        return target != null;
    }

    /** A frame of the remote party from the port (any thread). */
    public void onCaptured(byte[] frame) {
        WebSocketClient ws = target;
        if (ws == null || frame.length != Protocol.FRAME_BYTES) return;
        if (ws.sendBinary(frame)) sent++;
        else dropped++;
    }

    /** A binary message of the gateway (the core's clock). */
    public void onGatewayFrame(byte[] frame) {
        if (target == null) return;
        if (frame.length != Protocol.FRAME_BYTES) {
            malformed++;
            return;
        }
        received++;
        if (port.canInject()) jitter.offer(frame);
    }

    private void schedule() {
        long due = startedAt + (ticks + 1) * Protocol.FRAME_MS;
        ticker = clock.schedule(new Runnable() {
            @Override
            public void run() {
                tick();
            }
        }, Math.max(0, due - clock.elapsed()));
    }

    private void tick() {
        if (target == null) return;
        ticks++;
        if (port.canInject()) {
            byte[] frame = jitter.poll();
            port.play(frame != null ? frame : SILENCE);
            if (frame != null) played++;
        }
        long late = clock.elapsed() - (startedAt + ticks * Protocol.FRAME_MS);
        if (late > MAX_LATE_MS) {
            startedAt = clock.elapsed();
            ticks = 0;
        }
        schedule();
    }

    public long framesSent() {
        return sent;
    }

    /** Captured frames not sent because a second of audio was already waiting on the socket. */
    public long framesDropped() {
        return dropped;
    }

    public long framesReceived() {
        return received;
    }

    public long framesPlayed() {
        return played;
    }

    public long framesMalformed() {
        return malformed;
    }

    public long underruns() {
        return jitter.underruns();
    }
}
