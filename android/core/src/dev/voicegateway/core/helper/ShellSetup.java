package dev.voicegateway.core.helper;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What the audio helper fills into its hand-made ActivityThread before the audio framework is
 * used, per Android API level, in order (ShellEnvironment on the phone carries it out and reports
 * each step to {@link CallAudioDiagnostics#environmentStep}). The approach is scrcpy's
 * (Genymobile/scrcpy, server Workarounds.apply).
 */
public final class ShellSetup {
    private ShellSetup() {
    }

    /**
     * ActivityThread.mConfigurationController (Android 12+): some Samsung builds read the
     * configuration through it while making the system context, and fail on null (scrcpy's issue
     * 4467); it must be set before getSystemContext. The class does not exist before API 31.
     */
    public static final String CONFIGURATION_CONTROLLER = "ConfigurationController";
    /** ActivityThread.mBoundApplication with the shell's package: ActivityThread.currentPackageName() reads it. */
    public static final String BOUND_APPLICATION = "mBoundApplication";
    /** ActivityThread.getSystemContext(), which the helper's ShellContext wraps. */
    public static final String SYSTEM_CONTEXT = "systemContext";
    /**
     * ActivityThread.mInitialApplication: an Application around the ShellContext. Read by
     * ActivityThread.currentOpPackageName() (the package AudioRecord's constructor gives the audio
     * server before API 31, frameworks/base AudioRecord.getCurrentOpPackageName) and by
     * currentAttributionSource() (AttributionSource.myAttributionSource(), which an AudioRecord or
     * AudioTrack made without a Context uses from API 31, as AudioManager's interception methods
     * make theirs). Without it the recording is attributed to "uid:2000" with no package (API 30)
     * or to whichever package the package manager lists first for the shell's uid.
     */
    public static final String INITIAL_APPLICATION = "mInitialApplication";

    /** The steps for API level {@code sdk}, in the order they must run. */
    public static List<String> steps(int sdk) {
        List<String> steps = new ArrayList<String>();
        if (sdk >= 31) steps.add(CONFIGURATION_CONTROLLER);
        steps.add(BOUND_APPLICATION);
        steps.add(SYSTEM_CONTEXT);
        steps.add(INITIAL_APPLICATION);
        return Collections.unmodifiableList(steps);
    }
}
