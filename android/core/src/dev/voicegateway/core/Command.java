package dev.voicegateway.core;

import org.json.JSONObject;

/** A {@code command} message of the gateway (the spec's Command). */
public final class Command {
    public final String commandId;
    public final String callId;
    public final String action;
    public final JSONObject payload;

    public Command(String commandId, String callId, String action, JSONObject payload) {
        this.commandId = commandId;
        this.callId = callId;
        this.action = action;
        this.payload = payload == null ? new JSONObject() : payload;
    }
}
