package dev.voicegateway.app.ui;

import android.Manifest;
import android.app.Activity;
import android.content.Intent;
import android.content.pm.PackageManager;
import android.hardware.Camera;
import android.os.Bundle;
import android.os.Handler;
import android.os.Looper;
import android.view.SurfaceHolder;
import android.view.SurfaceView;
import android.view.View;
import android.widget.TextView;
import dev.voicegateway.app.R;
import dev.voicegateway.core.PairLink;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;

/**
 * Scans the gateway's pairing QR code with the camera (android.hardware.Camera, which every
 * Android from 5 to 14 still has) and returns the voicegateway://pair link it holds. One preview
 * frame at a time is decoded on a worker thread; the next is asked for once that one is done.
 */
@SuppressWarnings("deprecation")
public final class ScanActivity extends Activity implements SurfaceHolder.Callback, Camera.PreviewCallback {
    public static final String EXTRA_LINK = "link";
    private static final int REQUEST_CAMERA = 1;
    private static final String STATE_ASKED = "askedCamera";
    /** After a QR code that is not a pairing code, wait before reading the next one. */
    private static final long RETRY_AFTER_WRONG_CODE_MS = 1500;

    private final Handler handler = new Handler(Looper.getMainLooper());
    private final QrDecoder decoder = new QrDecoder();
    private ExecutorService worker;
    private SurfaceHolder holder;
    private TextView hint;
    private Camera camera;
    private int frameWidth, frameHeight;
    private boolean surfaceReady;
    /**
     * The camera was asked for once in this screen's life. Asking opens the system's permission
     * activity, which pauses and resumes this one (Activity.requestPermissions starts it with
     * startActivityForResult): asking again in onResume after a denial loops, and after "don't
     * ask again" the system answers at once, so the loop spins. Ask once; then offer the settings.
     */
    private boolean askedCamera;
    private volatile boolean done;

    private final Runnable nextFrame = new Runnable() {
        @Override
        public void run() {
            if (camera != null && !done) camera.setOneShotPreviewCallback(ScanActivity.this);
        }
    };

    @Override
    protected void onCreate(Bundle savedInstanceState) {
        super.onCreate(savedInstanceState);
        askedCamera = savedInstanceState != null && savedInstanceState.getBoolean(STATE_ASKED);
        setContentView(R.layout.activity_scan);
        hint = (TextView) findViewById(R.id.scan_hint);
        holder = ((SurfaceView) findViewById(R.id.scan_preview)).getHolder();
        holder.addCallback(this);
        findViewById(R.id.scan_cancel).setOnClickListener(new View.OnClickListener() {
            @Override
            public void onClick(View v) {
                finish();
            }
        });
    }

    @Override
    protected void onResume() {
        super.onResume();
        worker = Executors.newSingleThreadExecutor(new ThreadFactory() {
            @Override
            public Thread newThread(Runnable r) {
                Thread t = new Thread(r, "vg-qr");
                t.setDaemon(true);
                return t;
            }
        });
        if (checkSelfPermission(Manifest.permission.CAMERA) == PackageManager.PERMISSION_GRANTED) {
            hint.setOnClickListener(null);
            if (surfaceReady) openCamera();
        } else if (!askedCamera) {
            askedCamera = true;
            requestPermissions(new String[] {Manifest.permission.CAMERA}, REQUEST_CAMERA);
        } else {
            offerSettings();
        }
    }

    @Override
    protected void onSaveInstanceState(Bundle out) {
        super.onSaveInstanceState(out);
        out.putBoolean(STATE_ASKED, askedCamera);
    }

    /** After a denial: say so, and let a tap open this app's page in Settings to allow the camera. */
    private void offerSettings() {
        hint.setText(R.string.scan_no_permission);
        hint.setOnClickListener(new View.OnClickListener() {
            @Override
            public void onClick(View v) {
                // Settings.ACTION_APPLICATION_DETAILS_SETTINGS with a package: URI (API 9).
                Intent settings = new Intent(android.provider.Settings.ACTION_APPLICATION_DETAILS_SETTINGS,
                        android.net.Uri.fromParts("package", getPackageName(), null));
                try {
                    startActivity(settings);
                } catch (android.content.ActivityNotFoundException e) {
                    hint.setText(R.string.scan_no_permission);
                }
            }
        });
    }

