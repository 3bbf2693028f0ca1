package io.github.bizlock.internal.engine;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A lock's identity: its name (what kind of thing is locked, e.g. {@code order}) and key (which one, e.g. an order
 * id). Both are compared exactly, byte for byte: {@code Order} and {@code order} are different locks, and so are
 * {@code a} and {@code a } (the columns are {@code VARBINARY}).
 *
 * <p>Two different names or keys must never be one lock in the database, so text that the database cannot tell apart
 * from other text is refused: a lone surrogate (half of a UTF-16 pair, which UTF-8 writes as {@code ?}), and U+0000
 * (NAMED mode joins table, name and key with it before hashing them into a server lock name).
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
        requireWellFormed(value, what);
        int bytes = value.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > maxBytes) {
            throw new IllegalArgumentException("The lock " + what + " is " + bytes + " bytes of UTF-8, more than the "
                    + maxBytes + " allowed: '" + abbreviate(value) + "'; use a shorter " + what
                    + " (for example a hash of the long value)");
        }
    }

    /** Refuses text that would be written to the database as the same bytes as some other text. */
    private static void requireWellFormed(String value, String what) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\0') {
                throw new IllegalArgumentException("The lock " + what + " contains U+0000 (NUL) at index " + i
                        + ", which is not allowed: NAMED locks join name and key with NUL, so 'a\\0b'/'c' and"
                        + " 'a'/'b\\0c' would be one lock; remove it, or encode binary values (for example as hex)");
            }
            if (Character.isHighSurrogate(c)
                    && i + 1 < value.length()
                    && Character.isLowSurrogate(value.charAt(i + 1))) {
                i++; // a well-formed pair: one character outside the Basic Multilingual Plane
            } else if (Character.isSurrogate(c)) {
                throw new IllegalArgumentException("The lock " + what + " contains a lone surrogate U+"
                        + Integer.toHexString(c).toUpperCase(Locale.ROOT) + " at index " + i
                        + " (half of a UTF-16 pair, not a character): UTF-8 has no encoding for it and writes '?'"
                        + " instead, so it would be the same lock as the " + what + " with '?' there; pass"
                        + " well-formed text (was it cut in the middle of a pair, or decoded from bytes with the"
                        + " wrong charset?)");
            }
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
