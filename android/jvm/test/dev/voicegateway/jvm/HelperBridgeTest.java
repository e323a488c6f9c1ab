package dev.voicegateway.jvm;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import dev.voicegateway.core.Log;
import dev.voicegateway.core.MemoryStorage;
import dev.voicegateway.core.Protocol;
import dev.voicegateway.core.ThreadClock;
import dev.voicegateway.core.audio.AudioCapabilities;
import dev.voicegateway.core.audio.AudioPort;
import dev.voicegateway.core.helper.HelperAnnouncer;
import dev.voicegateway.core.helper.HelperAudioPort;
import dev.voicegateway.core.helper.HelperChannel;
import dev.voicegateway.core.helper.HelperCodec;
import dev.voicegateway.core.helper.HelperDirectory;
import dev.voicegateway.core.helper.HelperLink;
import dev.voicegateway.core.helper.HelperMessage;
import dev.voicegateway.core.helper.HelperService;
import dev.voicegateway.core.helper.PeerPolicy;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.json.JSONObject;
import org.junit.After;
import org.junit.Test;

/**
 * The app's side of the audio helper (HelperAudioPort) against the helper's own service
 * (HelperService), meeting through the helper channel's real rendezvous (HelperAnnouncer,
 * HelperDirectory, AnnouncedEndpoint) over the host's stand-in for Binder (JvmChannel), with the
 * framing over a socketpair and the fake helper's tone and recorder as the call: handshake,
 * capabilities, capture and injection per call, listen-only, death and hangs noticed, replacement of
 * a running helper, the app's process restarting, the app removed, and the uid and version checks.
 */
public class HelperBridgeTest {
    /** Writers deep enough that a busy machine's stall drops none of the frames compared bit for bit. */
    private static final int AUDIO_WAITING = 50;

    private final ScheduledExecutorService executor = Executors.newScheduledThreadPool(2);
    private final List<FakeHelper> helpers = new ArrayList<FakeHelper>();
    private final List<HelperAudioPort> ports = new ArrayList<HelperAudioPort>();
    private final MemoryStorage storage = new MemoryStorage();
    private final JvmChannel channel = new JvmChannel();

    @After
    public void tearDown() {
        for (HelperAudioPort p : ports) p.close();
        for (FakeHelper h : helpers) h.kill();
        executor.shutdownNow();
    }

    private FakeHelper helper(boolean listenOnly) throws IOException {
        FakeHelper h = new FakeHelper(channel, new FakeHelper.Engine(executor, ToneAudioPort.tone(440, 0.3), true, listenOnly), Log.NONE, AUDIO_WAITING);
        helpers.add(h);
        h.start();
        return h;
    }

    private static HelperAudioPort.Config fast() {
        HelperAudioPort.Config c = new HelperAudioPort.Config();
        // Short, but not so short that a busy machine's pause passes for a dead helper.
        c.retryMs = 50;
        c.pingIntervalMs = 200;
        c.pingTimeoutMs = 1000;
        c.helloTimeoutMs = 2000;
        c.audioWaitingFrames = AUDIO_WAITING;
        return c;
    }

    /** The port and what its listener heard. */
    private static final class Heard implements AudioPort.Listener {
        final List<byte[]> frames = new ArrayList<byte[]>();
        int changes;

        @Override
        public synchronized void onCapturedFrame(byte[] frame) {
            frames.add(frame);
        }

        @Override
        public synchronized void onStateChanged() {
            changes++;
        }

        synchronized int frameCount() {
            return frames.size();
        }
    }

    /** The app's port, as the app's process makes it: on its directory's link, connecting at each announcement. */
    private HelperAudioPort port(HelperDirectory directory, Heard heard) {
        final HelperAudioPort p = port(directory.link(), heard);
        directory.setOnAnnounced(new Runnable() {
            @Override
            public void run() {
                p.retryNow();
            }
        });
        return p;
    }

