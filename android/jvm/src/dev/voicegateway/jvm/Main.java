package dev.voicegateway.jvm;

import dev.voicegateway.core.Credentials;
import dev.voicegateway.core.DeviceInfo;
import dev.voicegateway.core.DeviceStatus;
import dev.voicegateway.core.GatewayAddress;
import dev.voicegateway.core.Log;
import dev.voicegateway.core.PairLink;
import dev.voicegateway.core.PairingClient;
import dev.voicegateway.core.PhoneClient;
import dev.voicegateway.core.PhoneStatus;
import dev.voicegateway.core.SelfTest;
import dev.voicegateway.core.Storage;
import dev.voicegateway.core.ThreadClock;
import dev.voicegateway.core.TlsConfig;
import dev.voicegateway.core.audio.AudioPort;
import dev.voicegateway.core.helper.HelperAudioPort;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.text.SimpleDateFormat;
import java.util.Date;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import org.json.JSONObject;

/**
 * `npm run phone:jvm`: the Android app's own core, on the host JVM, playing a phone against any
 * gateway with {@link SimulatedTelephony} and {@link ToneAudioPort} in place of Telecom and the
 * audio helper; with --helper, the app's real bridge to the audio helper ({@link HelperAudioPort})
 * talks to a {@link FakeHelper} through the host's helper channel ({@link JvmChannel}) instead. With --control it is driven over
 * stdin/stdout by the host tests ({@link Control}).
 */
public final class Main {
    static final DeviceInfo INFO = new DeviceInfo("0.1.0-jvm", "14", "App core on the JVM");

    final Options options;
    final PrintStream out;
    final ScheduledExecutorService executor;
    final SimulatedTelephony telephony;
    final AudioPort audio;
    /** The tone port, or null with --helper. */
    final ToneAudioPort tone;
    /** The fake helper and the app's bridge to it, with --helper; else null. */
    final FakeHelper helper;
    final HelperAudioPort helperPort;
    final PlayedAudio played;
    final Storage storage;
    final TlsConfig tls;
    final PhoneClient.Config config;
    final CountDownLatch stopped = new CountDownLatch(1);
    volatile PhoneClient client;
    /** The self-test of the current client: after each start of the helper (the tone port: at once), and on demand (Control's selfTest). */
    volatile SelfTest selfTest;
    volatile String stopReason = "stopping";
    private final Log log;

    Main(Options options, PrintStream out) throws Exception {
        this.options = options;
        this.out = out;
        this.log = new ConsoleLog(options.control ? System.err : out);
        this.executor = Executors.newScheduledThreadPool(2, new ThreadFactory() {
            @Override
            public Thread newThread(Runnable r) {
                Thread t = new Thread(r, "vg-simulation");
                t.setDaemon(true);
                return t;
            }
        });
        this.telephony = new SimulatedTelephony(executor);
        telephony.setOutcome(outcome(options.outcome), options.ringMs);
        HelperAudioPort.Config helperConfig = new HelperAudioPort.Config();
        this.config = Timings.apply(new PhoneClient.Config(), helperConfig, options.timings);
        File token = options.tokenFile == null ? null : new File(options.tokenFile);
        File state = options.stateDir != null ? new File(options.stateDir)
                : token != null ? new File(token.getAbsolutePath() + ".state")
                : Files.createTempDirectory("vg-jvm-phone").toFile();
        this.storage = new JvmStorage(state, token);
        this.tls = Tls.config(options.trust);
        if (options.helper != null) {
            tone = null;
            JvmChannel channel = new JvmChannel();
            helper = new FakeHelper(channel, new FakeHelper.Engine(executor, sourceFactory(options), options.stamp, options.helper.equals("fake-listen-only")), log,
                    helperConfig.audioWaitingFrames);
            helperPort = new HelperAudioPort(channel.directory().link(), storage, new ThreadClock("vg-helper", log), log, helperConfig);
            final HelperAudioPort announcedTo = helperPort;
            channel.directory().setOnAnnounced(new Runnable() {
                @Override
                public void run() {
                    announcedTo.retryNow();
                }
            });
            helper.start();
            audio = helperPort;
            played = helper.engine().played();
        } else {
            tone = new ToneAudioPort(executor, sourceFactory(options), options.stamp);
            helper = null;
            helperPort = null;
            audio = tone;
            played = tone.played();
        }
    }

