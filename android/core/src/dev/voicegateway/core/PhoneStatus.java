package dev.voicegateway.core;

/** What the status screen shows, at one moment. Immutable. */
public final class PhoneStatus {
    /** The phone socket's lifecycle. */
    public enum Link {
        /** No credentials: pair first. */
        UNPAIRED,
        /** Paired, but told to stay offline (stopped by hand, or replaced by another connection). */
        STOPPED,
        /** Opening the socket, or waiting for {@code welcome}. */
        CONNECTING,
        /** Welcomed: commands and events flow. */
        CONNECTED,
        /** The last attempt failed; the next one is scheduled. */
        WAITING_TO_RETRY
    }

    public final Link link;
    /** The gateway's address, or null when unpaired. */
    public final String gateway;
    public final String deviceId;
    /** The last problem, for a person to read; null when there is none to show. */
    public final String lastError;
    public final long lastErrorAt;
    /** When the next attempt is due (Unix milliseconds, the phone's clock), while WAITING_TO_RETRY. */
    public final long retryAt;
    /** The call in progress that the gateway knows of, or null. */
    public final CallSummary call;
    public final String audio;
    public final boolean audioCanInject;
    public final boolean streaming;
    public final int outboxSize;

    public PhoneStatus(Link link, String gateway, String deviceId, String lastError, long lastErrorAt, long retryAt,
            CallSummary call, String audio, boolean audioCanInject, boolean streaming, int outboxSize) {
        this.link = link;
        this.gateway = gateway;
        this.deviceId = deviceId;
        this.lastError = lastError;
        this.lastErrorAt = lastErrorAt;
        this.retryAt = retryAt;
        this.call = call;
        this.audio = audio;
        this.audioCanInject = audioCanInject;
        this.streaming = streaming;
        this.outboxSize = outboxSize;
    }

    /** The call in progress, as the in-call and status screens show it. */
    public static final class CallSummary {
        public final String nativeCallId;
        public final String callId;
        public final String direction;
        public final String remoteNumber;
        /** The spec's state: dialing, ringing, active or held. */
        public final String state;

        public CallSummary(String nativeCallId, String callId, String direction, String remoteNumber, String state) {
            this.nativeCallId = nativeCallId;
            this.callId = callId;
            this.direction = direction;
            this.remoteNumber = remoteNumber;
            this.state = state;
        }
    }
}
