package dev.voicegateway.app.helper;

import android.content.Context;
import dev.voicegateway.app.R;
import dev.voicegateway.core.PhoneStatus;
import dev.voicegateway.core.Protocol;
import dev.voicegateway.core.audio.AudioCapabilities;
import dev.voicegateway.core.helper.HelperAudioPort;

/** The status screen's words for the audio helper. */
public final class HelperTexts {
    private HelperTexts() {
    }

    public static String state(Context c, PhoneStatus s, HelperAudioPort port) {
        String text;
        if (Protocol.AUDIO_RUNNING.equals(s.audio)) {
            AudioCapabilities caps = port.capabilities();
            if (caps != null && !caps.capture) text = c.getString(R.string.helper_no_capture, port.note());
            else if (!s.audioCanInject) text = c.getString(R.string.helper_listen_only, port.note());
            else text = c.getString(R.string.helper_running);
        } else if (Protocol.AUDIO_STOPPED.equals(s.audio)) {
            text = c.getString(R.string.helper_stopped);
        } else {
            text = c.getString(R.string.helper_not_set_up);
        }
        String problem = port.problem();
        return problem == null || Protocol.AUDIO_PAIRING_REQUIRED.equals(s.audio) ? text : text + "\n" + problem;
    }

    /** Whether the screen should offer the start command (the helper is not running). */
    public static boolean offerCommand(PhoneStatus s) {
        return !Protocol.AUDIO_RUNNING.equals(s.audio);
    }
}
