package dev.voicegateway.app.helper;

import android.content.Context;
import android.media.AudioFormat;
import android.media.AudioManager;
import android.media.AudioRecord;
import android.media.AudioTrack;
import android.media.MediaRecorder;
import android.os.Build;
import dev.voicegateway.core.Log;
import dev.voicegateway.core.Protocol;
import dev.voicegateway.core.audio.AudioCapabilities;
import dev.voicegateway.core.audio.FrameAdapter;
import dev.voicegateway.core.helper.CallAudioDiagnostics;
import dev.voicegateway.core.helper.CallAudioEngine;
import dev.voicegateway.core.helper.CallAudioOpener;
import dev.voicegateway.core.helper.CaptureChoice;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/**
 * The call's audio on the phone, as the shell. Which ways to try comes from {@link CaptureChoice}
 * (the remote party from AudioManager's call-audio interception on Android 13+ where the phone
 * allows it, else AudioRecord's VOICE_DOWNLINK on Android 11+; injection only through the
 * interception API); when to try, wait, retry and fall back from {@link CallAudioOpener}. This
 * class only opens one way when asked and reads the audio mode. APIs above 23 and the @SystemApi
 * ones are called by reflection, each with its published signature beside it. None of this has
 * run on a device yet (docs/android.md).
 */
final class AndroidCallAudio implements CallAudioEngine, CallAudioOpener.Platform<AudioRecord, AudioTrack> {
    private static final int[] RATES = {8000, 16000, 48000};

    private final Context context;
    private final Object audioManager;
    private final Log log;
    private final CallAudioDiagnostics diagnostics = new CallAudioDiagnostics();
    private final CallAudioOpener<AudioRecord, AudioTrack> opener;

    AndroidCallAudio(Context context, Log log) {
        this.context = context;
        this.log = log;
        this.audioManager = audioManager(context, log);
        int sdk = Build.VERSION.SDK_INT;
        Boolean interceptable = sdk >= 33 ? isPstnCallAudioInterceptable() : null;
        CaptureChoice.Plan plan = CaptureChoice.choose(sdk, interceptable, recordRates());
        diagnostics.platform(sdk, interceptable, plan);
        ShellEnvironment.report(diagnostics);
        this.opener = new CallAudioOpener<AudioRecord, AudioTrack>(plan, this, CallAudioOpener.SYSTEM_CLOCK, diagnostics);
        log.log(Log.INFO, "Android API " + sdk + ", interceptable=" + interceptable + ", plan " + plan.capture + (plan.inject ? " with injection" : " listen-only"), null);
    }

    @Override
    public AudioCapabilities capabilities() {
        return opener.capabilities();
    }

    @Override
    public String note() {
        return opener.note();
    }

    @Override
    public org.json.JSONObject diagnostics() {
        return diagnostics.toJson();
    }

    @Override
    public Running startCapture(FrameAdapter.FrameSink sink, Ended ended) throws Exception {
        CallAudioOpener.Opened<AudioRecord> opened = opener.capture();
        return new Reader(opened.capture, opened.option.sampleRate, sink, ended, log);
    }

    @Override
    public Injection startInjection() throws Exception {
        final AudioTrack track = opener.injection();
        return new Injection() {
            @Override
            public void write(byte[] frame) {
                // Never blocks: the app paces at 20 ms; a full track drops the frame.
                track.write(frame, 0, Protocol.FRAME_BYTES, AudioTrack.WRITE_NON_BLOCKING);
            }

            @Override
            public void stop() {
                try {
                    track.stop();
                } catch (IllegalStateException e) {
                    // not playing
                }
                track.release();
            }
        };
    }

    // CallAudioOpener.Platform: one way at a time, as the opener asks.

    @Override
    public int audioMode() throws Exception {
        if (audioManager == null) throw new Exception("no AudioManager");
        return ((AudioManager) audioManager).getMode();
    }

