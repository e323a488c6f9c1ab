package android.telecom;

/**
 * Compile-only stub (never packaged). From the excerpts (34/public/api/android.txt):
 *   public final class Call
 *   public static class Call.Details
 *     method public long getCreationTimeMillis();        (API 26)
 *     method public int getCallDirection();              (API 29)
 *     field public static final int DIRECTION_INCOMING = 0; // 0x0
 *     field public static final int DIRECTION_OUTGOING = 1; // 0x1
 *     field public static final int DIRECTION_UNKNOWN = -1; // 0xffffffff
 */
public final class Call {
    Call() {
        throw new RuntimeException("Stub!");
    }

    public static class Details {
        public static final int DIRECTION_INCOMING = 0;
        public static final int DIRECTION_OUTGOING = 1;
        public static final int DIRECTION_UNKNOWN = -1;

        Details() {
            throw new RuntimeException("Stub!");
        }

        public long getCreationTimeMillis() {
            throw new RuntimeException("Stub!");
        }

        public int getCallDirection() {
            throw new RuntimeException("Stub!");
        }
    }
}
