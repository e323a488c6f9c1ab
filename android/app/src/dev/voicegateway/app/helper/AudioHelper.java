package dev.voicegateway.app.helper;

import android.content.Context;
import android.os.Looper;
import dev.voicegateway.core.Log;
import dev.voicegateway.core.ThreadClock;
import dev.voicegateway.core.helper.AnnouncedEndpoint;
import dev.voicegateway.core.helper.HelperAnnouncer;
import dev.voicegateway.core.helper.HelperService;
import dev.voicegateway.core.helper.PeerPolicy;
import dev.voicegateway.core.helper.StartCommand;
import java.io.IOException;

/**
 * The audio helper: started as the shell by the command the app shows ({@link StartCommand}),
 * `app_process /system/bin dev.voicegateway.app.helper.AudioHelper --uid <the app's uid>`, it asks a
 * helper already running to hand over, then announces its Binder to the app's provider
 * ({@link HelperProvider}, through {@link ProviderCall}) and serves the app's connections until the
 * app (or the shell) tells it to exit, or the app is gone. It dies with the phone.
 */
public final class AudioHelper {
    private AudioHelper() {
    }

    public static void main(String[] args) {
        int uid;
        final String appPackage = option(args, "--package", "dev.voicegateway.app");
        final PeerPolicy policy;
        try {
            uid = uid(args);
            policy = new PeerPolicy(uid, appPackage);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.println("usage: app_process /system/bin " + StartCommand.MAIN_CLASS + " --uid <the app's uid> [--package <the app's package>]");
            System.exit(2);
            return;
        }
        final Log log = new HelperLog();
        Thread.setDefaultUncaughtExceptionHandler(new Thread.UncaughtExceptionHandler() {
            @Override
            public void uncaughtException(Thread t, Throwable e) {
                log.log(Log.ERROR, "the audio helper failed on " + t.getName(), e);
                System.exit(1);
            }
        });
        // AudioRecord and AudioTrack hand their events to the Looper of the thread that makes them, or the main one.
        if (Looper.getMainLooper() == null) Looper.prepareMainLooper();
        Context context = ShellEnvironment.context(log);
        AndroidCallAudio engine = new AndroidCallAudio(context, log);
        ProviderCall app = new ProviderCall(appPackage, uid);
        if (HelperService.replaceRunning(app.runningHelper(), log)) System.out.println("replaced the audio helper that was running");
        final HelperService[] service = new HelperService[1];
        HelperAnnouncer announcer = new HelperAnnouncer(app, new ThreadClock("vg-helper-announcer", log), log, new HelperAnnouncer.Config(),
                new HelperAnnouncer.Listener() {
                    private boolean first = true;

                    @Override
                    public void announced() {
                        if (first) System.out.println("the app has the audio helper");
                        first = false;
                    }

                    @Override
                    public void appGone(String why) {
                        System.err.println("the audio helper stops: " + why);
                        service[0].stop(why);
                    }
                });
        HelperBinder binder = new HelperBinder();
        AnnouncedEndpoint endpoint = new AnnouncedEndpoint(announcer, binder, policy);
        binder.serve(endpoint);
        service[0] = new HelperService(policy, endpoint, engine, log);
        Thread server = new Thread(new Runnable() {
            @Override
            public void run() {
                int status = 0;
                try {
                    service[0].run();
                } catch (IOException e) {
                    log.log(Log.ERROR, "the audio helper cannot serve: " + e.getMessage(), e);
                    status = 1;
                }
                // The platform starts threads of its own that would keep the process alive.
                System.exit(status);
            }
        }, "vg-helper-server");
        server.start();
        System.out.println("Voice Gateway audio helper running for uid " + uid + ": " + engine.capabilities()
                + (engine.note().isEmpty() ? "" : " — " + engine.note()));
        Looper.loop();
    }

    static String option(String[] args, String name, String fallback) {
        for (int i = 0; i + 1 < args.length; i++) if (args[i].equals(name)) return args[i + 1];
        return fallback;
    }

    static int uid(String[] args) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals("--uid")) {
                try {
                    return Integer.parseInt(args[i + 1]);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("--uid must be a number, got " + args[i + 1]);
                }
            }
        }
        throw new IllegalArgumentException("--uid is required");
    }
}