    @Override
    public AudioRecord openCapture(CaptureChoice.Option option, boolean withoutBuilder) throws Exception {
        final AudioRecord record;
        if (option.method.equals(AudioCapabilities.CALL_INTERCEPTION)) {
            // @SystemApi @RequiresPermission(CALL_AUDIO_INTERCEPTION) public android.media.AudioRecord
            //     getCallDownlinkExtractionAudioRecord(@NonNull android.media.AudioFormat)   (API 33, 34/system/api/android.txt)
            // Throws IllegalStateException outside a call mode, UnsupportedOperationException where the HAL
            // cannot intercept (frameworks/base AudioManager.java; CallAudioOpener decides what follows).
            record = (AudioRecord) call(audioManager, "getCallDownlinkExtractionAudioRecord", new Class<?>[] {AudioFormat.class},
                    format(option.sampleRate, AudioFormat.CHANNEL_IN_MONO));
        } else if (withoutBuilder) {
            record = RecordWithoutBuilder.make(MediaRecorder.AudioSource.VOICE_DOWNLINK, option.sampleRate, bufferBytes(option.sampleRate), context);
        } else {
            record = downlinkRecord(option.sampleRate);
        }
        if (record.getState() != AudioRecord.STATE_INITIALIZED) {
            record.release();
            // What AudioRecord.Builder.build itself throws for a record that did not initialise (API 23+).
            throw new UnsupportedOperationException("the AudioRecord did not initialise");
        }
        try {
            record.startRecording();
            if (record.getRecordingState() != AudioRecord.RECORDSTATE_RECORDING) {
                throw new UnsupportedOperationException("the AudioRecord did not start recording");
            }
        } catch (RuntimeException e) {
            record.release();
            throw e;
        }
        return record;
    }

    @Override
    public AudioTrack openInjection() throws Exception {
        // @SystemApi @RequiresPermission(CALL_AUDIO_INTERCEPTION) public android.media.AudioTrack
        //     getCallUplinkInjectionAudioTrack(@NonNull android.media.AudioFormat)   (API 33, 34/system/api/android.txt)
        AudioTrack track = (AudioTrack) call(audioManager, "getCallUplinkInjectionAudioTrack", new Class<?>[] {AudioFormat.class},
                format(16000, AudioFormat.CHANNEL_OUT_MONO));
        if (track.getState() != AudioTrack.STATE_INITIALIZED) {
            track.release();
            throw new UnsupportedOperationException("the injection track did not initialise");
        }
        try {
            track.play();
        } catch (RuntimeException e) {
            track.release();
            throw e;
        }
        return track;
    }

    @Override
    public void showShellWindow() {
        ShellEnvironment.showShellWindow(log);
    }

    @Override
    public void closeShellWindow() {
        ShellEnvironment.closeShellWindow(log);
    }

    private AudioRecord downlinkRecord(int rate) throws Exception {
        AudioRecord.Builder b = new AudioRecord.Builder()
                .setAudioSource(MediaRecorder.AudioSource.VOICE_DOWNLINK)
                .setAudioFormat(format(rate, AudioFormat.CHANNEL_IN_MONO));
        int bytes = bufferBytes(rate);
        if (bytes > 0) b.setBufferSizeInBytes(bytes);
        if (Build.VERSION.SDK_INT >= 31 && context != null) {
            // public android.media.AudioRecord.Builder setContext(@NonNull android.content.Context)   (API 31, 34/public/api/android.txt)
            call(b, "setContext", new Class<?>[] {Context.class}, context);
        }
        return b.build();
    }

    /** 200 ms, and at least four of the minimum; a deeper buffer does not add delay. 0 when the rate is not offered. */
    private static int bufferBytes(int rate) {
        int min = AudioRecord.getMinBufferSize(rate, AudioFormat.CHANNEL_IN_MONO, AudioFormat.ENCODING_PCM_16BIT);
        return min > 0 ? Math.max(min * 4, rate / 5 * 2) : 0;
    }

