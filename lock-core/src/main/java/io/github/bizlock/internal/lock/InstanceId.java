package io.github.bizlock.internal.lock;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * The owner written into lock rows: unique per process, because two processes on one host must not be mistaken for
 * each other. The default is {@code host:pid:random}.
 */
public final class InstanceId {

    public static final int MAX_LENGTH = 128;

    private InstanceId() {}

    /** A new id of the form {@code host:pid:8 random hex digits}. */
    public static String generate() {
        byte[] random = new byte[4];
        new SecureRandom().nextBytes(random);
        String host = hostName();
        String suffix =
                ":" + ProcessHandle.current().pid() + ":" + HexFormat.of().formatHex(random);
        if (host.length() + suffix.length() > MAX_LENGTH) {
            host = host.substring(0, MAX_LENGTH - suffix.length());
        }
        return host + suffix;
    }

    /**
     * Checks a configured id.
     *
     * @throws IllegalArgumentException if it is blank or longer than {@value #MAX_LENGTH} characters
     */
    public static String validate(String id) {
        if (id == null || id.isBlank()) {
            throw new IllegalArgumentException(
                    "The instance id must not be blank; leave it unset to use host:pid:random");
        }
        if (id.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("The instance id is " + id.length() + " characters, more than the "
                    + MAX_LENGTH + " allowed: use a shorter one");
        }
        return id;
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException ex) {
            String fromEnvironment = System.getenv("HOSTNAME");
            return fromEnvironment == null || fromEnvironment.isBlank() ? "unknown-host" : fromEnvironment;
        }
    }
}
