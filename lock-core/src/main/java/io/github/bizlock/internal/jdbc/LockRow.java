package io.github.bizlock.internal.jdbc;

import java.time.LocalDateTime;
import org.jspecify.annotations.Nullable;

/**
 * A row of the lease table as the database sees it.
 *
 * @param name the lock's name
 * @param key the lock's key
 * @param owner the holder's instance id, or {@code null} when free
 * @param fencingToken the token of the latest acquisition
 * @param acquiredAt when it was last acquired, UTC database time
 * @param expiresAt when the lease ends (or ended), UTC database time
 * @param held whether an owner holds it and its lease is running, by the database's clock
 */
public record LockRow(
        String name,
        String key,
        @Nullable String owner,
        long fencingToken,
        LocalDateTime acquiredAt,
        LocalDateTime expiresAt,
        boolean held) {}