    private HelperAudioPort port(HelperLink link, Heard heard) {
        HelperAudioPort p = new HelperAudioPort(link, storage, new ThreadClock("vg-helper-test", Log.NONE), Log.NONE, fast());
        p.setListener(heard);
        ports.add(p);
        p.start();
        return p;
    }

    /** Waits (up to twenty seconds, for a busy machine) until {@code condition} holds, checking every 10 ms. */
    private static void await(String what, Callable<Boolean> condition) throws Exception {
        long end = System.nanoTime() + 20000000000L;
        while (!condition.call()) {
            if (System.nanoTime() > end) throw new AssertionError("not within 20 s: " + what);
            Thread.sleep(10);
        }
    }

    private static Callable<Boolean> state(final HelperAudioPort p, final String expected) {
        return new Callable<Boolean>() {
            @Override
            public Boolean call() {
                return p.state().equals(expected);
            }
        };
    }

    @Test
    public void needsSettingUpUntilAHelperAnswersThenRunsWithItsCapabilities() throws Exception {
        FakeHelper h = helper(false);
        h.kill();
        Heard heard = new Heard();
        HelperAudioPort p = port(channel.directory(), heard);
        assertEquals("never seen a helper", Protocol.AUDIO_PAIRING_REQUIRED, p.state());
        assertEquals(null, p.capabilities());

        h.start();
        await("running", state(p, Protocol.AUDIO_RUNNING));
        assertEquals(new AudioCapabilities(true, true, AudioCapabilities.SIMULATED, 16000), p.capabilities());
        assertTrue(p.canInject());
        assertTrue("the state change was announced", heard.changes > 0);
        JSONObject remembered = new JSONObject(storage.files.get("audio-helper.json"));
        assertEquals("simulated", remembered.getJSONObject("capabilities").getString("method"));
    }

    @Test
    public void aCallStartsCaptureAndInjectionAndFramesFlowBothWaysUntilItEnds() throws Exception {
        final FakeHelper h = helper(false);
        final Heard heard = new Heard();
        final HelperAudioPort p = port(channel.directory(), heard);
        await("running", state(p, Protocol.AUDIO_RUNNING));

        p.startCall();
        await("capturing and injecting", new Callable<Boolean>() {
            @Override
            public Boolean call() {
                return heard.frameCount() >= 10 && p.injecting();
            }
        });
        List<byte[]> frames;
        synchronized (heard) {
            frames = new ArrayList<byte[]>(heard.frames);
        }
        byte[][] tone = new byte[frames.size()][Protocol.FRAME_BYTES];
        ToneAudioPort.Source source = ToneAudioPort.tone(440, 0.3).newSource();
        for (int i = 0; i < tone.length; i++) {
            source.fill(tone[i]);
            ToneAudioPort.writeStamp(tone[i], i);
        }
        for (int i = 0; i < frames.size(); i++) {
            // Bytes 8-15 of the stamp are the send time; the sequence and the tone must be exact.
            assertArrayEquals("frame " + i, java.util.Arrays.copyOfRange(tone[i], 16, 640), java.util.Arrays.copyOfRange(frames.get(i), 16, 640));
            assertArrayEquals("sequence of frame " + i, java.util.Arrays.copyOfRange(tone[i], 0, 8), java.util.Arrays.copyOfRange(frames.get(i), 0, 8));
        }

        h.engine().played().reset();
        byte[] speech = new byte[Protocol.FRAME_BYTES];
        for (int i = 0; i < speech.length; i++) speech[i] = (byte) (i % 251 + 1);
        for (int i = 0; i < 5; i++) p.play(speech);
        await("five frames injected", new Callable<Boolean>() {
            @Override
            public Boolean call() {
                return h.engine().played().framesPlayed() == 5;
            }
        });
        assertArrayEquals(speech, java.util.Arrays.copyOfRange(h.engine().played().recorded(), 0, 640));
        assertEquals(5, p.framesInjected());

        p.stopCall();
        await("capture stopped", new Callable<Boolean>() {
            @Override
            public Boolean call() {
                return !p.capturing() && !p.injecting();
            }
        });
        int after = heard.frameCount();
        p.play(speech);
        // The helper's STATUS came after its capture stopped: no frame is on its way any more.
        assertEquals(after, heard.frameCount());
        assertEquals("nothing is injected outside a call", 5, h.engine().played().framesPlayed());
        assertEquals(1, h.engine().captures());
    }

