package dev.voicegateway.app.ui;

import android.content.Context;
import android.telecom.Call;
import dev.voicegateway.app.R;
import dev.voicegateway.app.telecom.TelecomTelephony;
import dev.voicegateway.core.TelecomStates;

/** Words for a Telecom call on the in-call screen and the call notification. */
public final class CallTexts {
    private CallTexts() {
    }

    public static String number(Context c, Call call) {
        String number = TelecomTelephony.number(call.getDetails());
        return number.isEmpty() ? c.getString(R.string.unknown_number) : number;
    }

    public static String state(Context c, int telecomState) {
        switch (telecomState) {
            case TelecomStates.NEW: return c.getString(R.string.state_new);
            case TelecomStates.CONNECTING: return c.getString(R.string.state_connecting);
            case TelecomStates.SELECT_PHONE_ACCOUNT: return c.getString(R.string.state_select_account);
            case TelecomStates.DIALING: return c.getString(R.string.state_dialing);
            case TelecomStates.RINGING:
            case TelecomStates.SIMULATED_RINGING: return c.getString(R.string.incoming_call);
            case TelecomStates.ACTIVE: return c.getString(R.string.state_active);
            case TelecomStates.AUDIO_PROCESSING: return c.getString(R.string.state_audio_processing);
            case TelecomStates.HOLDING: return c.getString(R.string.state_holding);
            case TelecomStates.PULLING_CALL: return c.getString(R.string.state_pulling);
            case TelecomStates.DISCONNECTING: return c.getString(R.string.state_disconnecting);
            case TelecomStates.DISCONNECTED: return c.getString(R.string.state_ended);
            default: return TelecomStates.name(telecomState);
        }
    }
}
