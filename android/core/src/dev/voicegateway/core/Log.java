package dev.voicegateway.core;

/**
 * Where the core writes what happens (android.util.Log on the phone, stderr on the host).
 * Messages never carry the device token; callId/deviceId are written as "callId=… deviceId=…".
 */
public interface Log {
    int DEBUG = 3;
    int INFO = 4;
    int WARN = 5;
    int ERROR = 6;

    void log(int level, String message, Throwable error);

    /** A log that drops everything. */
    Log NONE = new Log() {
        @Override
        public void log(int level, String message, Throwable error) {
        }
    };
}
