package dev.voicegateway.app.service;

import android.content.Context;
import android.net.ConnectivityManager;
import android.net.Network;
import android.net.NetworkCapabilities;
import dev.voicegateway.app.compat.Networks;
import dev.voicegateway.app.platform.AndroidDeviceStatus;
import dev.voicegateway.core.Log;
import dev.voicegateway.core.PhoneClient;

/**
 * Tells the core when the default network changes (another network, its loss, or another transport),
 * so it reports health and retries or re-checks the socket at once instead of waiting for a timeout.
 * Capability updates that change nothing we report (Wi-Fi signal, bandwidth) are ignored: they come
 * often and each would cost a ping and a health report. Callbacks come on a connectivity thread.
 */
public final class NetworkWatcher extends ConnectivityManager.NetworkCallback {
    private final Context context;
    private final PhoneClient client;
    private final Log log;
    private Network current;
    private String type;

    public NetworkWatcher(Context context, PhoneClient client, Log log) {
        this.context = context.getApplicationContext();
        this.client = client;
        this.log = log;
    }

    public void start() {
        try {
            ConnectivityManager connectivity = context.getSystemService(ConnectivityManager.class);
            if (connectivity == null) return;
            synchronized (this) {
                // The callback first reports the network in use now: that is not a change.
                current = connectivity.getActiveNetwork();
                type = AndroidDeviceStatus.networkType(connectivity, current);
            }
            Networks.registerDefaultNetworkCallback(connectivity, this);
        } catch (RuntimeException e) {
            log.log(Log.ERROR, "cannot follow network changes; reconnects wait for their backoff", e);
        }
    }

    @Override
    public void onAvailable(Network network) {
        boolean changed;
        synchronized (this) {
            changed = !network.equals(current);
            current = network;
            if (changed) type = null; // learnt from the capabilities that follow
        }
        if (changed) changed("default network is now " + network);
    }

    @Override
    public void onLost(Network network) {
        boolean changed;
        synchronized (this) {
            changed = network.equals(current);
            if (changed) {
                current = null;
                type = "none";
            }
        }
        if (changed) changed("default network lost");
    }

    @Override
    public void onCapabilitiesChanged(Network network, NetworkCapabilities caps) {
        String now = AndroidDeviceStatus.transport(caps);
        boolean changed;
        synchronized (this) {
            boolean known = type != null;
            changed = network.equals(current) && known && !now.equals(type);
            if (network.equals(current)) type = now;
        }
        if (changed) changed("default network is now " + now);
    }

    private void changed(String what) {
        log.log(Log.INFO, what, null);
        client.networkChanged();
    }
}
