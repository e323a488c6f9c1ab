package dev.voicegateway.core.helper;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.Test;

/** The command the app shows with its copy button, and its one-line forms per computer shell. */
public class StartCommandTest {
    private static final String PKG = "dev.voicegateway.app";
    private static final String INNER = "CLASSPATH=$(pm path dev.voicegateway.app | cut -d: -f2) setsid nohup app_process /system/bin "
            + "dev.voicegateway.app.helper.AudioHelper --uid 10234 --package dev.voicegateway.app >/dev/null 2>&1 &";

    @Test
    public void runsTheHelperFromTheInstalledApkDetachedFromAdb() {
        assertEquals(INNER, StartCommand.shell(PKG, 10234));
        assertEquals("adb shell\n" + INNER + "\nexit", StartCommand.steps(PKG, 10234));
    }

    @Test(expected = IllegalArgumentException.class)
    public void aPackageNameCannotSmuggleShellIntoTheCommand() {
        StartCommand.shell("dev.voicegateway.app'; reboot; '", 10234);
    }

    @Test(expected = IllegalArgumentException.class)
    public void onlyAnAppsUidMayBeNamed() {
        StartCommand.shell("dev.voicegateway.app", 2000);
    }

    /** A real POSIX shell runs the line; a stand-in adb prints the arguments it was given. */
    @Test
    public void thePosixFormHandsAdbTheCommandUntouched() throws Exception {
        File dir = new File(System.getProperty("java.io.tmpdir"), "vg-adb-" + System.nanoTime());
        assertTrue(dir.mkdirs());
        File adb = new File(dir, "adb");
        FileOutputStream out = new FileOutputStream(adb);
        out.write("#!/bin/sh\nfor a in \"$@\"; do printf '[%s]' \"$a\"; done\n".getBytes("UTF-8"));
        out.close();
        assertTrue(adb.setExecutable(true));
        ProcessBuilder pb = new ProcessBuilder("/bin/sh", "-c", StartCommand.posix(PKG, 10234));
        pb.environment().put("PATH", dir.getAbsolutePath() + File.pathSeparator + System.getenv("PATH"));
        pb.redirectErrorStream(true);
        Process p = pb.start();
        String printed = readAll(p.getInputStream());
        assertEquals(0, p.waitFor());
        assertEquals("[shell][" + INNER + "]", printed);
        adb.delete();
        dir.delete();
    }

    /**
     * cmd.exe, by its documented rules: % expands everywhere, " toggles quoting, and outside quotes
     * &amp; | &lt; &gt; ^ end or redirect the command; then adb's C runtime splits the line into argv.
     */
    @Test
    public void theCmdFormHandsAdbTheCommandUntouched() {
        assertEquals(list("adb", "shell", INNER), cmdExe(StartCommand.cmd(PKG, 10234)));
    }

    /** PowerShell: '…' is literal (only '' inside is special); outside it $ ( ) ; &amp; | &gt; are syntax. */
    @Test
    public void thePowerShellFormHandsAdbTheCommandUntouched() {
        assertEquals(list("adb", "shell", INNER), powerShell(StartCommand.powerShell(PKG, 10234)));
    }

    /** The forms that do not fit their shell are refused by the same models (the models can fail). */
    @Test
    public void theModelsRefuseTheWrongForms() {
        try {
            cmdExe(StartCommand.posix(PKG, 10234));
            throw new AssertionError("cmd would split the single-quoted form at |");
        } catch (IllegalStateException expected) {
            // cmd has no single quotes
        }
        try {
            powerShell(StartCommand.cmd(PKG, 10234));
            throw new AssertionError("PowerShell expands $( ) inside double quotes");
        } catch (IllegalStateException expected) {
            // "…$(…)…" is an expandable string
        }
    }

    private static List<String> cmdExe(String line) {
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '%') throw new IllegalStateException("cmd expands % at " + i);
            if (c == '"') quoted = !quoted;
            else if (!quoted && "&|<>^".indexOf(c) >= 0) throw new IllegalStateException("cmd treats " + c + " as syntax at " + i);
        }
        // The C runtime's argv rules, without backslashes (the line has none).
        assertTrue(line.indexOf('\\') < 0);
        List<String> args = new ArrayList<String>();
        StringBuilder cur = new StringBuilder();
        boolean inArg = false;
        quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '"') {
                quoted = !quoted;
                inArg = true;
            } else if (c == ' ' && !quoted) {
                if (inArg) args.add(cur.toString());
                cur.setLength(0);
                inArg = false;
            } else {
                cur.append(c);
                inArg = true;
            }
        }
        if (inArg) args.add(cur.toString());
        return args;
    }

    private static List<String> powerShell(String line) {
        List<String> args = new ArrayList<String>();
        StringBuilder cur = new StringBuilder();
        boolean inArg = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '\'') {
                int end = line.indexOf('\'', i + 1);
                if (end < 0) throw new IllegalStateException("unterminated string");
                cur.append(line, i + 1, end);
                inArg = true;
                i = end;
            } else if (c == '"') {
                int end = line.indexOf('"', i + 1);
                String s = line.substring(i + 1, end);
                if (s.contains("$") || s.contains("`")) throw new IllegalStateException("PowerShell expands " + s);
                cur.append(s);
                inArg = true;
                i = end;
            } else if (c == ' ') {
                if (inArg) args.add(cur.toString());
                cur.setLength(0);
                inArg = false;
            } else if ("$();&|<>{}@#`".indexOf(c) >= 0) {
                throw new IllegalStateException("PowerShell treats " + c + " as syntax at " + i);
            } else {
                cur.append(c);
                inArg = true;
            }
        }
        if (inArg) args.add(cur.toString());
        // PowerShell passes an argument with spaces to a native program in double quotes; before 7.3
        // a " inside it is not escaped, so the command must hold none.
        for (String a : args) assertTrue(a.indexOf('"') < 0);
        return args;
    }

    private static List<String> list(String... items) {
        List<String> l = new ArrayList<String>();
        for (String s : items) l.add(s);
        return l;
    }

    private static String readAll(InputStream in) throws Exception {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        byte[] b = new byte[4096];
        int n;
        while ((n = in.read(b)) > 0) buf.write(b, 0, n);
        return buf.toString("UTF-8");
    }
}
