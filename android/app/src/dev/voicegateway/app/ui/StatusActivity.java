package dev.voicegateway.app.ui;

import android.Manifest;
import android.app.Activity;
import android.app.AlertDialog;
import android.content.ActivityNotFoundException;
import android.content.DialogInterface;
import android.content.Intent;
import android.content.pm.PackageManager;
import android.net.Uri;
import android.os.Bundle;
import android.os.Handler;
import android.os.Looper;
import android.os.PowerManager;
import android.provider.Settings;
import android.text.format.DateFormat;
import android.view.View;
import android.widget.Button;
import android.widget.TextView;
import android.widget.Toast;
import dev.voicegateway.app.R;
import dev.voicegateway.app.VoiceGatewayApp;
import dev.voicegateway.app.compat.DialerRole;
import dev.voicegateway.app.compat.Permissions;
import dev.voicegateway.app.helper.HelperCommand;
import dev.voicegateway.app.helper.HelperTexts;
import dev.voicegateway.app.service.GatewayService;
import dev.voicegateway.core.PhoneStatus;
import java.util.Date;

/**
 * The app's main screen: which gateway, the connection, the call in progress, the audio helper,
 * the last problem in plain words, and what the phone still needs (default phone app, call
 * permission, notifications, battery exemption) each with the button that fixes it.
 */
public final class StatusActivity extends Activity implements VoiceGatewayApp.Listener {
    private static final int REQUEST_ROLE = 1;
    private static final int REQUEST_CALL_PHONE = 2;
    private static final int REQUEST_NOTIFICATIONS = 3;

    private VoiceGatewayApp app;
    private final Handler handler = new Handler(Looper.getMainLooper());
    private final Runnable tick = new Runnable() {
        @Override
        public void run() {
            render();
        }
    };
    private TextView gateway, device, connection, call, audio, helperCommand, outbox, problem;
    private Button copyHelperButton, stopHelperButton;
    private TextView dialerText, callText, notifyText, batteryText;
    private Button dialerButton, callButton, notifyButton, batteryButton;
    private Button pairButton, connectButton, unpairButton;
    private View problemBox, notifyRow;
    private SelfStartPanel selfStart;

