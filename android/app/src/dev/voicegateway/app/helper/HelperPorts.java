package dev.voicegateway.app.helper;

import android.content.Context;
import dev.voicegateway.core.FileStorage;
import dev.voicegateway.core.Log;
import dev.voicegateway.core.ThreadClock;
import dev.voicegateway.core.helper.HelperAudioPort;

/** The app's AudioPort: the bridge to the audio helper over the abstract LocalSocket. */
public final class HelperPorts {
    private HelperPorts() {
    }

    /**
     * Made once per process (VoiceGatewayApp.onCreate), given to the PhoneClient, and started
     * with {@link HelperAudioPort#start} after the client: it then keeps looking for the helper.
     */
    public static HelperAudioPort create(Context context, Log log) {
        return new HelperAudioPort(LocalSockets.link(), new FileStorage(context.getFilesDir()), new ThreadClock("vg-helper", log), log,
                new HelperAudioPort.Config());
    }
}
