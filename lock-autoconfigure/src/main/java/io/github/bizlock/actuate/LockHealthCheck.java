package io.github.bizlock.actuate;

import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.lock.LockManager;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * What bizlock's health indicator reports, apart from the Actuator types that report it: Spring Boot 4
 * ({@link BizLockHealthIndicator}) and Spring Boot 3.5 (bizlock-spring-boot3-autoconfigure) name them differently.
 * Down when a table is missing or held leases have gone unrenewed for half a lease (this instance is about to lose
 * them); a lock database that does not answer throws, which the indicators report as down with the error.
 */
public final class LockHealthCheck {

    /** Up or down, and the details to show either way, in the order they are shown. */
    public record Result(boolean up, Map<String, Object> details) {}

    private final Supplier<LockDaos> daos;
    private final Supplier<LockManager> managers;

    public LockHealthCheck(LockDaos dao, LockManager manager) {
        this(constant(dao, "dao"), constant(manager, "manager"));
    }

    /**
     * For lock beans created when the lock database first answers: each check gets them, and a supplier that fails
     * (the database does not answer yet) makes the health down with its error.
     */
    public LockHealthCheck(Supplier<LockDaos> dao, Supplier<LockManager> manager) {
        this.daos = Objects.requireNonNull(dao, "dao");
        this.managers = Objects.requireNonNull(manager, "manager");
    }

    private static <T> Supplier<T> constant(T value, String name) {
        Objects.requireNonNull(value, name);
        return () -> value;
    }

    public Result check() {
        LockDaos dao = daos.get();
        LockManager manager = managers.get();
        LocalDateTime databaseTime = dao.leases().databaseTime();
        List<String> missing = dao.schema().missingTables();
        int overdue = manager.overdueRenewalCount();
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("database", dao.dialect().product());
        details.put("databaseTime", databaseTime.toInstant(ZoneOffset.UTC).toString());
        details.put("table", dao.table());
        details.put("instance", manager.instanceId());
        details.put("held", manager.heldCount());
        details.put("waiting", manager.waitingCount());
        details.put("renewed", manager.renewedCount());
        details.put("renewalsOverdue", overdue);
        if (!missing.isEmpty()) {
            details.put("missingTables", missing);
            details.put(
                    "hint",
                    "Let the starter migrate the lock tables (bizlock.migration.enabled=true) or run the DDL that"
                            + " start-up logs");
            return new Result(false, details);
        }
        if (overdue > 0) {
            details.put(
                    "hint",
                    overdue + " held lease(s) have not been renewed for half a lease; the lock database is slow or"
                            + " unreachable from this instance");
            return new Result(false, details);
        }
        return new Result(true, details);
    }
}
