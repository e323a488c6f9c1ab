package dev.voicegateway.core;

import java.util.Calendar;
import java.util.GregorianCalendar;
import java.util.Locale;
import java.util.TimeZone;

/** ISO 8601 UTC timestamps with milliseconds, as the protocol writes them (java.time is API 26+). */
public final class Iso8601 {
    private static final TimeZone UTC = TimeZone.getTimeZone("UTC");

    private Iso8601() {
    }

    public static String format(long unixMillis) {
        Calendar c = new GregorianCalendar(UTC, Locale.ROOT);
        c.setTimeInMillis(unixMillis);
        return String.format(Locale.ROOT, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
                c.get(Calendar.YEAR), c.get(Calendar.MONTH) + 1, c.get(Calendar.DAY_OF_MONTH),
                c.get(Calendar.HOUR_OF_DAY), c.get(Calendar.MINUTE), c.get(Calendar.SECOND),
                c.get(Calendar.MILLISECOND));
    }
}
