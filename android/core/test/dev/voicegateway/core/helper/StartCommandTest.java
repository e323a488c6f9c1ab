package dev.voicegateway.core.helper;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

/** The command the app shows with its copy button. */
public class StartCommandTest {
    @Test
    public void runsTheHelperFromTheInstalledApkDetachedFromAdb() {
        assertEquals("adb shell 'CLASSPATH=$(pm path dev.voicegateway.app | cut -d: -f2) setsid nohup app_process /system/bin "
                + "dev.voicegateway.app.helper.AudioHelper --uid 10234 --package dev.voicegateway.app >/dev/null 2>&1 &'", StartCommand.adb("dev.voicegateway.app", 10234));
    }

    @Test(expected = IllegalArgumentException.class)
    public void aPackageNameCannotSmuggleShellIntoTheCommand() {
        StartCommand.shell("dev.voicegateway.app'; reboot; '", 10234);
    }

    @Test(expected = IllegalArgumentException.class)
    public void onlyAnAppsUidMayBeNamed() {
        StartCommand.shell("dev.voicegateway.app", 2000);
    }
}
