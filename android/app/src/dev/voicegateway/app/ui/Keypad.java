package dev.voicegateway.app.ui;

import android.view.LayoutInflater;
import android.view.View;
import android.widget.Button;
import android.widget.LinearLayout;
import dev.voicegateway.app.R;

/** The twelve keys of a phone keypad, shared by the dialer and the in-call screen. */
final class Keypad {
    interface OnDigit {
        void onDigit(char digit);
    }

    private static final String[] ROWS = {"123", "456", "789", "*0#"};

    private Keypad() {
    }

    /** Fills {@code container} (a vertical LinearLayout) with four rows of big keys. */
    static void build(LinearLayout container, final OnDigit listener) {
        LayoutInflater inflater = LayoutInflater.from(container.getContext());
        container.removeAllViews();
        for (String keys : ROWS) {
            LinearLayout row = (LinearLayout) inflater.inflate(R.layout.keypad_row, container, false);
            for (int i = 0; i < keys.length(); i++) {
                final char digit = keys.charAt(i);
                Button key = (Button) inflater.inflate(R.layout.keypad_key, row, false);
                key.setText(String.valueOf(digit));
                key.setOnClickListener(new View.OnClickListener() {
                    @Override
                    public void onClick(View v) {
                        listener.onDigit(digit);
                    }
                });
                row.addView(key);
            }
            container.addView(row);
        }
    }
}