    @Test
    public void aListenOnlyHelperNeverGetsTheGatewaysFrames() throws Exception {
        final FakeHelper h = helper(true);
        final Heard heard = new Heard();
        final HelperAudioPort p = port(channel.directory(), heard);
        await("running", state(p, Protocol.AUDIO_RUNNING));
        assertFalse(p.canInject());
        assertFalse(p.capabilities().inject);
        assertTrue(p.note().contains("listen-only"));
        p.startCall();
        await("capturing", new Callable<Boolean>() {
            @Override
            public Boolean call() {
                return p.capturing() && heard.frameCount() > 3;
            }
        });
        for (int i = 0; i < 5; i++) p.play(new byte[Protocol.FRAME_BYTES]);
        assertFalse(p.injecting());
        assertEquals("the frames were discarded on the app's side", 0, p.framesInjected());
        assertEquals(0, h.engine().played().framesPlayed());
        assertEquals(null, p.problem());
    }

    @Test
    public void aHelperThatDiesIsNoticedAtOnceAndOneStartedAgainPicksUpTheCall() throws Exception {
        final FakeHelper h = helper(false);
        final Heard heard = new Heard();
        final HelperAudioPort p = port(channel.directory(), heard);
        await("running", state(p, Protocol.AUDIO_RUNNING));
        p.startCall();
        await("capturing", new Callable<Boolean>() {
            @Override
            public Boolean call() {
                return p.capturing();
            }
        });
        int changes = heard.changes;
        h.kill();
        await("stopped", state(p, Protocol.AUDIO_STOPPED));
        assertTrue(heard.changes > changes);
        assertFalse(p.canInject());
        assertTrue(p.problem(), p.problem().contains("stopped"));
        assertEquals("what it could do is remembered", AudioCapabilities.SIMULATED, p.capabilities().method);

        h.start();
        await("running again and capturing for the call still wanted", new Callable<Boolean>() {
            @Override
            public Boolean call() {
                return p.state().equals(Protocol.AUDIO_RUNNING) && p.capturing();
            }
        });
        assertEquals(2, h.engine().captures());
    }

    @Test
    public void aCaptureThePlatformTakesAwayMidCallIsReportedAndAskedForAgain() throws Exception {
        final FakeHelper h = helper(false);
        final Heard heard = new Heard();
        final HelperAudioPort p = port(channel.directory(), heard);
        await("running", state(p, Protocol.AUDIO_RUNNING));
        p.startCall();
        await("capturing", new Callable<Boolean>() {
            @Override
            public Boolean call() {
                return p.capturing();
            }
        });
        h.engine().endCapture();
        await("reported, and captured again", new Callable<Boolean>() {
            @Override
            public Boolean call() {
                return h.engine().captures() == 2 && p.capturing();
            }
        });
        assertTrue(p.problem(), p.problem() != null && p.problem().contains("capture ended: AudioRecord.read returned -6"));
        int before = heard.frameCount();
        await("frames flow again", new Callable<Boolean>() {
            @Override
            public Boolean call() {
                return heard.frameCount() > before + 5;
            }
        });
    }

    @Test
    public void aHelperThatHangsIsGivenUpOnByThePingDeadline() throws Exception {
        FakeHelper h = helper(false);
        Heard heard = new Heard();
        HelperAudioPort p = port(channel.directory(), heard);
        await("running", state(p, Protocol.AUDIO_RUNNING));
        h.freeze();
        await("stopped", state(p, Protocol.AUDIO_STOPPED));
        // Its connection is still open: the ping's deadline, not the end of the stream, gave it up.
        assertTrue(p.problem(), p.problem().contains("stopped answering"));
    }

