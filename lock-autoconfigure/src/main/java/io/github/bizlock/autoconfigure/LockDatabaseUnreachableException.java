package io.github.bizlock.autoconfigure;

import io.github.bizlock.service.DatabaseRefusals;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanWrapper;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.beans.BeansException;
import org.springframework.core.NestedExceptionUtils;

/**
 * The lock database did not answer when bizlock connected to detect the server: at start-up, or at a lock before it
 * first answered. {@link LockDatabaseUnreachableFailureAnalyzer} reports it when it fails the start
 * ({@code bizlock.fail-fast}).
 */
final class LockDatabaseUnreachableException extends IllegalStateException {

    /** What a user checks when the lock database does not answer. */
    static final String WHAT_TO_CHECK = "that the database is running and reachable from this host, and that the lock"
            + " DataSource's URL and credentials are right: spring.datasource.url, spring.datasource.username and"
            + " spring.datasource.password, or those of the DataSource bean named by bizlock.datasource";

    private final @Nullable String url;
    private final String reason;

    /**
     * @param url the lock DataSource's JDBC URL, when it tells it, without passwords
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

    /**
     * The URL of a pool or driver DataSource (Hikari's jdbcUrl, most others' url), with the passwords it may carry
     * masked; the DataSource's own password is never read.
     */
    private static @Nullable String jdbcUrl(DataSource dataSource) {
        BeanWrapper bean = new BeanWrapperImpl(dataSource);
        for (String property : List.of("jdbcUrl", "url")) {
            try {
                if (bean.isReadableProperty(property) && bean.getPropertyValue(property) instanceof String url) {
                    return JdbcUrls.redact(url);
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

    /**
     * Whether the server answered, and refused the credentials: a mistake that waiting does not mend, unlike a server
     * that is down.
     */
    boolean credentialsRefused() {
        return DatabaseRefusals.credentialsRefused(this);
    }

    @Nullable
    String url() {
        return url;
    }

    String reason() {
        return reason;
    }

    /**
     * What a lock that could not be had because the lock service could not be built should say: for an unreachable
     * database, where it is and what to check; otherwise the words of the failure bizlock reported (not the bean's
     * wrapping).
     */
    static String whyNotReady(RuntimeException failure) {
        LockDatabaseUnreachableException unreachable = in(failure);
        if (unreachable != null) {
            return unreachable.getMessage() + ". Check " + WHAT_TO_CHECK
                    + ". Locks fail, holding nothing, until it answers.";
        }
        Throwable cause = failure;
        while (cause instanceof BeansException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return "bizlock could not set up its locks: " + cause.getMessage();
    }

    /** The unreachable database among the failure's causes, or {@code null}. */
    static @Nullable LockDatabaseUnreachableException in(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof LockDatabaseUnreachableException unreachable) {
                return unreachable;
            }
        }
        return null;
    }
}