    @Override
    protected void onPause() {
        closeCamera();
        worker.shutdownNow();
        super.onPause();
    }

    @Override
    public void onRequestPermissionsResult(int requestCode, String[] permissions, int[] grantResults) {
        if (grantResults.length > 0 && grantResults[0] == PackageManager.PERMISSION_GRANTED) {
            if (surfaceReady) openCamera();
        } else {
            offerSettings();
        }
    }

    @Override
    public void surfaceCreated(SurfaceHolder h) {
        surfaceReady = true;
        if (checkSelfPermission(Manifest.permission.CAMERA) == PackageManager.PERMISSION_GRANTED) openCamera();
    }

    @Override
    public void surfaceChanged(SurfaceHolder h, int format, int width, int height) {
    }

    @Override
    public void surfaceDestroyed(SurfaceHolder h) {
        surfaceReady = false;
        closeCamera();
    }

    private void openCamera() {
        if (camera != null) return;
        try {
            int id = backCamera();
            if (id < 0) {
                hint.setText(R.string.scan_no_camera);
                return;
            }
            camera = Camera.open(id);
            Camera.Parameters params = camera.getParameters();
            List<String> focus = params.getSupportedFocusModes();
            if (focus != null && focus.contains(Camera.Parameters.FOCUS_MODE_CONTINUOUS_PICTURE)) {
                params.setFocusMode(Camera.Parameters.FOCUS_MODE_CONTINUOUS_PICTURE);
            }
            camera.setParameters(params);
            Camera.Size size = camera.getParameters().getPreviewSize();
            frameWidth = size.width;
            frameHeight = size.height;
            Camera.CameraInfo info = new Camera.CameraInfo();
            Camera.getCameraInfo(id, info);
            // The screen is held in portrait (manifest): the back sensor's mounting angle is the rotation.
            camera.setDisplayOrientation(info.orientation % 360);
            camera.setPreviewDisplay(holder);
            camera.startPreview();
            hint.setText(R.string.scan_hint);
            nextFrame.run();
        } catch (IOException | RuntimeException e) {
            // Camera.open throws RuntimeException when another app holds the camera.
            cameraFailed(e);
        }
    }

    private static int backCamera() {
        Camera.CameraInfo info = new Camera.CameraInfo();
        for (int i = 0; i < Camera.getNumberOfCameras(); i++) {
            Camera.getCameraInfo(i, info);
            if (info.facing == Camera.CameraInfo.CAMERA_FACING_BACK) return i;
        }
        return Camera.getNumberOfCameras() > 0 ? 0 : -1;
    }

    private void cameraFailed(Exception e) {
        closeCamera();
        hint.setText(getString(R.string.scan_camera_failed, String.valueOf(e.getMessage())));
    }

    private void closeCamera() {
        handler.removeCallbacks(nextFrame);
        if (camera == null) return;
        try {
            camera.setPreviewCallback(null);
            camera.stopPreview();
        } catch (RuntimeException ignored) {
            // already stopped
        }
        camera.release();
        camera = null;
    }

    @Override
    public void onPreviewFrame(final byte[] data, Camera cam) {
        final int width = frameWidth;
        final int height = frameHeight;
        try {
            worker.execute(new Runnable() {
                @Override
                public void run() {
                    final String text = decoder.decode(data, width, height);
                    handler.post(new Runnable() {
                        @Override
                        public void run() {
                            found(text);
                        }
                    });
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // paused meanwhile
        }
    }

    private void found(String text) {
        if (done || camera == null) return;
        if (text == null) {
            nextFrame.run();
            return;
        }
        try {
            PairLink.parse(text);
            done = true;
            setResult(RESULT_OK, new Intent().putExtra(EXTRA_LINK, text));
            finish();
        } catch (PairLink.Invalid e) {
            boolean appDownload = text.startsWith("http") && text.contains("/app/voice-gateway.apk");
            hint.setText(appDownload ? getString(R.string.scan_app_code) : e.getMessage());
            handler.postDelayed(nextFrame, RETRY_AFTER_WRONG_CODE_MS);
        }
    }
}