    @Test
    public void aNewlyStartedHelperReplacesTheRunningOneAndTheAppMovesOver() throws Exception {
        FakeHelper first = helper(false);
        Heard heard = new Heard();
        HelperAudioPort p = port(channel.directory(), heard);
        await("running", state(p, Protocol.AUDIO_RUNNING));

        // A second helper, started as AudioHelper.main starts: it asks the first to hand over.
        FakeHelper second = new FakeHelper(channel, new FakeHelper.Engine(executor, ToneAudioPort.tone(440, 0.3), false, true), Log.NONE, AUDIO_WAITING);
        helpers.add(second);
        second.start();
        assertFalse("the first one gave up", first.running());
        assertTrue(second.running());
        final HelperAudioPort app = p;
        await("the app runs with the second helper (listen-only)", new Callable<Boolean>() {
            @Override
            public Boolean call() {
                AudioCapabilities c = app.capabilities();
                return app.state().equals(Protocol.AUDIO_RUNNING) && c != null && !c.inject;
            }
        });
    }

    @Test
    public void startingWhereNoHelperServesReplacesNothing() throws Exception {
        assertFalse("nothing to replace", HelperService.replaceRunning(channel.runningHelper(), Log.NONE));
        FakeHelper h = helper(false);
        h.kill();
        await("the dead helper is forgotten", new Callable<Boolean>() {
            @Override
            public Boolean call() {
                return channel.directory().current() == null;
            }
        });
        assertFalse("a dead helper is not asked", HelperService.replaceRunning(channel.runningHelper(), Log.NONE));
    }

    @Test
    public void aRunningHelperIsFoundAgainWhenTheAppsProcessRestarts() throws Exception {
        FakeHelper h = helper(false);
        HelperAudioPort before = port(channel.directory(), new Heard());
        await("running", state(before, Protocol.AUDIO_RUNNING));
        before.close();

        // The app's process dies and starts again: a new provider that knows no helper, a new port.
        HelperDirectory fresh = channel.restartApp();
        Heard heard = new Heard();
        final HelperAudioPort after = port(fresh, heard);
        await("running with the same helper, not started again", state(after, Protocol.AUDIO_RUNNING));
        assertEquals("announced once more", 2, h.announcements());
        after.startCall();
        await("capturing", new Callable<Boolean>() {
            @Override
            public Boolean call() {
                return after.capturing();
            }
        });
    }

    @Test
    public void aHelperWhoseAppWasRemovedExits() throws Exception {
        final FakeHelper h = new FakeHelper(channel, new FakeHelper.Engine(executor, ToneAudioPort.tone(440, 0.3), false, false), Log.NONE, AUDIO_WAITING);
        h.announcing.firstRetryMs = 20;
        h.announcing.maxRetryMs = 40;
        h.announcing.giveUpMs = 300;
        helpers.add(h);
        h.start();
        channel.uninstallApp();
        await("the helper gave up and exited", new Callable<Boolean>() {
            @Override
            public Boolean call() {
                return !h.running();
            }
        });
    }

    @Test
    public void theAppCanAskTheHelperToExit() throws Exception {
        final FakeHelper h = helper(false);
        HelperAudioPort p = port(channel.directory(), new Heard());
        await("running", state(p, Protocol.AUDIO_RUNNING));
        p.shutdownHelper();
        await("the helper exited", new Callable<Boolean>() {
            @Override
            public Boolean call() {
                return !h.running();
            }
        });
        await("stopped", state(p, Protocol.AUDIO_STOPPED));
    }