    private static AudioFormat format(int rate, int channels) {
        return new AudioFormat.Builder().setEncoding(AudioFormat.ENCODING_PCM_16BIT).setSampleRate(rate).setChannelMask(channels).build();
    }

    private static int[] recordRates() {
        int n = 0;
        int[] offered = new int[RATES.length];
        for (int rate : RATES) {
            if (AudioRecord.getMinBufferSize(rate, AudioFormat.CHANNEL_IN_MONO, AudioFormat.ENCODING_PCM_16BIT) > 0) offered[n++] = rate;
        }
        return java.util.Arrays.copyOf(offered, n);
    }

    private Boolean isPstnCallAudioInterceptable() {
        try {
            // @SystemApi @RequiresPermission(CALL_AUDIO_INTERCEPTION) public boolean isPstnCallAudioInterceptable()
            //     (API 33, 34/system/api/android.txt)
            return (Boolean) call(audioManager, "isPstnCallAudioInterceptable", new Class<?>[0]);
        } catch (Exception e) {
            log.log(Log.WARN, "isPstnCallAudioInterceptable() failed: " + e, null);
            return null;
        }
    }

    /**
     * An AudioManager whose Context is the shell's, through the hidden constructor
     * AudioManager(Context) (so its calls carry the shell's package); the service's otherwise.
     */
    private static Object audioManager(Context context, Log log) {
        if (context == null) return null;
        try {
            Constructor<AudioManager> make = AudioManager.class.getDeclaredConstructor(Context.class);
            make.setAccessible(true);
            return make.newInstance(context);
        } catch (Exception e) {
            log.log(Log.WARN, "AudioManager(Context) failed (" + e + "); using the system service", null);
            return context.getSystemService(Context.AUDIO_SERVICE);
        }
    }

    /** A (hidden or newer) method by reflection; what the method throws is thrown as it is, for the opener's rules. */
    private static Object call(Object target, String name, Class<?>[] types, Object... args) throws Exception {
        if (target == null) throw new UnsupportedOperationException("no " + (name.startsWith("set") ? "builder" : "AudioManager") + " for " + name);
        Method m = target.getClass().getMethod(name, types);
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception) throw (Exception) cause;
            throw e;
        }
    }

    /** Reads the record on a thread of its own and hands 16 kHz frames to the sink. */
    private static final class Reader implements Running {
        private final AudioRecord record;
        private final Thread thread;
        private volatile boolean running = true;
        /** Whoever sets it first lets go of the record: stop(), or the thread when the record fails under it. */
        private final java.util.concurrent.atomic.AtomicBoolean released = new java.util.concurrent.atomic.AtomicBoolean();

        Reader(final AudioRecord record, int rate, FrameAdapter.FrameSink sink, final Ended ended, final Log log) {
            this.record = record;
            final FrameAdapter.Capture adapter = new FrameAdapter.Capture(rate, sink);
            final short[] buffer = new short[rate / 50]; // 20 ms
            thread = new Thread(new Runnable() {
                @Override
                public void run() {
                    android.os.Process.setThreadPriority(android.os.Process.THREAD_PRIORITY_URGENT_AUDIO);
                    while (running) {
                        int n = record.read(buffer, 0, buffer.length);
                        if (n < 0) {
                            // AudioManager releases an interception record when the mode leaves the call's
                            // (its CallInjectionModeChangedListener); a HAL error ends a downlink record.
                            if (running && released.compareAndSet(false, true)) {
                                log.log(Log.WARN, "AudioRecord.read failed with " + n + "; capture ends", null);
                                record.release();
                                ended.captureEnded("AudioRecord.read returned " + n);
                            }
                            return;
                        }
                        adapter.write(buffer, 0, n);
                    }
                }
            }, "vg-helper-capture");
            thread.start();
        }

        @Override
        public void stop() {
            if (!running) return;
            running = false;
            try {
                record.stop();
            } catch (IllegalStateException e) {
                // not recording
            }
            try {
                thread.join(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (released.compareAndSet(false, true)) record.release();
        }
    }
}
