package android.net;

/**
 * Compile-only stub (never packaged). From the excerpts (34/public/api/android.txt):
 *   public class ConnectivityManager
 *   method @RequiresPermission(android.Manifest.permission.ACCESS_NETWORK_STATE) public void registerDefaultNetworkCallback(@NonNull android.net.ConnectivityManager.NetworkCallback);   (API 24)
 *   method @RequiresPermission(android.Manifest.permission.ACCESS_NETWORK_STATE) public void registerNetworkCallback(@NonNull android.net.NetworkRequest, @NonNull android.net.ConnectivityManager.NetworkCallback);
 *   public static class ConnectivityManager.NetworkCallback
 *     ctor public ConnectivityManager.NetworkCallback();
 *     method public void onAvailable(@NonNull android.net.Network);
 *     method public void onCapabilitiesChanged(@NonNull android.net.Network, @NonNull android.net.NetworkCapabilities);
 *     method public void onLost(@NonNull android.net.Network);
 */
public class ConnectivityManager {
    ConnectivityManager() {
        throw new RuntimeException("Stub!");
    }

    public void registerDefaultNetworkCallback(NetworkCallback networkCallback) {
        throw new RuntimeException("Stub!");
    }

    public void registerNetworkCallback(NetworkRequest request, NetworkCallback networkCallback) {
        throw new RuntimeException("Stub!");
    }

    public static class NetworkCallback {
        public NetworkCallback() {
            throw new RuntimeException("Stub!");
        }

        public void onAvailable(Network network) {
            throw new RuntimeException("Stub!");
        }

        public void onCapabilitiesChanged(Network network, NetworkCapabilities networkCapabilities) {
            throw new RuntimeException("Stub!");
        }

        public void onLost(Network network) {
            throw new RuntimeException("Stub!");
        }
    }
}
