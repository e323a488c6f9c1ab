package dev.voicegateway.app.helper;

import android.content.Context;
import dev.voicegateway.core.FileStorage;
import dev.voicegateway.core.Log;
import dev.voicegateway.core.ThreadClock;
import dev.voicegateway.core.helper.HelperAudioPort;
import dev.voicegateway.core.helper.HelperDirectory;

/** The app's AudioPort: the bridge to the audio helper that announced itself to {@link HelperProvider}. */
public final class HelperPorts {
    private static HelperDirectory directory;

    private HelperPorts() {
    }

    /** The process's one record of the announced helper (the provider and the port share it). */
    static synchronized HelperDirectory directory() {
        if (directory == null) directory = new HelperDirectory(BinderChannel.appToken(), BinderChannel.binders());
        return directory;
    }

    /**
     * Made once per process (VoiceGatewayApp.onCreate), given to the PhoneClient, and started
     * with {@link HelperAudioPort#start} after the client: it connects as soon as a helper announces
     * itself, and keeps trying while none is there.
     */
    public static HelperAudioPort create(Context context, Log log) {
        final HelperAudioPort port = new HelperAudioPort(directory().link(), new FileStorage(context.getFilesDir()), new ThreadClock("vg-helper", log), log,
                new HelperAudioPort.Config());
        directory().setOnAnnounced(new Runnable() {
            @Override
            public void run() {
                port.retryNow();
            }
        });
        return port;
    }
}
