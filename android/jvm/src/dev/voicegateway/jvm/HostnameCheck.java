package dev.voicegateway.jvm;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.cert.Certificate;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.HostnameVerifier;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * The host JVM's hostname check for wss:// (the JDK's default HostnameVerifier accepts nothing; on
 * the phone the platform's verifier is used). RFC 6125 as browsers apply it: subjectAltName only (no
 * common-name fallback), IP literals against iPAddress entries, names case-insensitively, a wildcard
 * only as the whole left-most label and never across a dot.
 */
public final class HostnameCheck implements HostnameVerifier {
    private static final int DNS = 2;
    private static final int IP = 7;

    @Override
    public boolean verify(String host, SSLSession session) {
        try {
            Certificate[] chain = session.getPeerCertificates();
            return chain.length > 0 && chain[0] instanceof X509Certificate && matches(host, (X509Certificate) chain[0]);
        } catch (SSLPeerUnverifiedException e) {
            return false;
        }
    }

    static boolean matches(String host, X509Certificate cert) {
        Collection<List<?>> names;
        try {
            names = cert.getSubjectAlternativeNames();
        } catch (CertificateParsingException e) {
            return false;
        }
        if (names == null) return false;
        boolean ip = isIpLiteral(host);
        for (List<?> entry : names) {
            int type = (Integer) entry.get(0);
            String value = String.valueOf(entry.get(1));
            if (ip && type == IP && sameAddress(host, value)) return true;
            if (!ip && type == DNS && nameMatches(host, value)) return true;
        }
        return false;
    }

    static boolean nameMatches(String host, String pattern) {
        String h = stripDot(host.toLowerCase(Locale.ROOT));
        String p = stripDot(pattern.toLowerCase(Locale.ROOT));
        if (h.isEmpty() || p.isEmpty()) return false;
        if (!p.startsWith("*.")) return h.equals(p);
        if (p.indexOf('*', 1) >= 0) return false;
        String suffix = p.substring(1); // ".example.com"
        if (!h.endsWith(suffix)) return false;
        String first = h.substring(0, h.length() - suffix.length());
        // The wildcard stands for exactly one non-empty label, and a bare "*.tld" is not allowed.
        return !first.isEmpty() && first.indexOf('.') < 0 && suffix.indexOf('.', 1) > 0;
    }

    private static boolean isIpLiteral(String host) {
        return host.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}") || host.indexOf(':') >= 0;
    }

    private static boolean sameAddress(String a, String b) {
        try {
            // Both are literals, so no name is looked up.
            return InetAddress.getByName(a).equals(InetAddress.getByName(b));
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static String stripDot(String s) {
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }
}
