package dev.voicegateway.app.service;

import android.content.Context;
import android.net.ConnectivityManager;
import android.net.Network;
import android.net.NetworkCapabilities;
import android.net.NetworkRequest;
import dev.voicegateway.core.Log;
import dev.voicegateway.core.ws.WebSocketClient;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;

/**
 * Reaches a gateway on the LAN through the Wi-Fi even when that Wi-Fi has no internet. With mobile
 * data on, Android makes the validated mobile network the default, so an app's sockets leave
 * through it and a 192.168.x.y gateway is unreachable. For a gateway address in a private range
 * ({@link WebSocketClient#isLanAddress}) the socket is bound to the Wi-Fi network before it
 * connects (Network.bindSocket, API 23: it binds the still unconnected socket's descriptor,
 * frameworks/base core/java/android/net/Network.java). The Wi-Fi network is requested
 * (ConnectivityManager.requestNetwork with TRANSPORT_WIFI, CHANGE_NETWORK_STATE) so that the system
 * keeps it up while the default is elsewhere. What the last socket used is shown on the status screen.
 */
public final class LanBinder extends ConnectivityManager.NetworkCallback implements WebSocketClient.SocketBinder {
    private final Context context;
    private final Log log;
    private volatile Network wifi;
    private volatile String lastChoice;

    public LanBinder(Context context, Log log) {
        this.context = context.getApplicationContext();
        this.log = log;
    }

    public void start() {
        try {
            ConnectivityManager connectivity = (ConnectivityManager) context.getSystemService(Context.CONNECTIVITY_SERVICE);
            if (connectivity == null) return;
            NetworkRequest request = new NetworkRequest.Builder().addTransportType(NetworkCapabilities.TRANSPORT_WIFI).build();
            connectivity.requestNetwork(request, this);
        } catch (RuntimeException e) {
            log.log(Log.WARN, "cannot ask for the Wi-Fi network; a gateway on the LAN is reached through the default network", e);
        }
    }

    @Override
    public void onAvailable(Network network) {
        wifi = network;
    }

    @Override
    public void onLost(Network network) {
        if (network.equals(wifi)) wifi = null;
    }

    @Override
    public void bind(Socket socket, InetAddress target) throws IOException {
        Network w = wifi;
        if (WebSocketClient.isLanAddress(target) && w != null) {
            w.bindSocket(socket);
            lastChoice = "wifi";
        } else {
            lastChoice = "default";
        }
    }

    /** "wifi" (bound to the Wi-Fi for a LAN gateway), "default" (the system's choice), or null before any socket. */
    public String lastChoice() {
        return lastChoice;
    }
}
