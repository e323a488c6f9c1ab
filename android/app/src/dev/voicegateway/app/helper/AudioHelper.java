package dev.voicegateway.app.helper;

import android.content.Context;
import android.os.Looper;
import dev.voicegateway.core.Log;
import dev.voicegateway.core.helper.HelperService;
import dev.voicegateway.core.helper.PeerPolicy;
import dev.voicegateway.core.helper.StartCommand;
import java.io.IOException;

/**
 * The audio helper: started as the shell by the command the app shows ({@link StartCommand}),
 * `app_process /system/bin dev.voicegateway.app.helper.AudioHelper --uid <the app's uid>`, it asks a
 * helper already running to hand over, then serves the app on the abstract socket
 * {@link LocalSockets#NAME} until the app (or the shell) tells it to exit. It dies with the phone.
 */
public final class AudioHelper {
    private AudioHelper() {
    }

    public static void main(String[] args) {
        int uid;
        final String appPackage = option(args, "--package", "dev.voicegateway.app");
        try {
            uid = uid(args);
            new PeerPolicy(uid, appPackage);
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
        if (HelperService.replaceRunning(LocalSockets.link(), log)) System.out.println("replaced the audio helper that was running");
        final HelperService service = new HelperService(new PeerPolicy(uid, appPackage), new LocalSockets.Endpoint(), engine, log);
        Thread server = new Thread(new Runnable() {
            @Override
            public void run() {
                int status = 0;
                try {
                    service.run();
                } catch (IOException e) {
                    log.log(Log.ERROR, "the audio helper cannot serve: " + e.getMessage(), e);
                    System.err.println("cannot take the socket " + LocalSockets.NAME + ": " + e.getMessage());
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
