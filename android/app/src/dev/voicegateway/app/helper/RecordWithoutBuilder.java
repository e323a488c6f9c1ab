package dev.voicegateway.app.helper;

import android.content.Context;
import android.media.AudioAttributes;
import android.media.AudioFormat;
import android.media.AudioRecord;
import android.os.Looper;
import android.os.Parcel;
import dev.voicegateway.app.compat.ShellContext;
import java.lang.ref.WeakReference;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/**
 * An AudioRecord made without AudioRecord.Builder or its public constructors, for the phones whose
 * modified AudioRecord throws NullPointerException there because it expects a real app's Context
 * (Vivo: scrcpy's issues 3805 and 3862). It does what frameworks/base AudioRecord's constructor
 * does, field by field, through the hidden AudioRecord(long) constructor and native_setup; the way
 * is scrcpy's Workarounds.createAudioRecord. native_setup's parameters differ by version (read from
 * the method itself, not assumed from the API level): up to Android 11 the op package name as a
 * String; from 12 the AttributionSource as a Parcel and maxSharedAudioHistoryMs; from 14 also
 * halInputFlags. Mono, 16-bit PCM. Called only when the core's CallAudioOpener asks for it.
 */
final class RecordWithoutBuilder {
    private RecordWithoutBuilder() {
    }

    static AudioRecord make(int source, int rate, int bufferBytes, Context context) throws Exception {
        try {
            return build(source, rate, bufferBytes, context);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception) throw (Exception) cause;
            throw e;
        }
    }

    private static AudioRecord build(int source, int rate, int bufferBytes, Context context) throws Exception {
        // AudioRecord(long nativeRecordInJavaObj) (hidden): an object whose native side is not set up yet.
        Constructor<AudioRecord> ctor = AudioRecord.class.getDeclaredConstructor(long.class);
        ctor.setAccessible(true);
        AudioRecord record = ctor.newInstance(0L);
        ShellEnvironment.set(AudioRecord.class, record, "mRecordingState", AudioRecord.RECORDSTATE_STOPPED);
        Looper looper = Looper.myLooper() != null ? Looper.myLooper() : Looper.getMainLooper();
        ShellEnvironment.set(AudioRecord.class, record, "mInitializationLooper", looper);

        // AudioAttributes.Builder setInternalCapturePreset(int) (hidden): VOICE_DOWNLINK is a capture preset, not a usage.
        AudioAttributes.Builder attributes = new AudioAttributes.Builder();
        AudioAttributes.Builder.class.getMethod("setInternalCapturePreset", int.class).invoke(attributes, source);
        AudioAttributes built = attributes.build();
        ShellEnvironment.set(AudioRecord.class, record, "mAudioAttributes", built);

        int encoding = AudioFormat.ENCODING_PCM_16BIT;
        // private void audioParamCheck(int audioSource, int sampleRateInHz, int audioFormat): sets mRecordSource, mSampleRate, mAudioFormat.
        hidden("audioParamCheck", int.class, int.class, int.class).invoke(record, source, rate, encoding);
        ShellEnvironment.set(AudioRecord.class, record, "mChannelCount", 1);
        ShellEnvironment.set(AudioRecord.class, record, "mChannelMask", AudioFormat.CHANNEL_IN_MONO);
        // private void audioBuffSizeCheck(int audioBufferSize): sets mNativeBufferSizeInBytes.
        hidden("audioBuffSizeCheck", int.class).invoke(record, bufferBytes);

        int[] rates = {rate};
        int[] session = {0}; // AudioManager.AUDIO_SESSION_ID_GENERATE
        int result = setup(record, built, rates, bufferBytes, session, context);
        if (result != AudioRecord.SUCCESS) {
            // What AudioRecord.Builder.build throws for a record that did not initialise.
            throw new UnsupportedOperationException("native_setup of the AudioRecord returned " + result);
        }
        ShellEnvironment.set(AudioRecord.class, record, "mSampleRate", rates[0]);
        ShellEnvironment.set(AudioRecord.class, record, "mSessionId", session[0]);
        ShellEnvironment.set(AudioRecord.class, record, "mState", AudioRecord.STATE_INITIALIZED);
        return record;
    }

    /** native_setup, in whichever of its three shapes this Android has. */
    private static int setup(AudioRecord record, AudioAttributes attributes, int[] rates, int bufferBytes, int[] session, Context context)
            throws Exception {
        Method setup = null;
        for (Method m : AudioRecord.class.getDeclaredMethods()) {
            if (m.getName().equals("native_setup") && knownShape(m.getParameterTypes())) setup = m;
        }
        if (setup == null) throw new NoSuchMethodException("AudioRecord.native_setup of a known shape");
        setup.setAccessible(true);
        Class<?>[] types = setup.getParameterTypes();
        Object self = new WeakReference<AudioRecord>(record);
        int mask = AudioFormat.CHANNEL_IN_MONO;
        int format = record.getAudioFormat();
        if (types.length == 10 && types[8] == String.class) {
            // native_setup(Object this, Object attributes, int[] sampleRate, int channelMask, int channelIndexMask,
            //     int audioFormat, int buffSizeInBytes, int[] sessionId, String opPackageName, long nativeRecordInJavaObj)   (API 30)
            return (Integer) setup.invoke(record, self, attributes, rates, mask, 0, format, bufferBytes, session, ShellContext.SHELL_PACKAGE, 0L);
        }
        if (context == null) throw new UnsupportedOperationException("no shell Context to attribute the recording to");
        // Context.getAttributionSource() (API 31), then AttributionSource.asScopedParcelState() (hidden),
        // an AutoCloseable holding the Parcel that native_setup reads.
        Object source = Context.class.getMethod("getAttributionSource").invoke(context);
        Method scoped = source.getClass().getDeclaredMethod("asScopedParcelState");
        scoped.setAccessible(true);
        AutoCloseable state = (AutoCloseable) scoped.invoke(source);
        try {
            Method getParcel = state.getClass().getDeclaredMethod("getParcel");
            getParcel.setAccessible(true);
            Parcel parcel = (Parcel) getParcel.invoke(state);
            if (types.length == 11) {
                // ..., Parcel attributionSource, long nativeRecordInJavaObj, int maxSharedAudioHistoryMs)   (API 31 to 33)
                return (Integer) setup.invoke(record, self, attributes, rates, mask, 0, format, bufferBytes, session, parcel, 0L, 0);
            }
            // ..., int maxSharedAudioHistoryMs, int halInputFlags)   (API 34+)
            return (Integer) setup.invoke(record, self, attributes, rates, mask, 0, format, bufferBytes, session, parcel, 0L, 0, 0);
        } finally {
            state.close();
        }
    }

    /** One of the three shapes of native_setup above (a vendor may add others). */
    private static boolean knownShape(Class<?>[] types) {
        if (types.length == 10) return types[8] == String.class;
        return (types.length == 11 || types.length == 12) && types[8] == Parcel.class;
    }

    private static Method hidden(String name, Class<?>... types) throws NoSuchMethodException {
        Method m = AudioRecord.class.getDeclaredMethod(name, types);
        m.setAccessible(true);
        return m;
    }
}
