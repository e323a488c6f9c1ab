package dev.voicegateway.app.adb;

import android.content.Context;
import android.net.nsd.NsdManager;
import android.net.nsd.NsdServiceInfo;
import dev.voicegateway.core.Log;
import dev.voicegateway.core.adb.AdbDiscovery;
import dev.voicegateway.core.adb.ResolveQueue;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Finds this phone's own adbd services over mDNS with NsdManager (API 16): _adb-tls-pairing._tcp while
 * "Pair device with pairing code" is open, _adb-tls-connect._tcp while Wireless debugging is on (names
 * from AOSP packages/modules/adb adb_mdns.h; Shizuku's AdbMdns looks for the same). Found services are
 * resolved one at a time ({@link ResolveQueue}: NsdService fails a second concurrent resolve with
 * FAILURE_ALREADY_ACTIVE), and only a service that resolved to one of this phone's own addresses
 * counts ({@link AdbDiscovery#ownPort}): other phones on the Wi-Fi announce the same types. NsdManager
 * calls back on its own thread; everything here is under one lock.
 */
final class NsdDiscovery {
    /** Hears this phone's port of the type (or -1 when it went away). */
    interface Listener {
        void onPort(int port);
    }

    private static final int RETRY_BUSY_MS = 300;

    private final NsdManager nsd;
    private final String type;
    private final Log log;
    private final Listener listener;
    private final ResolveQueue queue = new ResolveQueue();
    private final Map<String, NsdServiceInfo> found = new HashMap<String, NsdServiceInfo>();
    /** Resolved services by name, the newest last (AdbDiscovery.ownPort: the last seen wins). */
    private final LinkedHashMap<String, AdbDiscovery.Service> resolved = new LinkedHashMap<String, AdbDiscovery.Service>();
    private final Set<String> ownAddresses = new HashSet<String>();
    private boolean running;
    private int lastPort = -1;
    private final Object lock = new Object();

    private final NsdManager.DiscoveryListener discovery = new NsdManager.DiscoveryListener() {
        @Override
        public void onStartDiscoveryFailed(String serviceType, int errorCode) {
            log.log(Log.WARN, "mDNS discovery of " + serviceType + " failed to start: " + errorCode, null);
            synchronized (lock) {
                running = false;
            }
        }

        @Override
        public void onStopDiscoveryFailed(String serviceType, int errorCode) {
            log.log(Log.WARN, "mDNS discovery of " + serviceType + " failed to stop: " + errorCode, null);
        }

        @Override
        public void onDiscoveryStarted(String serviceType) {
        }

        @Override
        public void onDiscoveryStopped(String serviceType) {
        }

        @Override
        public void onServiceFound(NsdServiceInfo info) {
            String next;
            synchronized (lock) {
                if (!running) return;
                found.put(info.getServiceName(), info);
                next = queue.found(info.getServiceName());
            }
            resolve(next);
        }

        @Override
        public void onServiceLost(NsdServiceInfo info) {
            synchronized (lock) {
                queue.lost(info.getServiceName());
                found.remove(info.getServiceName());
                resolved.remove(info.getServiceName());
            }
            publish();
        }
    };

    NsdDiscovery(Context context, String type, Log log, Listener listener) {
        this.nsd = (NsdManager) context.getSystemService(Context.NSD_SERVICE);
        this.type = type;
        this.log = log;
        this.listener = listener;
    }

    void start() {
        synchronized (lock) {
            if (running) return;
            running = true;
            ownAddresses.clear();
            ownAddresses.addAll(ownAddresses());
        }
        nsd.discoverServices(type, NsdManager.PROTOCOL_DNS_SD, discovery);
    }

    void stop() {
        synchronized (lock) {
            if (!running) return;
            running = false;
        }
        try {
            nsd.stopServiceDiscovery(discovery);
        } catch (IllegalArgumentException e) {
            // never started (onStartDiscoveryFailed came first)
        }
    }

    /** This phone's port of the type as known now, or -1. */
    int port() {
        synchronized (lock) {
            return lastPort;
        }
    }

    private void resolve(final String name) {
        if (name == null) return;
        NsdServiceInfo info;
        synchronized (lock) {
            info = found.get(name);
        }
        if (info == null) {
            resolve(doneWith(name));
            return;
        }
        nsd.resolveService(info, new NsdManager.ResolveListener() {
            @Override
            public void onResolveFailed(NsdServiceInfo serviceInfo, int errorCode) {
                if (errorCode == NsdManager.FAILURE_ALREADY_ACTIVE) {
                    synchronized (lock) {
                        queue.busy(name);
                    }
                    retryLater();
                    return;
                }
                resolve(doneWith(name));
            }

            @Override
            public void onServiceResolved(NsdServiceInfo serviceInfo) {
                InetAddress host = serviceInfo.getHost();
                synchronized (lock) {
                    if (host != null) {
                        resolved.remove(name);
                        resolved.put(name, new AdbDiscovery.Service(serviceInfo.getServiceType(), host.getHostAddress(), serviceInfo.getPort()));
                    }
                }
                publish();
                resolve(doneWith(name));
            }
        });
    }

    private String doneWith(String name) {
        synchronized (lock) {
            return running ? queue.done(name) : null;
        }
    }

    private void retryLater() {
        Thread t = new Thread(new Runnable() {
            @Override
            public void run() {
                try {
                    Thread.sleep(RETRY_BUSY_MS);
                } catch (InterruptedException e) {
                    return;
                }
                String next;
                synchronized (lock) {
                    next = running ? queue.retry() : null;
                }
                resolve(next);
            }
        }, "vg-nsd-retry");
        t.setDaemon(true);
        t.start();
    }

    private void publish() {
        int port;
        synchronized (lock) {
            // Only this type is discovered here, and NsdServiceInfo reports it in several spellings across
            // versions (a leading or trailing dot, the domain): the discovery's own type is used.
            List<AdbDiscovery.Service> seen = new ArrayList<AdbDiscovery.Service>();
            for (AdbDiscovery.Service s : resolved.values()) seen.add(new AdbDiscovery.Service(type, s.host, s.port));
            port = AdbDiscovery.ownPort(seen, type, ownAddresses);
            if (port == lastPort) return;
            lastPort = port;
        }
        listener.onPort(port);
    }

    private static Set<String> ownAddresses() {
        Set<String> out = new HashSet<String>();
        try {
            Enumeration<NetworkInterface> nics = NetworkInterface.getNetworkInterfaces();
            if (nics == null) return out;
            for (NetworkInterface nic : Collections.list(nics)) {
                for (InetAddress a : Collections.list(nic.getInetAddresses())) out.add(a.getHostAddress());
            }
        } catch (SocketException e) {
            // none known: nothing counts as ours
        }
        return out;
    }
}
