package dev.voicegateway.app.ui;

import android.app.Activity;
import android.app.AlertDialog;
import android.content.Context;
import android.content.DialogInterface;
import android.content.Intent;
import android.os.Build;
import android.os.Bundle;
import android.os.Handler;
import android.os.Looper;
import android.os.PowerManager;
import android.os.SystemClock;
import android.telecom.Call;
import android.telecom.CallAudioState;
import android.telecom.PhoneAccountHandle;
import android.telecom.VideoProfile;
import android.view.View;
import android.view.WindowManager;
import android.widget.Button;
import android.widget.Chronometer;
import android.widget.LinearLayout;
import android.widget.TextView;
import dev.voicegateway.app.R;
import dev.voicegateway.app.VoiceGatewayApp;
import dev.voicegateway.app.telecom.CallService;
import dev.voicegateway.app.telecom.TelecomTelephony;
import dev.voicegateway.core.PhoneStatus;
import java.util.List;

/**
 * The in-call screen a default phone app must show, for every call: those the gateway placed or
 * was told of, and those made or received by hand. It reads the calls from Telecom (through
 * {@link TelecomTelephony}), not from what the gateway knows. The big buttons sit at the bottom,
 * in reach of one thumb.
 */
public final class InCallActivity extends Activity implements TelecomTelephony.CallsListener, VoiceGatewayApp.Listener {
    public static final String ACTION_ANSWER = "dev.voicegateway.app.action.ANSWER";
    public static final String ACTION_DECLINE = "dev.voicegateway.app.action.DECLINE";
    private static final String EXTRA_CALL = "nativeCallId";
    private static final long TONE_MS = 150;
    private static final long CLOSE_AFTER_END_MS = 1500;

    private VoiceGatewayApp app;
    private TelecomTelephony telephony;
    private final Handler handler = new Handler(Looper.getMainLooper());
    private TextView number, state, kind, others;
    private Chronometer timer;
    private View answerRow, controls, keypad;
    private Button hangup, hold, mute, speaker, keypadToggle;
    private PowerManager.WakeLock proximity;
    private Call shown;
    private Call simAskedFor;
    private boolean timerRunning;

    private final Runnable close = new Runnable() {
        @Override
        public void run() {
            finish();
        }
    };

    /** The intent that shows this screen; {@code action} answers or declines the call {@code nativeCallId}. */
    public static Intent intent(Context context, String action, String nativeCallId) {
        Intent i = new Intent(context, InCallActivity.class).addFlags(Intent.FLAG_ACTIVITY_NEW_TASK);
        if (action != null) i.setAction(action);
        if (nativeCallId != null) i.putExtra(EXTRA_CALL, nativeCallId);
        return i;
    }

    public static void show(Context context) {
        try {
            context.startActivity(intent(context, null, null));
        } catch (RuntimeException e) {
            VoiceGatewayApp.of(context).reportProblem(context.getString(R.string.problem_in_call_screen, e.toString()), e);
        }
    }

    @Override
    @SuppressWarnings("deprecation")
    protected void onCreate(Bundle savedInstanceState) {
        super.onCreate(savedInstanceState);
        if (Build.VERSION.SDK_INT < 27) {
            // 27+ reads showWhenLocked/turnScreenOn from the manifest.
            getWindow().addFlags(WindowManager.LayoutParams.FLAG_SHOW_WHEN_LOCKED | WindowManager.LayoutParams.FLAG_TURN_SCREEN_ON);
        }
        app = VoiceGatewayApp.of(this);
        telephony = app.telephony();
        setContentView(R.layout.activity_in_call);
        number = (TextView) findViewById(R.id.incall_number);
        state = (TextView) findViewById(R.id.incall_state);
        kind = (TextView) findViewById(R.id.incall_kind);
        others = (TextView) findViewById(R.id.incall_others);
        timer = (Chronometer) findViewById(R.id.incall_timer);
        answerRow = findViewById(R.id.incall_answer_row);
        controls = findViewById(R.id.incall_controls);
        keypad = findViewById(R.id.incall_keypad);
        hangup = (Button) findViewById(R.id.incall_hangup);
        hold = (Button) findViewById(R.id.incall_hold);
        mute = (Button) findViewById(R.id.incall_mute);
        speaker = (Button) findViewById(R.id.incall_speaker);
        keypadToggle = (Button) findViewById(R.id.incall_keypad_toggle);
        PowerManager power = getSystemService(PowerManager.class);
        if (power != null && power.isWakeLockLevelSupported(PowerManager.PROXIMITY_SCREEN_OFF_WAKE_LOCK)) {
            proximity = power.newWakeLock(PowerManager.PROXIMITY_SCREEN_OFF_WAKE_LOCK, "VoiceGateway:in-call");
            proximity.setReferenceCounted(false);
        }
        Keypad.build((LinearLayout) keypad, new Keypad.OnDigit() {
            @Override
            public void onDigit(char digit) {
                tone(digit);
            }
        });
        onClick(R.id.incall_answer, new Action() {
            @Override
            public void on(Call call) {
                call.answer(VideoProfile.STATE_AUDIO_ONLY);
            }
        });
        onClick(R.id.incall_decline, new Action() {
            @Override
            public void on(Call call) {
                call.reject(false, null);
            }
        });
        onClick(R.id.incall_hangup, new Action() {
            @Override
            public void on(Call call) {
                call.disconnect();
            }
        });
        onClick(R.id.incall_hold, new Action() {
            @Override
            public void on(Call call) {
                if (call.getState() == Call.STATE_HOLDING) call.unhold();
                else call.hold();
            }
        });
        onClick(R.id.incall_mute, new Action() {
            @Override
            public void on(Call call) {
                CallService service = telephony.service();
                CallAudioState audio = service == null ? null : service.audioState();
                if (audio != null) service.mute(!audio.isMuted());
            }
        });
        onClick(R.id.incall_speaker, new Action() {
            @Override
            public void on(Call call) {
                CallService service = telephony.service();
                CallAudioState audio = service == null ? null : service.audioState();
                if (audio != null) service.speaker(audio.getRoute() != CallAudioState.ROUTE_SPEAKER);
            }
        });
        keypadToggle.setOnClickListener(new View.OnClickListener() {
            @Override
            public void onClick(View v) {
                keypad.setVisibility(keypad.getVisibility() == View.VISIBLE ? View.GONE : View.VISIBLE);
                render();
            }
        });
        act(getIntent());
    }

