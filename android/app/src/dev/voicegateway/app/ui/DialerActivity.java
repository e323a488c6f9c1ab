package dev.voicegateway.app.ui;

import android.Manifest;
import android.app.Activity;
import android.content.Intent;
import android.content.pm.PackageManager;
import android.net.Uri;
import android.os.Bundle;
import android.telecom.TelecomManager;
import android.view.View;
import android.widget.EditText;
import android.widget.LinearLayout;
import android.widget.TextView;
import dev.voicegateway.app.R;
import dev.voicegateway.app.VoiceGatewayApp;

/**
 * The keypad for calls made by hand on the phone (ACTION_DIAL, with or without a tel: number, as
 * the default phone app must handle). Such calls are the phone's own: the gateway is not told of
 * them, and while one is in progress the gateway's dial commands are refused as busy.
 */
public final class DialerActivity extends Activity {
    private static final int REQUEST_CALL_PHONE = 1;

    private EditText number;
    private TextView message;

    @Override
    protected void onCreate(Bundle savedInstanceState) {
        super.onCreate(savedInstanceState);
        setContentView(R.layout.activity_dialer);
        number = (EditText) findViewById(R.id.dial_number);
        message = (TextView) findViewById(R.id.dial_message);
        Keypad.build((LinearLayout) findViewById(R.id.dial_keypad), new Keypad.OnDigit() {
            @Override
            public void onDigit(char digit) {
                number.getText().insert(Math.max(0, number.getSelectionStart()), String.valueOf(digit));
            }
        });
        View delete = findViewById(R.id.dial_delete);
        delete.setOnClickListener(new View.OnClickListener() {
            @Override
            public void onClick(View v) {
                int end = number.getSelectionStart();
                if (end > 0) number.getText().delete(end - 1, end);
            }
        });
        delete.setOnLongClickListener(new View.OnLongClickListener() {
            @Override
            public boolean onLongClick(View v) {
                number.setText("");
                return true;
            }
        });
        findViewById(R.id.dial_call).setOnClickListener(new View.OnClickListener() {
            @Override
            public void onClick(View v) {
                call();
            }
        });
        if (savedInstanceState == null) prefill(getIntent());
    }

    @Override
    protected void onNewIntent(Intent intent) {
        super.onNewIntent(intent);
        setIntent(intent);
        prefill(intent);
    }

    private void prefill(Intent intent) {
        Uri data = intent == null ? null : intent.getData();
        if (data != null && "tel".equals(data.getScheme()) && data.getSchemeSpecificPart() != null) {
            number.setText(data.getSchemeSpecificPart());
            number.setSelection(number.length());
        }
    }

    private void call() {
        String to = number.getText().toString().trim();
        if (to.isEmpty()) {
            message.setText(R.string.dial_empty);
            return;
        }
        if (checkSelfPermission(Manifest.permission.CALL_PHONE) != PackageManager.PERMISSION_GRANTED) {
            requestPermissions(new String[] {Manifest.permission.CALL_PHONE}, REQUEST_CALL_PHONE);
            return;
        }
        try {
            TelecomManager telecom = getSystemService(TelecomManager.class);
            telecom.placeCall(Uri.fromParts("tel", to, null), new Bundle());
            finish();
        } catch (RuntimeException e) {
            // SecurityException (permission withdrawn meanwhile) or a Telecom failure.
            message.setText(getString(R.string.dial_failed, e.getMessage()));
            VoiceGatewayApp.of(this).reportProblem(getString(R.string.dial_failed, e.getMessage()), e);
        }
    }

    @Override
    public void onRequestPermissionsResult(int requestCode, String[] permissions, int[] grantResults) {
        if (grantResults.length > 0 && grantResults[0] == PackageManager.PERMISSION_GRANTED) call();
        else message.setText(R.string.problem_denied_calls);
    }
}
