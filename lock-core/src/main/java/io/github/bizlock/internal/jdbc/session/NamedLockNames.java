package io.github.bizlock.internal.jdbc.session;

import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LockSchema;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * The names NAMED locks have on the server: the lowercase hex SHA-256 of schema, table, name and key joined by NUL, 64
 * characters, which MySQL (at most 64, case-insensitive) and MariaDB (case-sensitive) treat alike, so {@code Order} and
 * {@code order} stay distinct locks on both. Named locks belong to the server, not to a schema: the schema (read once,
 * lower-cased, so that a server that ignores case never splits one schema in two) and the table keep applications on
 * one server apart. With a secret the hash is an HMAC-SHA256 keyed by it, so that an account that knows a key (an
 * e-mail address, an order id) cannot compute its lock's name to probe it with {@code IS_USED_LOCK} or block it with
 * {@code GET_LOCK}.
 */
final class NamedLockNames {

    private static final String HMAC = "HmacSHA256";

    /** {@code schema \0 table \0}, the start of every hashed lock name. */
    private final byte[] scope;

    private final @Nullable SecretKeySpec secret;

    private NamedLockNames(byte[] scope, @Nullable SecretKeySpec secret) {
        this.scope = scope;
        this.secret = secret;
    }

    /**
     * Reads the lock tables' schema once, on the lock DataSource.
     *
     * @param secret what the names are keyed by, the same for every instance of the application; {@code null} for
     *     none
     */
    static NamedLockNames of(LockSchema schema, @Nullable String secret) {
        if (secret != null && secret.isBlank()) {
            throw new IllegalArgumentException("The NAMED lock secret must not be blank; give every instance of the"
                    + " application the same random text, or none");
        }
        return scoped("", schema, secret);
    }

    /**
     * The names of LEASE's wake locks ({@link WakeLocks}): hashed in a domain of their own, so that a wake lock is never
     * a NAMED lock of the same key, and without a secret (an account that holds one only slows the key's waiters down
     * to a re-check a second).
     */
    static NamedLockNames wake(LockSchema schema) {
        return scoped("bizlock-wake\0", schema, null);
    }

    private static NamedLockNames scoped(String domain, LockSchema schema, @Nullable String secret) {
        byte[] scope = (domain + schema.schemaName() + '\0' + schema.table() + '\0')
                .toLowerCase(Locale.ROOT)
                .getBytes(StandardCharsets.UTF_8);
        return new NamedLockNames(
                scope, secret != null ? new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), HMAC) : null);
    }

    /** The name passed to {@code GET_LOCK} for a lock. */
    String of(LockKey key) {
        byte[] lock = (key.name() + '\0' + key.key()).getBytes(StandardCharsets.UTF_8);
        try {
            byte[] hash;
            if (secret == null) {
                MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
                sha256.update(scope);
                hash = sha256.digest(lock);
            } else {
                Mac hmac = Mac.getInstance(HMAC);
                hmac.init(secret);
                hmac.update(scope);
                hash = hmac.doFinal(lock);
            }
            return HexFormat.of().formatHex(hash);
        } catch (NoSuchAlgorithmException | InvalidKeyException ex) {
            throw new IllegalStateException("SHA-256 or " + HMAC + " is missing from this JVM", ex);
        }
    }
}