    @Override
    protected void onNewIntent(Intent intent) {
        super.onNewIntent(intent);
        setIntent(intent);
        act(intent);
        render();
    }

    @Override
    protected void onStart() {
        super.onStart();
        telephony.addCallsListener(this);
        app.addListener(this);
        render();
    }

    @Override
    protected void onStop() {
        telephony.removeCallsListener(this);
        app.removeListener(this);
        handler.removeCallbacks(close);
        proximity(false);
        super.onStop();
    }

    @Override
    public void onCallsChanged() {
        render();
    }

    @Override
    public void onChanged() {
        render();
    }

    /** Answer or Decline from the incoming-call notification. */
    private void act(Intent intent) {
        String action = intent == null ? null : intent.getAction();
        if (!ACTION_ANSWER.equals(action) && !ACTION_DECLINE.equals(action)) return;
        intent.setAction(null); // done once, not again after a rotation
        Call call = byId(intent.getStringExtra(EXTRA_CALL));
        if (call == null || call.getState() != Call.STATE_RINGING) return;
        try {
            if (ACTION_ANSWER.equals(action)) call.answer(VideoProfile.STATE_AUDIO_ONLY);
            else call.reject(false, null);
        } catch (RuntimeException e) {
            app.reportProblem(getString(R.string.problem_call_action, e.toString()), e);
        }
    }

    private Call byId(String nativeCallId) {
        if (nativeCallId == null) return null;
        for (Call c : telephony.platformCalls()) if (nativeCallId.equals(telephony.idOf(c))) return c;
        return null;
    }

    /** The call the screen is about: a ringing incoming one first, then one in progress, then one on hold. */
    private Call primary(List<Call> calls) {
        Call inProgress = null;
        Call held = null;
        for (Call c : calls) {
            int s = c.getState();
            if (s == Call.STATE_DISCONNECTED) continue;
            if (s == Call.STATE_RINGING && telephony.isIncoming(c)) return c;
            if (s == Call.STATE_HOLDING) {
                if (held == null) held = c;
            } else if (inProgress == null) {
                inProgress = c;
            }
        }
        return inProgress != null ? inProgress : held;
    }

    private void render() {
        List<Call> calls = telephony.platformCalls();
        Call call = primary(calls);
        if (call == null) {
            ended();
            return;
        }
        handler.removeCallbacks(close);
        shown = call;
        int s = call.getState();
        boolean ringing = s == Call.STATE_RINGING && telephony.isIncoming(call);
        number.setText(CallTexts.number(this, call));
        state.setText(CallTexts.state(this, s));
        showTimer(call, s == Call.STATE_ACTIVE);
        kind.setText(reportedText(call));
        int more = 0;
        for (Call c : calls) if (c != call && c.getState() != Call.STATE_DISCONNECTED) more++;
        others.setVisibility(more > 0 ? View.VISIBLE : View.GONE);
        others.setText(getResources().getQuantityString(R.plurals.other_calls, more, more));

        answerRow.setVisibility(ringing ? View.VISIBLE : View.GONE);
        controls.setVisibility(ringing ? View.GONE : View.VISIBLE);
        hangup.setVisibility(ringing ? View.GONE : View.VISIBLE);
        if (ringing) keypad.setVisibility(View.GONE);
        Call.Details details = call.getDetails();
        boolean canHold = details != null && details.can(Call.Details.CAPABILITY_HOLD);
        hold.setEnabled(s == Call.STATE_HOLDING || (s == Call.STATE_ACTIVE && canHold));
        hold.setText(s == Call.STATE_HOLDING ? R.string.resume : R.string.hold);
        keypadToggle.setEnabled(s == Call.STATE_ACTIVE);
        keypadToggle.setText(keypad.getVisibility() == View.VISIBLE ? R.string.hide_keypad : R.string.keypad);

        CallService service = telephony.service();
        CallAudioState audio = service == null ? null : service.audioState();
        mute.setEnabled(audio != null);
        speaker.setEnabled(audio != null);
        mute.setText(audio != null && audio.isMuted() ? R.string.unmute : R.string.mute);
        boolean onSpeaker = audio != null && audio.getRoute() == CallAudioState.ROUTE_SPEAKER;
        speaker.setText(onSpeaker ? R.string.speaker_off : R.string.speaker);
        // Held to the ear on the earpiece: the screen goes dark so the cheek presses nothing.
        boolean atEar = audio == null || audio.getRoute() == CallAudioState.ROUTE_EARPIECE;
        proximity(!ringing && atEar && (s == Call.STATE_ACTIVE || s == Call.STATE_DIALING || s == Call.STATE_CONNECTING));
        if (s == Call.STATE_SELECT_PHONE_ACCOUNT) askForSim(call);
    }

