package dev.voicegateway.core;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.SocketTimeoutException;
import java.net.URL;
import java.net.UnknownHostException;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLException;
import org.json.JSONException;
import org.json.JSONObject;

/** {@code POST /v1/phone/pair} (phone-protocol.md section 1): trades a one-time code for the device token. */
public final class PairingClient {
    private static final int TIMEOUT_MS = 10000;
    private static final int MAX_BODY = 64 * 1024;

    private PairingClient() {
    }

    /** Pairing did not happen; the message is meant for the person holding the phone. */
    public static final class Failed extends Exception {
        /** HTTP status, or 0 when the gateway was not reached. */
        public final int status;

        public Failed(int status, String message) {
            super(message);
            this.status = status;
        }
    }

    public static Credentials pair(PairLink link, String name, DeviceInfo info, TlsConfig tls, long nowMillis) throws Failed {
        String where = link.gateway.base();
        String body;
        try {
            body = new JSONObject()
                    .put("code", link.code)
                    .put("name", name)
                    .put("model", info.model)
                    .put("android", info.android)
                    .put("appVersion", info.appVersion)
                    .toString();
        } catch (JSONException e) {
            throw new IllegalStateException(e);
        }
        HttpURLConnection http = null;
        try {
            http = (HttpURLConnection) new URL(link.gateway.http("/v1/phone/pair")).openConnection();
            if (http instanceof HttpsURLConnection) {
                ((HttpsURLConnection) http).setSSLSocketFactory(tls.socketFactory);
                ((HttpsURLConnection) http).setHostnameVerifier(tls.hostnameVerifier);
            }
            http.setConnectTimeout(TIMEOUT_MS);
            http.setReadTimeout(TIMEOUT_MS);
            http.setInstanceFollowRedirects(false);
            http.setRequestMethod("POST");
            http.setRequestProperty("Content-Type", "application/json");
            http.setRequestProperty("Accept", "application/json");
            http.setDoOutput(true);
            byte[] bytes = body.getBytes("UTF-8");
            http.setFixedLengthStreamingMode(bytes.length);
            OutputStream out = http.getOutputStream();
            out.write(bytes);
            out.close();
            int status = http.getResponseCode();
            String text = readBounded(status < 400 ? http.getInputStream() : http.getErrorStream());
            if (status == 200) return credentials(link, text, nowMillis);
            throw refusal(status, text, http.getHeaderField("Retry-After"), where);
        } catch (UnknownHostException e) {
            throw new Failed(0, "Cannot find the gateway's host (" + link.gateway.base() + "). Check the address.");
        } catch (ConnectException e) {
            throw new Failed(0, "The gateway at " + where + " refused the connection. Is it running, and is the port right?");
        } catch (SocketTimeoutException e) {
            throw new Failed(0, "The gateway at " + where + " did not answer within " + TIMEOUT_MS / 1000 + " s.");
        } catch (SSLException e) {
            throw new Failed(0, "TLS with " + where + " failed: " + e.getMessage()
                    + ". The gateway's certificate must be trusted by this phone and name its host.");
        } catch (IOException e) {
            throw new Failed(0, "Could not reach the gateway at " + where + ": " + e.getMessage());
        } finally {
            if (http != null) http.disconnect();
        }
    }

    private static Credentials credentials(PairLink link, String text, long nowMillis) throws Failed {
        try {
            JSONObject o = new JSONObject(text);
            String id = o.getString("deviceId");
            String token = o.getString("deviceToken");
            if (id.isEmpty() || token.isEmpty()) throw new JSONException("empty");
            return new Credentials(link.gateway, id, token, Iso8601.format(nowMillis));
        } catch (JSONException e) {
            throw new Failed(200, "The gateway's answer lacks deviceId or deviceToken. Is this address a Voice Gateway?");
        }
    }

    private static Failed refusal(int status, String text, String retryAfter, String where) {
        String message = null;
        try {
            JSONObject error = new JSONObject(text).optJSONObject("error");
            if (error != null) message = error.optString("message", null);
        } catch (JSONException e) {
            // Not the contract's error body (a proxy page?): the status says enough.
        }
        if (status == 401) return new Failed(status, "The pairing code is unknown, already used or expired. Make a new one on the gateway.");
        if (status == 429) {
            return new Failed(status, "Too many pairing attempts" + (retryAfter != null ? "; try again in " + retryAfter + " s." : "; wait a minute."));
        }
        if (status == 404) return new Failed(status, "No Voice Gateway answers at " + where + " (HTTP 404). Check the address.");
        return new Failed(status, "The gateway refused pairing (HTTP " + status + ")" + (message != null ? ": " + message : "."));
    }

    private static String readBounded(InputStream in) throws IOException {
        if (in == null) return "";
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buf = new byte[4096];
            int n;
            while (out.size() < MAX_BODY && (n = in.read(buf, 0, Math.min(buf.length, MAX_BODY - out.size()))) > 0) out.write(buf, 0, n);
            return out.toString("UTF-8");
        } finally {
            in.close();
        }
    }
}
