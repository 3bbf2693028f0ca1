package io.github.bizlock.autoconfigure;

import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanWrapper;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.core.NestedExceptionUtils;

/**
 * The lock database did not answer at start-up, when bizlock connects to detect the server.
 * {@link LockDatabaseUnreachableFailureAnalyzer} reports it.
 */
final class LockDatabaseUnreachableException extends IllegalStateException {

    private final @Nullable String url;
    private final String reason;

    /**
     * @param url the lock DataSource's JDBC URL, when it tells it
     * @param reason what the driver said, e.g. {@code Connection refused}
     * @param cause the failed connection attempt
     */
    LockDatabaseUnreachableException(@Nullable String url, String reason, Throwable cause) {
        super(
                "bizlock could not connect to the lock database" + (url != null ? " at " + url : "") + ": " + reason,
                cause);
        this.url = url;
        this.reason = reason;
    }

    /** The failure of a first connection to the given DataSource. */
    static LockDatabaseUnreachableException of(DataSource dataSource, Throwable failure) {
        return new LockDatabaseUnreachableException(jdbcUrl(dataSource), reason(failure), failure);
    }

    /** The URL of a pool or driver DataSource (Hikari's jdbcUrl, most others' url); passwords are never read. */
    private static @Nullable String jdbcUrl(DataSource dataSource) {
        BeanWrapper bean = new BeanWrapperImpl(dataSource);
        for (String property : List.of("jdbcUrl", "url")) {
            try {
                if (bean.isReadableProperty(property) && bean.getPropertyValue(property) instanceof String url) {
                    return url;
                }
            } catch (RuntimeException ex) {
                // A getter that fails tells nothing; the report goes without the URL.
            }
        }
        return null;
    }

    /** What the driver said, and the network's word under it (e.g. "Connection refused") when it adds one. */
    private static String reason(Throwable failure) {
        Throwable driver = failure;
        while (!(driver instanceof SQLException) && driver.getCause() != null) {
            driver = driver.getCause();
        }
        String reason = String.valueOf(driver.getMessage());
        Throwable root = NestedExceptionUtils.getMostSpecificCause(failure);
        if (root != driver && root.getMessage() != null && !reason.contains(root.getMessage())) {
            reason += " (" + root.getMessage() + ")";
        }
        return reason;
    }

    @Nullable
    String url() {
        return url;
    }

    String reason() {
        return reason;
    }
}
