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

    /**
     * `adb shell`, then the command on its own line, for this installation (its package and uid):
     * the only form that works in cmd.exe, PowerShell and POSIX shells alike (StartCommand).
     */
    public static String text(Context context) {
        return StartCommand.steps(context.getPackageName(), Process.myUid());
    }

    /**
     * Puts the command to paste at the phone's prompt (after `adb shell`) on the clipboard, to send
     * to the computer by chat or mail; returns it.
     */
    public static String copy(Context context) {
        String command = StartCommand.shell(context.getPackageName(), Process.myUid());
        ClipboardManager clipboard = (ClipboardManager) context.getSystemService(Context.CLIPBOARD_SERVICE);
        if (clipboard != null) clipboard.setPrimaryClip(ClipData.newPlainText("Audio helper start command", command));
        return command;
    }
}
