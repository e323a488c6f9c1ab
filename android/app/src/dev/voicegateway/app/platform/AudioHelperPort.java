package dev.voicegateway.app.platform;

import dev.voicegateway.core.Protocol;
import dev.voicegateway.core.audio.AudioPort;

/**
 * The call's audio on the phone. A normal app can neither hear nor feed a SIM call's audio; that
 * needs the audio helper started as the shell user (docs/android.md), which a later change adds.
 * Until then this port says so honestly: health.audio is {@code pairing_required}, it cannot
 * inject, and the core's frame pipe never starts (it runs only while the port is {@code running}),
 * so no frames flow in either direction.
 */
public final class AudioHelperPort implements AudioPort {
    @Override
    public void setListener(Listener listener) {
        // Nothing ever changes until a helper exists.
    }

    @Override
    public String state() {
        return Protocol.AUDIO_PAIRING_REQUIRED;
    }

    @Override
    public boolean canInject() {
        return false;
    }

    @Override
    public void startCall() {
    }

    @Override
    public void stopCall() {
    }

    @Override
    public void play(byte[] frame) {
    }
}
