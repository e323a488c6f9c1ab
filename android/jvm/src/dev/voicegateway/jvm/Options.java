package dev.voicegateway.jvm;

import java.util.Map;

/** The options of `npm run phone:jvm`: the same as `npm run phone`, plus a few for host testing. */
final class Options {
    static final String USAGE = "Usage: npm run phone:jvm -- --url <gateway url> (--code <code> | --token-file <path>) [options]\n"
            + "\n"
            + "Runs the Android app's core on this machine's JVM as a paired phone, with a simulated\n"
            + "telephony: answers commands, reports calls, sends audio. Runs until Ctrl-C.\n"
            + "\n"
            + "  --url <url>           gateway address, http(s)://host:port (or env VOICE_GATEWAY_URL)\n"
            + "  --code <code>         pairing code (POST /v1/pairing or the console)\n"
            + "  --token-file <path>   keeps the device credentials; reused when present, written after pairing\n"
            + "  --name <name>         phone name (default \"Phone simulator (JVM)\")\n"
            + "  --tone <hz>           the remote party plays a sine tone (default 440)\n"
            + "  --wav <file>          the remote party plays a 16 kHz mono 16-bit WAV file, looped\n"
            + "  --silence             the remote party is silent\n"
            + "  --outcome <outcome>   how dials end: answer (default), busy, no-answer, failed\n"
            + "  --ring-ms <ms>        time from dialing to the outcome (default 2000)\n"
            + "  --ring <number>       start an incoming call from <number> once connected\n"
            + "  -h, --help            show this text\n"
            + "\n"
            + "Host testing:\n"
            + "  --state-dir <dir>     where the outbox and calls are kept (default: beside --token-file, else a temp dir)\n"
            + "  --control             read commands and write events as JSON lines on stdin/stdout (logs go to stderr)\n"
            + "  --stamp               stamp each frame like the Node simulator (VGS1, sequence, send time)\n"
            + "  --helper <mode>       the call's audio through the audio helper's bridge to a fake helper on the\n"
            + "                        loopback instead of the tone port: fake, or fake-listen-only\n"
            + "  --trust <pem>         trust this certificate (PEM) for https:// and wss:// besides the JVM's own\n"
            + "  --timings <list>      health=ms,ping=ms,liveness=ms,welcome=ms,backoff=ms,backoffMax=ms,jitterMax=frames,\n"
            + "                        helperRetry=ms,helperPing=ms,helperTimeout=ms,helperHello=ms,helperAudioWaiting=frames\n";

    String url;
    String code;
    String tokenFile;
    String name = "Phone simulator (JVM)";
    String tone;
    String wav;
    boolean silence;
    String outcome = "answer";
    long ringMs = 2000;
    String ring;
    boolean help;
    String stateDir;
    boolean control;
    boolean stamp;
    String trust;
    String timings;
    String helper;

    static final class UsageError extends Exception {
        UsageError(String message) {
            super(message + "\n\n" + USAGE);
        }
    }

    static Options parse(String[] args, Map<String, String> env) throws UsageError {
        Options o = new Options();
        int start = args.length > 0 && args[0].equals("phone") ? 1 : 0;
        for (int i = start; i < args.length; i++) {
            String a = args[i];
            String value = null;
            int eq = a.indexOf('=');
            if (a.startsWith("--") && eq > 0) {
                value = a.substring(eq + 1);
                a = a.substring(0, eq);
            }
            if (a.equals("-h") || a.equals("--help")) o.help = true;
            else if (a.equals("--silence")) o.silence = true;
            else if (a.equals("--control")) o.control = true;
            else if (a.equals("--stamp")) o.stamp = true;
            else {
                if (value == null) {
                    if (i + 1 >= args.length) throw new UsageError("option " + a + " needs a value");
                    value = args[++i];
                }
                if (a.equals("--url")) o.url = value;
                else if (a.equals("--code")) o.code = value;
                else if (a.equals("--token-file")) o.tokenFile = value;
                else if (a.equals("--name")) o.name = value;
                else if (a.equals("--tone")) o.tone = value;
                else if (a.equals("--wav")) o.wav = value;
                else if (a.equals("--outcome")) o.outcome = value;
                else if (a.equals("--ring-ms")) o.ringMs = wholeMs("--ring-ms", value);
                else if (a.equals("--ring")) o.ring = value;
                else if (a.equals("--state-dir")) o.stateDir = value;
                else if (a.equals("--trust")) o.trust = value;
                else if (a.equals("--timings")) o.timings = value;
                else if (a.equals("--helper")) o.helper = value;
                else throw new UsageError("Unknown option '" + a + "'");
            }
        }
        if (o.help) return o;
        if (o.url == null) o.url = env.get("VOICE_GATEWAY_URL");
        if (o.url == null) throw new UsageError("--url is required");
        if (!o.url.matches("(?i)(https?|wss?)://.+")) throw new UsageError("--url must be http(s)://host:port, got " + o.url);
        int sources = (o.tone != null ? 1 : 0) + (o.wav != null ? 1 : 0) + (o.silence ? 1 : 0);
        if (sources > 1) throw new UsageError("choose one of --tone, --wav and --silence");
        if (o.tone != null) {
            double f = toneHz(o.tone);
            if (!(f > 0 && f < 8000)) throw new UsageError("--tone must be a frequency between 0 and 8000 Hz, got " + o.tone);
        }
        if (o.helper != null && !o.helper.matches("fake|fake-listen-only")) throw new UsageError("--helper must be fake or fake-listen-only, got " + o.helper);
        if (!o.outcome.matches("answer|busy|no-answer|failed|manual")) throw new UsageError("--outcome must be one of answer, busy, no-answer, failed");
        if (o.code == null && o.tokenFile == null) throw new UsageError("no credentials: pass --code (and --token-file to keep them)");
        return o;
    }

    static double toneHz(String s) {
        try {
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    private static long wholeMs(String name, String value) throws UsageError {
        try {
            long v = Long.parseLong(value);
            if (v >= 0) return v;
        } catch (NumberFormatException e) {
            // fall through to the error
        }
        throw new UsageError(name + " must be a whole number of ms, got " + value);
    }
}