    /** A call made by hand on a phone set to "ask every time": the person picks the SIM (once per call). */
    private void askForSim(final Call call) {
        if (simAskedFor == call) return;
        final List<PhoneAccountHandle> offered = TelecomTelephony.accountsOffered(call);
        if (offered.isEmpty()) return;
        simAskedFor = call;
        String[] names = new String[offered.size()];
        for (int i = 0; i < names.length; i++) names[i] = getString(R.string.sim_n, i + 1);
        new AlertDialog.Builder(this)
                .setTitle(R.string.choose_sim)
                .setItems(names, new DialogInterface.OnClickListener() {
                    @Override
                    public void onClick(DialogInterface dialog, final int which) {
                        safely(new Runnable() {
                            @Override
                            public void run() {
                                telephony.selectAccount(call, offered.get(which));
                            }
                        });
                    }
                })
                .setNegativeButton(R.string.cancel_call, new DialogInterface.OnClickListener() {
                    @Override
                    public void onClick(DialogInterface dialog, int which) {
                        safely(new Runnable() {
                            @Override
                            public void run() {
                                call.disconnect();
                            }
                        });
                    }
                })
                .show();
    }

    private String reportedText(Call call) {
        PhoneStatus status = app.client().status();
        String id = telephony.idOf(call);
        if (status.call != null && id != null && id.equals(status.call.nativeCallId)) {
            return status.call.callId != null ? getString(R.string.call_reported_as, status.call.callId) : getString(R.string.call_reported);
        }
        return getString(status.link == PhoneStatus.Link.UNPAIRED ? R.string.call_not_paired : R.string.call_not_reported);
    }

    private void showTimer(Call call, boolean active) {
        Call.Details details = call.getDetails();
        long connectedAt = details == null ? 0 : details.getConnectTimeMillis();
        if (active && connectedAt > 0) {
            timer.setBase(SystemClock.elapsedRealtime() - Math.max(0, System.currentTimeMillis() - connectedAt));
            if (!timerRunning) timer.start();
            timerRunning = true;
            timer.setVisibility(View.VISIBLE);
        } else {
            timer.stop();
            timerRunning = false;
            timer.setVisibility(View.GONE);
        }
    }

    private void ended() {
        shown = null;
        proximity(false);
        timer.stop();
        timerRunning = false;
        state.setText(R.string.state_ended);
        answerRow.setVisibility(View.GONE);
        controls.setVisibility(View.GONE);
        keypad.setVisibility(View.GONE);
        hangup.setVisibility(View.GONE);
        handler.removeCallbacks(close);
        handler.postDelayed(close, CLOSE_AFTER_END_MS);
    }

    private void tone(char digit) {
        final Call call = shown;
        if (call == null) return;
        try {
            call.playDtmfTone(digit);
            handler.postDelayed(new Runnable() {
                @Override
                public void run() {
                    call.stopDtmfTone();
                }
            }, TONE_MS);
        } catch (RuntimeException e) {
            app.reportProblem(getString(R.string.problem_call_action, e.toString()), e);
        }
    }

    private void proximity(boolean on) {
        if (proximity == null) return;
        if (on && !proximity.isHeld()) proximity.acquire();
        else if (!on && proximity.isHeld()) proximity.release(PowerManager.RELEASE_FLAG_WAIT_FOR_NO_PROXIMITY);
    }

    private interface Action {
        void on(Call call);
    }

    /** Runs a Telecom request for the person; a refusal is shown, the screen stays. */
    private void safely(Runnable request) {
        try {
            request.run();
        } catch (RuntimeException e) {
            app.reportProblem(getString(R.string.problem_call_action, e.toString()), e);
        }
    }

    private void onClick(int id, final Action action) {
        findViewById(id).setOnClickListener(new View.OnClickListener() {
            @Override
            public void onClick(View v) {
                Call call = shown;
                if (call == null) return;
                try {
                    action.on(call);
                } catch (RuntimeException e) {
                    // SecurityException or IllegalStateException from Telecom: say so, keep the screen.
                    app.reportProblem(getString(R.string.problem_call_action, e.toString()), e);
                }
            }
        });
    }
}