    public static void main(String[] args) {
        if (AdbCommands.handles(args)) {
            System.exit(AdbCommands.run(args, System.out, System.err));
            return;
        }
        Options options;
        try {
            options = Options.parse(args, System.getenv());
        } catch (Options.UsageError e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        if (options.help) {
            System.out.print(Options.USAGE);
            return;
        }
        try {
            System.exit(new Main(options, System.out).run());
        } catch (Exception e) {
            System.err.println("voice-gateway phone:jvm: " + e.getMessage());
            System.exit(1);
        }
    }

    int run() throws Exception {
        client = newClient();
        Control control = options.control ? new Control(this) : null;
        HumanOutput human = options.control ? null : new HumanOutput(this);
        if (control != null) observe(control.observer());
        if (human != null) observe(human);

        Credentials stored = Credentials.fromJson(orEmpty(storage.read("credentials.json")));
        if (stored != null) {
            // --url wins over the address in the file, as with `npm run phone`.
            client.useCredentials(new Credentials(GatewayAddress.parse(options.url), stored.deviceId, stored.deviceToken, stored.pairedAt));
        } else if (!pair()) {
            return 1;
        }
        client.start();
        if (helperPort != null) helperPort.start();
        // Ctrl-C or SIGTERM: close the socket properly before the JVM ends (its exit status is then 130 or 143).
        final Thread hook = new Thread(new Runnable() {
            @Override
            public void run() {
                say("stopping (signal)");
                client.shutdown();
            }
        });
        Runtime.getRuntime().addShutdownHook(hook);
        if (control != null) control.start();
        stopped.await();
        Runtime.getRuntime().removeShutdownHook(hook);
        say(stopReason);
        client.shutdown();
        return 0;
    }

    /** Pairs with --code; false (after saying why) when that is impossible. */
    boolean pair() {
        if (options.code == null) {
            say("no credentials: pass --code (and --token-file to keep them)");
            return false;
        }
        try {
            Credentials c = client.pair(PairLink.typed(options.url, options.code), options.name);
            say("paired as " + c.deviceId);
            if (options.tokenFile != null) say("credentials saved to " + options.tokenFile);
            return true;
        } catch (PairLink.Invalid e) {
            say("cannot pair: " + e.getMessage());
        } catch (PairingClient.Failed e) {
            say("pairing failed: " + e.getMessage());
        }
        return false;
    }

    PhoneClient newClient() {
        DeviceStatus device = new DeviceStatus() {
            @Override
            public Integer battery() {
                return 87;
            }

            @Override
            public Boolean charging() {
                return Boolean.TRUE;
            }

            @Override
            public String network() {
                return "wifi";
            }

            @Override
            public Integer signal() {
                return 4;
            }

            @Override
            public String carrier() {
                return "Simulated Carrier";
            }
        };
        clientClock = new ThreadClock("vg-core", log);
        PhoneClient c = new PhoneClient(config, INFO, telephony, audio, device, storage, clientClock, tls, log);
        selfTest = SelfTest.attach(new JvmProbe(), c, audio, clientClock, log);
        return c;
    }

    /** The core thread of the current client (a new one per restart). */
    private ThreadClock clientClock;

    /** Ends the process as an app that is killed and started again would: the storage stays. */
    void restart() {
        PhoneClient old = client;
        ThreadClock oldClock = clientClock;
        old.shutdown();
        // As in a process that ends: nothing of the old core runs any more, not even a timer.
        oldClock.shutdown();
        PhoneClient fresh = newClient();
        for (PhoneClient.Observer o : observers) fresh.addObserver(o);
        client = fresh;
        fresh.start();
    }

    private final java.util.List<PhoneClient.Observer> observers = new java.util.concurrent.CopyOnWriteArrayList<PhoneClient.Observer>();

    void observe(PhoneClient.Observer o) {
        observers.add(o);
        client.addObserver(o);
    }

    void stop(String why) {
        stopReason = why;
        stopped.countDown();
    }

    void say(String line) {
        String stamp = new SimpleDateFormat("HH:mm:ss.SSS").format(new Date());
        (options.control ? System.err : out).println(stamp + " " + line);
    }

    static String orEmpty(String s) {
        return s == null ? "{}" : s;
    }

    static SimulatedTelephony.Outcome outcome(String s) {
        if (s.equals("busy")) return SimulatedTelephony.Outcome.BUSY;
        if (s.equals("no-answer")) return SimulatedTelephony.Outcome.NO_ANSWER;
        if (s.equals("failed")) return SimulatedTelephony.Outcome.FAILED;
        if (s.equals("manual")) return SimulatedTelephony.Outcome.MANUAL;
        return SimulatedTelephony.Outcome.ANSWER;
    }

    private static ToneAudioPort.SourceFactory sourceFactory(Options o) throws IOException {
        if (o.silence) return ToneAudioPort.silence();
        if (o.wav != null) return ToneAudioPort.loop(Wav.read(new File(o.wav)));
        return ToneAudioPort.tone(o.tone != null ? Options.toneHz(o.tone) : 440, 0.3);
    }

    /** Log lines in the CLI's format: time, then the message. */
    static final class ConsoleLog implements Log {
        private final PrintStream stream;

        ConsoleLog(PrintStream stream) {
            this.stream = stream;
        }

        @Override
        public void log(int level, String message, Throwable error) {
            if (level < Log.WARN) return;
            String stamp = new SimpleDateFormat("HH:mm:ss.SSS").format(new Date());
            stream.println(stamp + " " + (level >= Log.ERROR ? "error: " : "warning: ") + message + (error != null ? " (" + error + ")" : ""));
        }
    }

    /** Human lines, like `npm run phone`. */
    static final class HumanOutput implements PhoneClient.Observer {
        private final Main main;
        private PhoneStatus.Link last;
        private boolean everConnected;
        private boolean repaired;

        HumanOutput(Main main) {
            this.main = main;
        }

        @Override
        public void onStatus(PhoneStatus s) {
            PhoneStatus.Link previous = last;
            last = s.link;
            if (s.link == previous) return;
            if (s.link == PhoneStatus.Link.CONNECTED) {
                everConnected = true;
                main.say("connected to " + main.options.url + " as " + s.deviceId);
                if (main.options.ring != null && !ringing) ring();
            } else if (s.link == PhoneStatus.Link.WAITING_TO_RETRY && previous != null) {
                main.say("disconnected (" + s.lastError + "), reconnecting");
            } else if (s.link == PhoneStatus.Link.UNPAIRED && previous != null && s.lastError != null) {
                if (!repaired && main.options.code != null && main.options.tokenFile != null) {
                    repaired = true;
                    main.say("the saved token was refused; pairing again with --code");
                    new Thread(new Runnable() {
                        @Override
                        public void run() {
                            if (!main.pair()) main.stop("could not pair again; stopping");
                        }
                    }).start();
                } else {
                    main.stop("the gateway revoked this phone; stopping");
                }
            } else if (s.link == PhoneStatus.Link.STOPPED && everConnected && s.lastError != null) {
                main.stop("another connection of this phone took over; stopping");
            }
        }

        private boolean ringing;

        private void ring() {
            ringing = true;
            main.say("ringing: incoming call from " + main.options.ring);
            try {
                main.telephony.ringIncoming(main.options.ring);
            } catch (dev.voicegateway.core.CommandRefused e) {
                main.say("could not ring: " + e.getMessage());
            }
        }

        @Override
        public void onMessage(boolean outgoing, JSONObject m) {
            String type = m.optString("type");
            if (!outgoing && type.equals("command")) {
                JSONObject payload = m.optJSONObject("payload");
                main.say("command " + m.optString("action") + " call=" + m.optString("callId")
                        + (payload != null && payload.length() > 0 ? " " + payload : ""));
            } else if (outgoing && type.equals("ack") && !m.optBoolean("ok")) {
                JSONObject e = m.optJSONObject("error");
                main.say("  refused: " + (e != null ? e.optString("code") + " " + e.optString("message") : ""));
            } else if (outgoing && type.equals("event")) {
                JSONObject payload = m.optJSONObject("payload");
                String id = m.optString("callId", "");
                main.say("call " + (id.isEmpty() ? m.optString("nativeCallId") : id) + " " + m.optString("direction") + " "
                        + m.optString("remoteNumber") + ": " + m.optString("event") + (payload != null && payload.length() > 0 ? " " + payload : ""));
            } else if (!outgoing && type.equals("event.ack") && main.options.ring != null && !m.isNull("callId") && !named) {
                named = true;
                main.say("the gateway named the incoming call " + m.optString("callId"));
            } else if (!outgoing && type.equals("error")) {
                main.say("gateway error " + m.optString("code") + ": " + m.optString("message"));
            }
        }

        private boolean named;
    }
}