    @Override
    protected void onCreate(Bundle savedInstanceState) {
        super.onCreate(savedInstanceState);
        app = VoiceGatewayApp.of(this);
        setContentView(R.layout.activity_status);
        gateway = (TextView) findViewById(R.id.status_gateway);
        device = (TextView) findViewById(R.id.status_device);
        connection = (TextView) findViewById(R.id.status_connection);
        call = (TextView) findViewById(R.id.status_call);
        audio = (TextView) findViewById(R.id.status_audio);
        helperCommand = (TextView) findViewById(R.id.status_helper_command);
        copyHelperButton = (Button) findViewById(R.id.button_copy_helper);
        stopHelperButton = (Button) findViewById(R.id.button_stop_helper);
        outbox = (TextView) findViewById(R.id.status_outbox);
        problem = (TextView) findViewById(R.id.status_problem);
        problemBox = findViewById(R.id.status_problem_box);
        dialerText = (TextView) findViewById(R.id.setup_dialer_text);
        callText = (TextView) findViewById(R.id.setup_call_text);
        notifyText = (TextView) findViewById(R.id.setup_notify_text);
        batteryText = (TextView) findViewById(R.id.setup_battery_text);
        notifyRow = findViewById(R.id.setup_notify_row);
        dialerButton = (Button) findViewById(R.id.setup_dialer_button);
        callButton = (Button) findViewById(R.id.setup_call_button);
        notifyButton = (Button) findViewById(R.id.setup_notify_button);
        batteryButton = (Button) findViewById(R.id.setup_battery_button);
        pairButton = (Button) findViewById(R.id.button_pair);
        connectButton = (Button) findViewById(R.id.button_connect);
        unpairButton = (Button) findViewById(R.id.button_unpair);
        selfStart = new SelfStartPanel(this, app.selfStarter());

        onClick(R.id.status_problem_dismiss, new Runnable() {
            @Override
            public void run() {
                app.dismissProblem();
            }
        });
        onClick(R.id.setup_dialer_button, new Runnable() {
            @Override
            public void run() {
                launch(DialerRole.requestIntent(StatusActivity.this), REQUEST_ROLE);
            }
        });
        onClick(R.id.setup_call_button, new Runnable() {
            @Override
            public void run() {
                requestPermissions(new String[] {Manifest.permission.CALL_PHONE}, REQUEST_CALL_PHONE);
            }
        });
        onClick(R.id.setup_notify_button, new Runnable() {
            @Override
            public void run() {
                requestPermissions(new String[] {Permissions.POST_NOTIFICATIONS}, REQUEST_NOTIFICATIONS);
            }
        });
        onClick(R.id.setup_battery_button, new Runnable() {
            @Override
            public void run() {
                askBatteryExemption();
            }
        });
        onClick(R.id.button_copy_helper, new Runnable() {
            @Override
            public void run() {
                HelperCommand.copy(StatusActivity.this);
                Toast.makeText(StatusActivity.this, R.string.helper_command_copied, Toast.LENGTH_LONG).show();
            }
        });
        onClick(R.id.button_stop_helper, new Runnable() {
            @Override
            public void run() {
                app.audio().shutdownHelper();
            }
        });
        onClick(R.id.button_self_test, new Runnable() {
            @Override
            public void run() {
                app.selfTest().run();
                boolean online = app.client().status().link == PhoneStatus.Link.CONNECTED;
                Toast.makeText(StatusActivity.this, online ? R.string.self_test_sent : R.string.self_test_waiting, Toast.LENGTH_LONG).show();
            }
        });
        onClick(R.id.button_pair, new Runnable() {
            @Override
            public void run() {
                startActivity(new Intent(StatusActivity.this, PairActivity.class));
            }
        });
        onClick(R.id.button_connect, new Runnable() {
            @Override
            public void run() {
                app.connectNow();
            }
        });
        onClick(R.id.button_unpair, new Runnable() {
            @Override
            public void run() {
                confirmUnpair();
            }
        });
        onClick(R.id.button_keypad, new Runnable() {
            @Override
            public void run() {
                startActivity(new Intent(StatusActivity.this, DialerActivity.class));
            }
        });
    }

    @Override
    protected void onResume() {
        super.onResume();
        app.addListener(this);
        // Android may have refused the service while the app was in the background; in front it may start.
        if (app.isPaired()) GatewayService.start(this);
        render();
    }

    @Override
    protected void onPause() {
        app.removeListener(this);
        handler.removeCallbacks(tick);
        super.onPause();
    }

    @Override
    public void onChanged() {
        render();
    }

    private void render() {
        handler.removeCallbacks(tick);
        PhoneStatus s = app.client().status();
        boolean paired = s.link != PhoneStatus.Link.UNPAIRED;
        gateway.setText(paired ? s.gateway : getString(R.string.not_paired_hint));
        device.setText(s.deviceId != null ? s.deviceId : getString(R.string.none));
        connection.setText(StatusTexts.link(this, s, true));
        call.setText(StatusTexts.call(this, s.call));
        audio.setText(HelperTexts.state(this, s, app.audio()));
        boolean offer = HelperTexts.offerCommand(s);
        helperCommand.setVisibility(offer ? View.VISIBLE : View.GONE);
        copyHelperButton.setVisibility(offer ? View.VISIBLE : View.GONE);
        stopHelperButton.setVisibility(offer ? View.GONE : View.VISIBLE);
        if (offer) helperCommand.setText(HelperCommand.text(this));
        selfStart.render(!offer);
        outbox.setText(s.outboxSize == 0 ? getString(R.string.outbox_empty) : getResources().getQuantityString(R.plurals.outbox_waiting, s.outboxSize, s.outboxSize));
        VoiceGatewayApp.Problem p = app.problem();
        problemBox.setVisibility(p == null ? View.GONE : View.VISIBLE);
        if (p != null) problem.setText(DateFormat.getTimeFormat(this).format(new Date(p.at)) + " — " + p.message);

        boolean dialer = DialerRole.isHeld(this);
        setup(dialerText, dialerButton, dialer, R.string.setup_dialer_ok, R.string.setup_dialer_missing);
        setup(callText, callButton, granted(Manifest.permission.CALL_PHONE), R.string.setup_call_ok, R.string.setup_call_missing);
        notifyRow.setVisibility(Permissions.notificationsNeedPermission() ? View.VISIBLE : View.GONE);
        if (Permissions.notificationsNeedPermission()) {
            setup(notifyText, notifyButton, granted(Permissions.POST_NOTIFICATIONS), R.string.setup_notify_ok, R.string.setup_notify_missing);
        }
        PowerManager power = getSystemService(PowerManager.class);
        boolean exempt = power != null && power.isIgnoringBatteryOptimizations(getPackageName());
        setup(batteryText, batteryButton, exempt, R.string.setup_battery_ok, R.string.setup_battery_missing);

        pairButton.setText(paired ? R.string.pair_again : R.string.pair);
        unpairButton.setVisibility(paired ? View.VISIBLE : View.GONE);
        boolean offline = s.link == PhoneStatus.Link.STOPPED || s.link == PhoneStatus.Link.WAITING_TO_RETRY;
        connectButton.setVisibility(offline ? View.VISIBLE : View.GONE);
        if (s.link == PhoneStatus.Link.WAITING_TO_RETRY) handler.postDelayed(tick, 1000);
    }

