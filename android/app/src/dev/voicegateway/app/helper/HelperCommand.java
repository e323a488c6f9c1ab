package dev.voicegateway.app.helper;

import android.content.ClipData;
import android.content.ClipboardManager;
import android.content.Context;
import android.os.Process;
import dev.voicegateway.core.helper.StartCommand;

/** The start command as the app shows it, with its copy button. */
public final class HelperCommand {
    private HelperCommand() {
    }

    /** `adb shell '…'` for this installation (its package and uid). */
    public static String text(Context context) {
        return StartCommand.adb(context.getPackageName(), Process.myUid());
    }

    /** Puts the command on the clipboard (to paste into a chat or mail to the computer); returns it. */
    public static String copy(Context context) {
        String command = text(context);
        ClipboardManager clipboard = (ClipboardManager) context.getSystemService(Context.CLIPBOARD_SERVICE);
        if (clipboard != null) clipboard.setPrimaryClip(ClipData.newPlainText("Audio helper start command", command));
        return command;
    }
}
