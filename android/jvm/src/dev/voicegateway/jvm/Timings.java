package dev.voicegateway.jvm;

import dev.voicegateway.core.PhoneClient;
import dev.voicegateway.core.helper.HelperAudioPort;

/**
 * --timings health=ms,ping=ms,liveness=ms,welcome=ms,backoff=ms,backoffMax=ms and, for the audio
 * helper's bridge, helperRetry=ms,helperPing=ms,helperTimeout=ms,helperHello=ms: shorter intervals for
 * tests; jitterMax=frames and helperAudioWaiting=frames: deeper buffers, so that a busy machine's
 * stalls drop no frame of the audio under test.
 */
final class Timings {
    private Timings() {
    }

    static PhoneClient.Config apply(PhoneClient.Config c, String spec) {
        return apply(c, new HelperAudioPort.Config(), spec);
    }

    static PhoneClient.Config apply(PhoneClient.Config c, HelperAudioPort.Config h, String spec) {
        if (spec == null || spec.isEmpty()) return c;
        for (String part : spec.split(",")) {
            String[] kv = part.split("=", 2);
            if (kv.length != 2) throw new IllegalArgumentException("--timings: expected name=ms, got " + part);
            long ms = Long.parseLong(kv[1].trim());
            String k = kv[0].trim();
            if (k.equals("health")) c.healthIntervalMs = ms;
            else if (k.equals("ping")) c.pingIntervalMs = ms;
            else if (k.equals("liveness")) c.livenessTimeoutMs = ms;
            else if (k.equals("welcome")) c.welcomeTimeoutMs = ms;
            else if (k.equals("probe")) c.probeTimeoutMs = ms;
            else if (k.equals("backoff")) c.backoffInitialMs = ms;
            else if (k.equals("backoffMax")) c.backoffMaxMs = ms;
            else if (k.equals("jitterMax")) c.jitterMaxFrames = (int) ms;
            else if (k.equals("helperRetry")) h.retryMs = ms;
            else if (k.equals("helperPing")) h.pingIntervalMs = ms;
            else if (k.equals("helperTimeout")) h.pingTimeoutMs = ms;
            else if (k.equals("helperHello")) h.helloTimeoutMs = ms;
            else if (k.equals("helperAudioWaiting")) h.audioWaitingFrames = (int) ms;
            else throw new IllegalArgumentException("--timings: unknown name " + k);
        }
        return c;
    }
}
