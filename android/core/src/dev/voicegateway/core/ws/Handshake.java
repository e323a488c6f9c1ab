package dev.voicegateway.core.ws;

import dev.voicegateway.core.Base64;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** The HTTP/1.1 upgrade of RFC 6455 section 4, pure apart from the stream it reads. */
public final class Handshake {
    private static final String GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    private static final int MAX_HEADER_BYTES = 16 * 1024;
    private static final int MAX_BODY_BYTES = 64 * 1024;

    private Handshake() {
    }

    /** The Sec-WebSocket-Accept a server must answer to {@code key}. */
    public static String acceptFor(String key) {
        try {
            MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
            return Base64.encode(sha1.digest(Utf8.encode(key + GUID)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is missing", e);
        }
    }

    /** The request text. {@code extraHeaders} must not contain CR or LF (checked). */
    public static String request(URI uri, String key, Map<String, String> extraHeaders) {
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        if (uri.getRawQuery() != null) path += "?" + uri.getRawQuery();
        StringBuilder sb = new StringBuilder();
        sb.append("GET ").append(path).append(" HTTP/1.1\r\n");
        sb.append("Host: ").append(hostHeader(uri)).append("\r\n");
        sb.append("Upgrade: websocket\r\n");
        sb.append("Connection: Upgrade\r\n");
        sb.append("Sec-WebSocket-Key: ").append(key).append("\r\n");
        sb.append("Sec-WebSocket-Version: 13\r\n");
        for (Map.Entry<String, String> h : extraHeaders.entrySet()) {
            String line = h.getKey() + ": " + h.getValue();
            if (line.indexOf('\r') >= 0 || line.indexOf('\n') >= 0) throw new IllegalArgumentException("header with a line break: " + h.getKey());
            sb.append(line).append("\r\n");
        }
        return sb.append("\r\n").toString();
    }

    static String hostHeader(URI uri) {
        String host = uri.getHost();
        if (host.indexOf(':') >= 0 && !host.startsWith("[")) host = "[" + host + "]";
        int port = uri.getPort();
        boolean secure = "wss".equalsIgnoreCase(uri.getScheme());
        if (port == -1 || port == (secure ? 443 : 80)) return host;
        return host + ":" + port;
    }

    /** A response head: status and headers (names lower-cased; a repeated header keeps the last). */
    public static final class Response {
        public final int status;
        public final String reason;
        public final Map<String, String> headers;

        Response(int status, String reason, Map<String, String> headers) {
            this.status = status;
            this.reason = reason;
            this.headers = headers;
        }
    }

    /** Reads the status line and headers, byte by byte so nothing after them is consumed. */
    public static Response readResponse(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) throw new EOFException("the server closed the connection during the upgrade");
            head.write(b);
            if (head.size() > MAX_HEADER_BYTES) throw new IOException("the upgrade response headers are over 16 KiB");
            matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        String[] lines = new String(head.toByteArray(), "ISO-8859-1").split("\r\n");
        String[] status = lines[0].split(" ", 3);
        if (status.length < 2 || !status[0].startsWith("HTTP/1.")) throw new IOException("not an HTTP response: " + lines[0]);
        int code;
        try {
            code = Integer.parseInt(status[1]);
        } catch (NumberFormatException e) {
            throw new IOException("bad HTTP status line: " + lines[0]);
        }
        Map<String, String> headers = new LinkedHashMap<String, String>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
        }
        return new Response(code, status.length > 2 ? status[2] : "", headers);
    }

    /** Throws unless the response accepts the upgrade for {@code key}; a refusal carries its body. */
    public static void check(Response res, String key, InputStream in) throws IOException {
        if (res.status != 101) {
            String body = readBody(res, in);
            throw new HandshakeException(res.status, "the server refused the WebSocket upgrade: HTTP " + res.status + " " + res.reason, body);
        }
        if (!"websocket".equalsIgnoreCase(res.headers.get("upgrade"))) throw new IOException("101 without Upgrade: websocket");
        String connection = res.headers.get("connection");
        if (connection == null || !connection.toLowerCase(Locale.ROOT).contains("upgrade")) throw new IOException("101 without Connection: Upgrade");
        if (!acceptFor(key).equals(res.headers.get("sec-websocket-accept"))) throw new IOException("wrong Sec-WebSocket-Accept");
        if (res.headers.containsKey("sec-websocket-extensions")) throw new IOException("the server chose an extension the client did not offer");
        if (res.headers.containsKey("sec-websocket-protocol")) throw new IOException("the server chose a subprotocol the client did not offer");
    }

    private static String readBody(Response res, InputStream in) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        try {
            String lengthHeader = res.headers.get("content-length");
            int length = lengthHeader != null ? Math.min(Integer.parseInt(lengthHeader.trim()), MAX_BODY_BYTES) : MAX_BODY_BYTES;
            byte[] buf = new byte[4096];
            while (body.size() < length) {
                int n = in.read(buf, 0, Math.min(buf.length, length - body.size()));
                if (n < 0) break;
                body.write(buf, 0, n);
            }
        } catch (IOException e) {
            // The status says what matters; a body cut short is still shown as far as it came.
        } catch (NumberFormatException e) {
            // A malformed Content-Length: no body.
        }
        try {
            return body.toString("UTF-8");
        } catch (java.io.UnsupportedEncodingException e) {
            return "";
        }
    }
}
