package dev.voicegateway.app.telecom;

import android.telecom.Call;
import android.telecom.CallAudioState;
import android.telecom.InCallService;
import dev.voicegateway.app.VoiceGatewayApp;
import dev.voicegateway.app.compat.Notifications;
import dev.voicegateway.app.ui.InCallActivity;

/**
 * The in-call service Telecom binds while the phone has calls and this app is the default phone
 * app. It hands each call to {@link TelecomTelephony} (and so to the core), keeps the call
 * notification up to date and brings up the in-call screen. Every callback is wrapped: a failure
 * here becomes a message on the status screen, never a crash of the phone app.
 */
public final class CallService extends InCallService {
    private TelecomTelephony telephony;
    private CallNotifier notifier;

    @Override
    public void onCreate() {
        super.onCreate();
        VoiceGatewayApp app = VoiceGatewayApp.of(this);
        telephony = app.telephony();
        notifier = new CallNotifier(this, telephony);
        telephony.bound(this);
        telephony.addCallsListener(notifier);
    }

    @Override
    public void onDestroy() {
        try {
            telephony.removeCallsListener(notifier);
            telephony.unbound(this);
            notifier.cancel();
        } catch (RuntimeException e) {
            VoiceGatewayApp.of(this).reportProblem("Closing the call service failed: " + e, e);
        }
        super.onDestroy();
    }

    @Override
    public void onCallAdded(Call call) {
        try {
            telephony.callAdded(call);
            // A ringing call reaches the person through the full-screen notification (heads-up when
            // the phone is in use); every other call brings up the in-call screen at once. Telecom's
            // binding of this service lets it start an activity from the background. Without
            // notifications (denied on Android 13+), a ringing call brings up the screen too.
            if (call.getState() != Call.STATE_RINGING || !Notifications.enabled(this)) InCallActivity.show(this);
        } catch (RuntimeException e) {
            VoiceGatewayApp.of(this).reportProblem("A new call could not be followed: " + e, e);
        }
    }

    /**
     * The lock screen's and the status bar's "Return to call": Telecom asks the in-call app to show
     * its screen (InCallController.bringToForeground → IInCallService.bringToForeground; API 23).
     * InCallService's default does nothing, so without this the button does nothing.
     */
    @Override
    public void onBringToForeground(boolean showDialpad) {
        InCallActivity.show(this);
    }

    @Override
    public void onCallRemoved(Call call) {
        try {
            telephony.callRemoved(call);
        } catch (RuntimeException e) {
            VoiceGatewayApp.of(this).reportProblem("The end of a call could not be followed: " + e, e);
        }
    }

    @Override
    @SuppressWarnings("deprecation")
    public void onCallAudioStateChanged(CallAudioState audioState) {
        telephony.audioChanged();
    }

    /** Mute and speaker for the in-call screen; false when Telecom refused. */
    public boolean mute(boolean muted) {
        try {
            setMuted(muted);
            return true;
        } catch (RuntimeException e) {
            VoiceGatewayApp.of(this).reportProblem("Mute failed: " + e, e);
            return false;
        }
    }

    @SuppressWarnings("deprecation")
    public boolean speaker(boolean on) {
        try {
            setAudioRoute(on ? CallAudioState.ROUTE_SPEAKER : CallAudioState.ROUTE_WIRED_OR_EARPIECE);
            return true;
        } catch (RuntimeException e) {
            VoiceGatewayApp.of(this).reportProblem("Switching the speaker failed: " + e, e);
            return false;
        }
    }

    @SuppressWarnings("deprecation")
    public CallAudioState audioState() {
        return getCallAudioState();
    }
}