    /** A raw client of the helper, to send what the app never would. */
    private static HelperMessage exchange(HelperLink link, HelperMessage... messages) throws IOException {
        HelperLink.Connection c = link.open();
        try {
            c.setReadTimeout(5000);
            OutputStream out = c.output();
            for (HelperMessage m : messages) out.write(HelperCodec.encode(m));
            out.flush();
            InputStream in = c.input();
            while (true) {
                HelperMessage m = HelperCodec.read(in);
                if (m.type == HelperMessage.ERROR) return m;
            }
        } finally {
            c.close();
        }
    }

    /** What opening the helper as {@code uid} named {@code process} says when refused. */
    private String refusal(int uid, String process) {
        try {
            channel.linkAs(uid, process).open().close();
            return null;
        } catch (IOException e) {
            return e.getMessage();
        }
    }

    @Test
    public void theHelperRefusesAnotherAppAndLetsTheShellOnlyStopIt() throws Exception {
        FakeHelper h = helper(false);
        String stranger = refusal(10999, "com.example.other");
        assertNotNull("another app gets no connection", stranger);
        assertTrue(stranger, stranger.contains("uid 10999 (com.example.other) may not use the audio helper"));
        String successor = refusal(JvmChannel.APP_UID, "com.example.successor");
        assertNotNull("an app given our old uid gets no connection", successor);
        HelperMessage shell = exchange(channel.linkAs(PeerPolicy.SHELL_UID, JvmChannel.HELPER_PROCESS), HelperMessage.hello(1), HelperMessage.of(HelperMessage.START_CAPTURE));
        assertTrue(shell.text, shell.text.contains("may not send START_CAPTURE"));
        assertTrue("the shell's mistake does not stop the helper", h.running());
    }

    @Test
    public void aPeerOfAnotherFramingVersionIsToldSo() throws Exception {
        helper(false);
        HelperMessage refusal = exchange(channel.directory().link(), HelperMessage.hello(2));
        assertTrue(refusal.text, refusal.text.contains("version 1 of the framing, not 2"));
    }

    @Test
    public void onlyTheShellMayAnnounceAHelperOrAskForIt() throws Exception {
        FakeHelper h = helper(false);
        HelperAnnouncer.App stranger = channel.providerAs(10999);
        HelperChannel.Extras request = stranger.extras();
        request.putInt(HelperChannel.KEY_VERSION, HelperChannel.VERSION);
        request.putBinder(HelperChannel.KEY_HELPER, new JvmChannel.JvmBinder(null));
        try {
            stranger.call(HelperChannel.ANNOUNCE, request);
            throw new AssertionError("another app announced a helper");
        } catch (HelperAnnouncer.Refused e) {
            assertTrue(e.getMessage(), e.getMessage().contains("uid 10999 may not reach the audio helper channel"));
        }
        try {
            stranger.call(HelperChannel.CURRENT, stranger.extras());
            throw new AssertionError("another app got the helper's Binder");
        } catch (HelperAnnouncer.Refused e) {
            assertTrue(e.getMessage(), e.getMessage().contains("only the shell"));
        }
        assertTrue("the real helper is still the one the app holds", h.running() && channel.directory().current() != null);
    }

    @Test
    public void theAppTrustsNoProcessButTheShellOnTheHelpersSocket() throws Exception {
        final FakeHelper h = helper(false);
        final HelperLink real = channel.directory().link();
        HelperLink impostor = new HelperLink() {
            @Override
            public Connection open() throws IOException {
                return new JvmSockets.Forwarding(real.open()) {
                    @Override
                    public int peerUid() {
                        return 10555;
                    }
                };
            }
        };
        final HelperAudioPort p = port(impostor, new Heard());
        await("the impostor was refused", new Callable<Boolean>() {
            @Override
            public Boolean call() {
                return p.problem() != null;
            }
        });
        assertNotNull(p.problem());
        assertTrue(p.problem(), p.problem().contains("uid 10555"));
        assertEquals(Protocol.AUDIO_PAIRING_REQUIRED, p.state());
    }
}
