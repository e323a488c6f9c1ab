package dev.voicegateway.app.ui;

import android.app.Activity;
import android.view.View;
import android.widget.Button;
import android.widget.EditText;
import android.widget.TextView;
import dev.voicegateway.app.R;
import dev.voicegateway.app.adb.SelfStarter;

/**
 * The status screen's part for starting the helper without a computer: the pairing state, the last
 * outcome in plain words, the grant's command line with its trade-off, and the code field that is the
 * split-screen fallback when the notification's inline reply cannot be used.
 */
final class SelfStartPanel {
    private final Activity activity;
    private final SelfStarter starter;
    private final View box;
    private final TextView state, grant, grantCommand;
    private final EditText code;
    private final Button start;

    SelfStartPanel(Activity activity, SelfStarter starter) {
        this.activity = activity;
        this.starter = starter;
        box = activity.findViewById(R.id.self_start_box);
        state = (TextView) activity.findViewById(R.id.self_start_state);
        grant = (TextView) activity.findViewById(R.id.self_start_grant);
        grantCommand = (TextView) activity.findViewById(R.id.self_start_grant_command);
        code = (EditText) activity.findViewById(R.id.self_start_code);
        start = (Button) activity.findViewById(R.id.button_adb_start);
        activity.findViewById(R.id.button_adb_pair).setOnClickListener(new View.OnClickListener() {
            @Override
            public void onClick(View v) {
                SelfStartPanel.this.starter.beginPairing();
            }
        });
        activity.findViewById(R.id.button_adb_code).setOnClickListener(new View.OnClickListener() {
            @Override
            public void onClick(View v) {
                SelfStartPanel.this.starter.codeTyped(code.getText().toString(), -1, null);
                code.setText("");
            }
        });
        start.setOnClickListener(new View.OnClickListener() {
            @Override
            public void onClick(View v) {
                SelfStartPanel.this.starter.startHelper();
            }
        });
    }

    /** {@code helperRunning}: nothing to start. */
    void render(boolean helperRunning) {
        if (!SelfStarter.supported()) {
            box.setVisibility(View.GONE);
            return;
        }
        box.setVisibility(View.VISIBLE);
        boolean paired = starter.paired();
        StringBuilder text = new StringBuilder(activity.getString(paired ? R.string.self_start_paired : R.string.self_start_not_paired));
        String prompt = starter.pairingPrompt();
        String last = starter.lastMessage();
        if (prompt != null && !paired) text.append("\n").append(prompt);
        else if (last != null) text.append("\n").append(last);
        state.setText(text);
        start.setVisibility(paired && !helperRunning ? View.VISIBLE : View.GONE);
        boolean granted = starter.granted();
        grant.setText(granted ? (starter.grantUsed() ? R.string.self_start_grant_used : R.string.self_start_grant_unused) : R.string.self_start_grant_missing);
        grantCommand.setVisibility(granted ? View.GONE : View.VISIBLE);
        grantCommand.setText(starter.grantCommand());
    }
}
