package dev.voicegateway.app.ui;

import android.app.Activity;
import android.content.Intent;
import android.net.Uri;
import android.os.Bundle;
import android.text.Editable;
import android.text.TextWatcher;
import android.view.View;
import android.widget.Button;
import android.widget.EditText;
import android.widget.ProgressBar;
import android.widget.TextView;
import dev.voicegateway.app.R;
import dev.voicegateway.app.VoiceGatewayApp;
import dev.voicegateway.app.platform.AndroidDeviceInfo;
import dev.voicegateway.core.PairLink;
import dev.voicegateway.core.PairingClient;
import dev.voicegateway.core.PhoneStatus;

/**
 * Pairing: scan the gateway's QR code in the app, open its voicegateway://pair link from the
 * phone's camera or any QR app, or type the address and code. A link opened from outside only
 * fills the form: the person taps Pair, so a link on some web page cannot quietly hand this phone's
 * calls to another gateway. Pairing is a network call and runs on its own thread.
 */
public final class PairActivity extends Activity {
    private static final int REQUEST_SCAN = 1;

    private VoiceGatewayApp app;
    private EditText address, code, name;
    private TextView message;
    private ProgressBar progress;
    private Button pairButton;
    private boolean pairing;

    @Override
    protected void onCreate(Bundle savedInstanceState) {
        super.onCreate(savedInstanceState);
        app = VoiceGatewayApp.of(this);
        setContentView(R.layout.activity_pair);
        address = (EditText) findViewById(R.id.pair_address);
        code = (EditText) findViewById(R.id.pair_code);
        name = (EditText) findViewById(R.id.pair_name);
        message = (TextView) findViewById(R.id.pair_message);
        progress = (ProgressBar) findViewById(R.id.pair_progress);
        pairButton = (Button) findViewById(R.id.pair_button);
        if (savedInstanceState == null) name.setText(AndroidDeviceInfo.model());
        final View cleartext = findViewById(R.id.pair_cleartext);
        address.addTextChangedListener(new TextWatcher() {
            @Override
            public void beforeTextChanged(CharSequence s, int start, int count, int after) {
            }

            @Override
            public void onTextChanged(CharSequence s, int start, int before, int count) {
            }

            @Override
            public void afterTextChanged(Editable s) {
                String text = s.toString().trim().toLowerCase(java.util.Locale.ROOT);
                cleartext.setVisibility(text.startsWith("http://") || text.startsWith("ws://") ? View.VISIBLE : View.GONE);
            }
        });
        findViewById(R.id.pair_scan).setOnClickListener(new View.OnClickListener() {
            @Override
            public void onClick(View v) {
                startActivityForResult(new Intent(PairActivity.this, ScanActivity.class), REQUEST_SCAN);
            }
        });
        pairButton.setOnClickListener(new View.OnClickListener() {
            @Override
            public void onClick(View v) {
                try {
                    pair(PairLink.typed(address.getText().toString(), code.getText().toString()));
                } catch (PairLink.Invalid e) {
                    showError(e.getMessage());
                }
            }
        });
        if (savedInstanceState == null) fromLink(getIntent());
    }

    @Override
    protected void onNewIntent(Intent intent) {
        super.onNewIntent(intent);
        setIntent(intent);
        fromLink(intent);
    }

    /** A voicegateway://pair link opened from outside the app: fill the form, let the person confirm. */
    private void fromLink(Intent intent) {
        Uri data = intent == null ? null : intent.getData();
        if (data == null) return;
        try {
            PairLink link = PairLink.parse(data.toString());
            fill(link);
            String text = getString(R.string.pair_confirm, link.gateway.base());
            PhoneStatus s = app.client().status();
            if (s.gateway != null) text += " " + getString(R.string.pair_replaces, s.gateway);
            showInfo(text);
        } catch (PairLink.Invalid e) {
            showError(e.getMessage());
        }
    }

    @Override
    protected void onActivityResult(int requestCode, int resultCode, Intent data) {
        if (requestCode != REQUEST_SCAN || resultCode != RESULT_OK || data == null) return;
        try {
            // Scanned in the app by the person who opened this screen to pair: pair at once.
            PairLink link = PairLink.parse(data.getStringExtra(ScanActivity.EXTRA_LINK));
            fill(link);
            pair(link);
        } catch (PairLink.Invalid e) {
            showError(e.getMessage());
        }
    }

    private void fill(PairLink link) {
        address.setText(link.gateway.base());
        code.setText(link.code);
    }

    private void pair(final PairLink link) {
        if (pairing) return;
        final String phoneName = name.getText().toString().trim().isEmpty() ? AndroidDeviceInfo.model() : name.getText().toString().trim();
        setPairing(true);
        showInfo(getString(R.string.pair_working, link.gateway.base()));
        Thread worker = new Thread(new Runnable() {
            @Override
            public void run() {
                String failure;
                try {
                    app.client().pair(link, phoneName);
                    failure = null;
                } catch (PairingClient.Failed e) {
                    failure = e.getMessage();
                } catch (RuntimeException e) {
                    failure = getString(R.string.problem_pairing, e.toString());
                }
                final String problem = failure;
                app.onMain(new Runnable() {
                    @Override
                    public void run() {
                        // The gateway connection must start even if this screen is gone by now.
                        if (problem == null) app.startGateway();
                        paired(problem);
                    }
                });
            }
        }, "vg-pair");
        worker.start();
    }

    private void paired(String problem) {
        if (isDestroyed()) return;
        setPairing(false);
        if (problem != null) {
            showError(problem);
            return;
        }
        startActivity(new Intent(this, StatusActivity.class).addFlags(Intent.FLAG_ACTIVITY_CLEAR_TOP));
        finish();
    }

    private void setPairing(boolean on) {
        pairing = on;
        progress.setVisibility(on ? View.VISIBLE : View.GONE);
        pairButton.setEnabled(!on);
    }

    private void showInfo(String text) {
        message.setTextColor(getColor(R.color.text_primary));
        message.setText(text);
    }

    private void showError(String text) {
        message.setTextColor(getColor(R.color.problem));
        message.setText(text);
    }
}
