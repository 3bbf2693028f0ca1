package io.github.bizlock.internal.jdbc;

import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.RowMapper;

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
        boolean held) {

    /** Reads the columns of {@code LeaseSql.find()} and {@code findHeld()}, in their order. */
    static final RowMapper<LockRow> MAPPER = (rs, row) -> new LockRow(
            Objects.requireNonNull(text(rs, 1)),
            Objects.requireNonNull(text(rs, 2)),
            text(rs, 3),
            rs.getLong(4),
            rs.getObject(5, LocalDateTime.class),
            rs.getObject(6, LocalDateTime.class),
            rs.getBoolean(7));

    /** A {@code VARBINARY} column as the UTF-8 text it was bound from. */
    static @Nullable String text(ResultSet rs, int column) throws SQLException {
        byte[] value = rs.getBytes(column);
        return value == null ? null : new String(value, StandardCharsets.UTF_8);
    }
}
