package dev.voicegateway.app.ui;

import com.google.zxing.BinaryBitmap;
import com.google.zxing.DecodeHintType;
import com.google.zxing.PlanarYUVLuminanceSource;
import com.google.zxing.ReaderException;
import com.google.zxing.common.HybridBinarizer;
import com.google.zxing.qrcode.QRCodeReader;
import java.util.EnumMap;
import java.util.Map;

/**
 * Finds a QR code in one camera preview frame. android.hardware.Camera delivers NV21, whose first
 * width×height bytes are the luminance (Y) plane: exactly what zxing's PlanarYUVLuminanceSource
 * reads, so no conversion is needed. QR codes are found in any rotation, so the sensor's orientation
 * does not matter here. One reader, so one frame at a time.
 */
final class QrDecoder {
    private final QRCodeReader reader = new QRCodeReader();
    private final Map<DecodeHintType, Object> hints = new EnumMap<DecodeHintType, Object>(DecodeHintType.class);

    QrDecoder() {
        hints.put(DecodeHintType.TRY_HARDER, Boolean.TRUE);
    }

    /** The QR code's text, or null when this frame has none that reads. */
    synchronized String decode(byte[] frame, int width, int height) {
        if (frame == null || frame.length < width * height) return null;
        PlanarYUVLuminanceSource source = new PlanarYUVLuminanceSource(frame, width, height, 0, 0, width, height, false);
        try {
            return reader.decode(new BinaryBitmap(new HybridBinarizer(source)), hints).getText();
        } catch (ReaderException e) {
            return null;
        } finally {
            reader.reset();
        }
    }
}
