package io.github.bizlock.internal.lock;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.SecureRandom;
import java.util.HexFormat;
import org.jspecify.annotations.Nullable;

/**
 * The owner written into lock rows: unique per lock service, because two processes must never be mistaken for each
 * other. The default is {@code host:pid:random}; a configured id gets a random part of its own too ({@code id:random}),
 * since users set it to a name their replicas share (the application's name, a service name), and an acquisition
 * retried after a dropped connection takes back a row naming its own owner ({@code LeaseSql.acquireExistingOrOwn}).
 */
public final class InstanceId {

    public static final int MAX_LENGTH = 128;

    private InstanceId() {}

    /** A new id of the form {@code host:pid:8 random hex digits}. */
    public static String generate() {
        return withSuffix(hostName(), ":" + ProcessHandle.current().pid() + ":" + random());
    }

    /**
     * The owner id of one lock service: {@link #generate()} when none is configured, else the configured id followed by
     * {@code :} and 8 random hex digits, cut to {@value #MAX_LENGTH} characters by shortening the configured part.
     *
     * @throws IllegalArgumentException if the configured id is blank or longer than {@value #MAX_LENGTH} characters
     */
    public static String of(@Nullable String configured) {
        return configured == null ? generate() : withSuffix(validate(configured), ":" + random());
    }

    private static String random() {
        byte[] random = new byte[4];
        new SecureRandom().nextBytes(random);
        return HexFormat.of().formatHex(random);
    }

    private static String withSuffix(String base, String suffix) {
        int room = MAX_LENGTH - suffix.length();
        if (base.length() > room) {
            // Never half of a surrogate pair: the id is written as UTF-8.
            base = base.substring(0, Character.isHighSurrogate(base.charAt(room - 1)) ? room - 1 : room);
        }
        return base + suffix;
    }

    /**
     * Checks a configured id.
     *
     * @throws IllegalArgumentException if it is blank or longer than {@value #MAX_LENGTH} characters
     */
    public static String validate(@Nullable String id) {
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
