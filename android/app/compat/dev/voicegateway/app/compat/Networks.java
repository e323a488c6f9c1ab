package dev.voicegateway.app.compat;

import android.net.ConnectivityManager;
import android.net.NetworkRequest;
import android.os.Build;

/** Follows the default network (the one new sockets use), so the phone socket can react to a change. */
public final class Networks {
    private Networks() {
    }

    public static void registerDefaultNetworkCallback(ConnectivityManager connectivity, ConnectivityManager.NetworkCallback callback) {
        if (Build.VERSION.SDK_INT >= 24) {
            connectivity.registerDefaultNetworkCallback(callback);
        } else {
            // Any network with internet: close enough below 24, where there is no default-network callback.
            connectivity.registerNetworkCallback(new NetworkRequest.Builder().build(), callback);
        }
    }
}