    private void setup(TextView text, Button button, boolean ok, int okText, int missingText) {
        text.setText(ok ? okText : missingText);
        button.setVisibility(ok ? View.GONE : View.VISIBLE);
    }

    private boolean granted(String permission) {
        return checkSelfPermission(permission) == PackageManager.PERMISSION_GRANTED;
    }

    @Override
    public void onRequestPermissionsResult(int requestCode, String[] permissions, int[] grantResults) {
        boolean allowed = grantResults.length > 0 && grantResults[0] == PackageManager.PERMISSION_GRANTED;
        if (!allowed && requestCode == REQUEST_CALL_PHONE) app.reportProblem(getString(R.string.problem_denied_calls), null);
        if (!allowed && requestCode == REQUEST_NOTIFICATIONS) app.reportProblem(getString(R.string.problem_denied_notifications), null);
        render();
    }

    @Override
    protected void onActivityResult(int requestCode, int resultCode, Intent data) {
        if (requestCode == REQUEST_ROLE && !DialerRole.isHeld(this)) app.reportProblem(getString(R.string.problem_role_refused), null);
        render();
    }

    private void askBatteryExemption() {
        Intent ask = new Intent(Settings.ACTION_REQUEST_IGNORE_BATTERY_OPTIMIZATIONS, Uri.parse("package:" + getPackageName()));
        try {
            startActivity(ask);
        } catch (ActivityNotFoundException e) {
            // Some phones hide the direct question; their list of apps is the way there.
            launch(new Intent(Settings.ACTION_IGNORE_BATTERY_OPTIMIZATION_SETTINGS), 0);
        }
    }

    private void confirmUnpair() {
        new AlertDialog.Builder(this)
                .setTitle(R.string.unpair_title)
                .setMessage(R.string.unpair_message)
                .setNegativeButton(android.R.string.cancel, null)
                .setPositiveButton(R.string.unpair, new DialogInterface.OnClickListener() {
                    @Override
                    public void onClick(DialogInterface dialog, int which) {
                        app.client().unpair();
                        // The helper serves this pairing's calls: it exits with it.
                        app.audio().shutdownHelper();
                    }
                })
                .show();
    }

    private void launch(Intent intent, int requestCode) {
        try {
            if (requestCode > 0) startActivityForResult(intent, requestCode);
            else startActivity(intent);
        } catch (ActivityNotFoundException | SecurityException e) {
            app.reportProblem(getString(R.string.problem_no_screen), e);
        }
    }

    private void onClick(int id, final Runnable action) {
        findViewById(id).setOnClickListener(new View.OnClickListener() {
            @Override
            public void onClick(View v) {
                try {
                    action.run();
                } catch (RuntimeException e) {
                    app.reportProblem(getString(R.string.problem_action, e.toString()), e);
                }
            }
        });
    }
}
