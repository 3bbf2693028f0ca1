package io.github.bizlock.internal.engine;

import java.nio.charset.StandardCharsets;

/**
 * A lock's identity: its name (what kind of thing is locked, e.g. {@code order}) and key (which one, e.g. an order
 * id). Both are compared exactly, byte for byte: {@code Order} and {@code order} are different locks.
 *
 * @param name the {@code biz_type} column, at most {@value #MAX_NAME_BYTES} bytes of UTF-8
 * @param key the {@code biz_id} column, at most {@value #MAX_KEY_BYTES} bytes of UTF-8
 */
public record LockKey(String name, String key) {

    public static final int MAX_NAME_BYTES = 128;
    public static final int MAX_KEY_BYTES = 512;

    public LockKey {
        requireText(name, "name", MAX_NAME_BYTES);
        requireText(key, "key", MAX_KEY_BYTES);
    }

    private static void requireText(String value, String what, int maxBytes) {
        if (value == null) {
            throw new IllegalArgumentException("The lock " + what + " must not be null");
        }
        if (value.isBlank()) {
            throw new IllegalArgumentException("The lock " + what + " must not be blank, was '" + value
                    + "'; give every lock a " + what + " that names what it protects");
        }
        int bytes = value.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > maxBytes) {
            throw new IllegalArgumentException("The lock " + what + " is " + bytes + " bytes of UTF-8, more than the "
                    + maxBytes + " allowed: '" + abbreviate(value) + "'; use a shorter " + what
                    + " (for example a hash of the long value)");
        }
    }

    private static String abbreviate(String value) {
        return value.length() <= 40 ? value : value.substring(0, 40) + "...";
    }

    @Override
    public String toString() {
        return name + "/" + key;
    }
}
