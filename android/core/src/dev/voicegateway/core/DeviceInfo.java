package dev.voicegateway.core;

/** What does not change while the app runs: the app's version and the phone's platform and model. */
public final class DeviceInfo {
    public final String appVersion;
    public final String android;
    public final String model;

    public DeviceInfo(String appVersion, String android, String model) {
        this.appVersion = appVersion;
        this.android = android;
        this.model = model;
    }
}
