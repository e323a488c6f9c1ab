package dev.voicegateway.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import dev.voicegateway.core.ws.HandshakeException;
import dev.voicegateway.core.ws.WebSocketClient;
import java.io.IOException;
import java.net.ConnectException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Executor;
import org.json.JSONObject;
import org.junit.Test;

/** The phone socket's retries, on a manual clock with a gateway that cannot be reached. */
public class GatewayLinkTest {
    private final ManualClock clock = new ManualClock();
    private final List<Long> attempts = new ArrayList<Long>();
    private final List<String> revoked = new ArrayList<String>();
    private IOException failure = new ConnectException("Connection refused");
    private final Credentials credentials = new Credentials(GatewayAddress.parse("http://gw.example:8080"), "phone-1", "token", "");

    private GatewayLink link(PhoneClient.Config config) {
        GatewayLink.Connector refusing = new GatewayLink.Connector() {
            @Override
            public WebSocketClient connect(Credentials c) throws IOException {
                attempts.add(clock.elapsed());
                throw failure;
            }
        };
        Executor inline = new Executor() {
            @Override
            public void execute(Runnable r) {
                r.run();
            }
        };
        return new GatewayLink(config, clock, refusing, inline, new Random(42), Log.NONE, new GatewayLink.Events() {
            public JSONObject hello() {
                return new JSONObject();
            }

            public void onWelcome() {
            }

            public void onMessage(JSONObject message) {
            }

            public void onFrame(byte[] frame) {
            }

            public void onDown() {
            }

            public void onRevoked(String why) {
                revoked.add(why);
            }

            public void onChanged() {
            }
        });
    }

    private static PhoneClient.Config config() {
        PhoneClient.Config c = new PhoneClient.Config();
        c.backoffInitialMs = 1000;
        c.backoffMaxMs = 30000;
        return c;
    }

    @Test
    public void retriesWithDelaysThatDoubleToTheCapEachInTheUpperHalfOfItsStep() {
        GatewayLink link = link(config());
        link.connect(credentials);
        clock.runPending();
        assertEquals(PhoneStatus.Link.WAITING_TO_RETRY, link.state());
        assertTrue(link.lastError(), link.lastError().contains("refused the connection"));
        long wait = link.retryAt() - clock.now();
        assertTrue("the next attempt is announced on the wall clock: in " + wait + " ms", wait >= 500 && wait <= 1000);
        clock.advance(10 * 60 * 1000);
        long base = 1000;
        for (int i = 1; i < 12; i++) {
            long gap = attempts.get(i) - attempts.get(i - 1);
            assertTrue("gap " + i + " = " + gap + " for a step of " + base, gap >= base / 2 && gap <= base);
            base = Math.min(base * 2, 30000);
        }
    }

    @Test
    public void aNetworkChangeRetriesAtOnceAndStopEndsTheRetries() {
        GatewayLink link = link(config());
        link.connect(credentials);
        clock.runPending();
        assertEquals(1, attempts.size());
        link.networkChanged();
        clock.runPending();
        assertEquals("retried without waiting", 2, attempts.size());
        link.stop(WebSocketClient.NORMAL, "stop");
        clock.advance(10 * 60 * 1000);
        assertEquals(2, attempts.size());
        assertEquals(PhoneStatus.Link.STOPPED, link.state());
    }

    @Test
    public void onlyTheGatewaysOwnRefusalOfTheTokenUnpairs() {
        failure = new HandshakeException(401, "refused", "<html>Log in to the Wi-Fi</html>");
        GatewayLink link = link(config());
        link.connect(credentials);
        clock.runPending();
        assertTrue("a captive portal's 401 is retried", revoked.isEmpty());
        assertEquals(PhoneStatus.Link.WAITING_TO_RETRY, link.state());

        failure = new HandshakeException(401, "refused", "{\"error\":{\"code\":\"UNAUTHORIZED\",\"message\":\"The device token is unknown or revoked\"}}");
        clock.advance(2000);
        assertEquals(1, revoked.size());
        assertEquals(PhoneStatus.Link.STOPPED, link.state());
        int before = attempts.size();
        clock.advance(10 * 60 * 1000);
        assertEquals("no retry after the token was refused", before, attempts.size());
        assertNull(link.welcomedSocket());
    }

    /** What the link asked of the app's wake lock and alarm, in order. */
    private static final class Wake implements Wakefulness {
        final List<String> asked = new ArrayList<String>();
        long awakeFor = -1;
        long alarmIn = -1;

        public void stayAwake(long timeoutMs) {
            awakeFor = timeoutMs;
            asked.add("awake " + timeoutMs);
        }

        public void maySleep() {
            awakeFor = -1;
            asked.add("sleep");
        }

        public void alarmIn(long delayMs) {
            alarmIn = delayMs;
            asked.add("alarm " + delayMs);
        }

        public void cancelAlarm() {
            alarmIn = -1;
            asked.add("no alarm");
        }
    }

    /**
     * The clock stops in deep sleep: the retry timer does not fire, however much wall time passes.
     * The alarm the link set wakes it, and the attempt happens then; soon after the loss the CPU is
     * kept awake (with a timeout) across the wait, later only the alarm wakes it.
     */
    @Test
    public void aRetryHeldBackBySleepHappensWhenTheAlarmGoesOff() {
        GatewayLink link = link(config());
        Wake wake = new Wake();
        link.setWakefulness(wake);
        link.connect(credentials);
        clock.runPending();
        assertEquals(PhoneStatus.Link.WAITING_TO_RETRY, link.state());
        long delay = link.retryAt() - clock.now();
        assertEquals("an alarm for the retry", delay, wake.alarmIn);
        assertTrue("awake through the wait, with a timeout: " + wake.awakeFor, wake.awakeFor > delay && wake.awakeFor <= delay + 10000);

        clock.sleep(3 * 60 * 60 * 1000);
        assertEquals("asleep: the timer has not fired", 1, attempts.size());
        link.alarm();
        clock.runPending();
        assertEquals("the alarm brought the attempt", 2, attempts.size());
        assertTrue(wake.alarmIn > 0);
        assertEquals("hours after the loss, only the alarm wakes the phone", -1, wake.awakeFor);

        // An alarm while not waiting (connected, stopped) does nothing.
        link.stop(WebSocketClient.NORMAL, "stop");
        assertEquals(-1, wake.alarmIn);
        link.alarm();
        clock.runPending();
        assertEquals(2, attempts.size());
    }
}
