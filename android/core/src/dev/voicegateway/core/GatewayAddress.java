package dev.voicegateway.core;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * The gateway's base address ({@code http(s)://host[:port][/prefix]}) and the endpoints under it,
 * as the Node simulator's endpointUrl builds them: https:// pairs with wss://.
 */
public final class GatewayAddress {
    private final String scheme;
    private final String authority;
    private final String prefix;

    private GatewayAddress(String scheme, String authority, String prefix) {
        this.scheme = scheme;
        this.authority = authority;
        this.prefix = prefix;
    }

    /** Accepts http://, https://, ws:// and wss:// with a host; throws with a sentence a person can act on. */
    public static GatewayAddress parse(String text) throws IllegalArgumentException {
        if (text == null || text.trim().isEmpty()) throw new IllegalArgumentException("The gateway address is empty.");
        String t = text.trim();
        if (!t.contains("://")) throw new IllegalArgumentException("The gateway address must start with http:// or https:// (got " + t + ").");
        URI uri;
        try {
            uri = new URI(t);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("The gateway address is not a valid address: " + t);
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        boolean secure;
        if (scheme.equals("http") || scheme.equals("ws")) secure = false;
        else if (scheme.equals("https") || scheme.equals("wss")) secure = true;
        else throw new IllegalArgumentException("The gateway address must start with http:// or https:// (got " + t + ").");
        if (uri.getHost() == null || uri.getHost().isEmpty()) throw new IllegalArgumentException("The gateway address has no host name: " + t);
        if (uri.getRawUserInfo() != null) throw new IllegalArgumentException("The gateway address must not contain a user name or password.");
        String path = uri.getRawPath() == null ? "" : uri.getRawPath();
        while (path.endsWith("/")) path = path.substring(0, path.length() - 1);
        return new GatewayAddress(secure ? "https" : "http", uri.getRawAuthority(), path);
    }

    public boolean isSecure() {
        return scheme.equals("https");
    }

    /** The base address as a person reads it, e.g. {@code http://192.168.1.20:8080}. */
    public String base() {
        return scheme + "://" + authority + prefix;
    }

    public String http(String path) {
        return base() + path;
    }

    public URI ws(String path) {
        try {
            return new URI((isSecure() ? "wss" : "ws") + "://" + authority + prefix + path);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String toString() {
        return base();
    }
}
