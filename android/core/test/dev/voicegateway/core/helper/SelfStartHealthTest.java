package dev.voicegateway.core.helper;

import static org.junit.Assert.assertEquals;

import dev.voicegateway.core.Log;
import dev.voicegateway.core.ManualClock;
import dev.voicegateway.core.MemoryStorage;
import java.io.IOException;
import org.junit.Test;

/** health.audio with a Wireless-debugging pairing (issue 24): pairing_required, then stopped once paired. */
public class SelfStartHealthTest {
    @Test
    public void aPairingMakesAStoppedHelperStartableAndAForgottenOneAsksForPairingAgain() {
        HelperLink none = new HelperLink() {
            @Override
            public Connection open() throws IOException {
                throw new IOException("no helper");
            }
        };
        HelperAudioPort port = new HelperAudioPort(none, new MemoryStorage(), new ManualClock(), Log.NONE, new HelperAudioPort.Config());
        assertEquals("pairing_required", port.state());
        port.setSelfStartPaired(true);
        assertEquals("stopped", port.state());
        port.setSelfStartPaired(false);
        assertEquals("pairing_required", port.state());
    }
}
