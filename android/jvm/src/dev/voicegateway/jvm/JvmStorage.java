package dev.voicegateway.jvm;

import dev.voicegateway.core.FileStorage;
import dev.voicegateway.core.Storage;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The app's private storage on the host: a directory, except that the credentials live in the
 * --token-file, in the same JSON shape as the Node simulator's (mode 0600), so either phone can use
 * the other's file.
 */
final class JvmStorage implements Storage {
    private static final String CREDENTIALS = "credentials.json";
    private final FileStorage dir;
    private final Path tokenFile;

    JvmStorage(File stateDir, File tokenFile) {
        this.dir = new FileStorage(stateDir);
        this.tokenFile = tokenFile == null ? null : tokenFile.toPath().toAbsolutePath();
    }

    private boolean isToken(String name) {
        return tokenFile != null && name.equals(CREDENTIALS);
    }

    @Override
    public String read(String name) throws IOException {
        if (!isToken(name)) return dir.read(name);
        try {
            return new String(Files.readAllBytes(tokenFile), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    @Override
    public void write(String name, String text) throws IOException {
        if (!isToken(name)) {
            dir.write(name, text);
            return;
        }
        Files.createDirectories(tokenFile.getParent());
        Path tmp = tokenFile.resolveSibling(tokenFile.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.write(tmp, text.getBytes(StandardCharsets.UTF_8));
        Files.move(tmp, tokenFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    @Override
    public void append(String name, String text, boolean sync) throws IOException {
        // The credentials are only ever replaced whole; everything else lives in the directory.
        dir.append(name, text, sync);
    }

    @Override
    public void delete(String name) throws IOException {
        if (isToken(name)) Files.deleteIfExists(tokenFile);
        else dir.delete(name);
    }
}
