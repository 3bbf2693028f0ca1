package io.github.bizlock.actuate;

import io.github.bizlock.service.BizLockDao;
import io.github.bizlock.service.LockService;
import io.github.bizlock.service.LockStatus;
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

    private final Supplier<LockService> services;

    public LockHealthCheck(LockService service) {
        Objects.requireNonNull(service, "service");
        this.services = () -> service;
    }

    /**
     * For a lock service built when the lock database first answers: each check gets it, and a supplier that fails
     * (the database does not answer yet) makes the health down with its error.
     */
    public LockHealthCheck(Supplier<LockService> service) {
        this.services = Objects.requireNonNull(service, "service");
    }

    public Result check() {
        LockService service = services.get();
        BizLockDao dao = service.dao();
        LocalDateTime databaseTime = dao.databaseTime();
        List<String> missing = dao.missingTables();
        LockStatus status = service.status();
        int overdue = status.renewalsOverdue();
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("database", dao.database());
        details.put("databaseTime", databaseTime.toInstant(ZoneOffset.UTC).toString());
        details.put("table", dao.table());
        details.put("instance", status.instanceId());
        details.put("held", status.held());
        details.put("waiting", status.waiting());
        details.put("renewed", status.renewed());
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
