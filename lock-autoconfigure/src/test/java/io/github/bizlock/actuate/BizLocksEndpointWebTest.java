package io.github.bizlock.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.Await;
import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostEvent;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.LossCause;
import io.github.bizlock.PermitHandle;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.service.BizLockDao;
import io.github.bizlock.service.LockService;
import io.github.bizlock.service.LockTables;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.Principal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.json.JsonParserFactory;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A real Spring Boot application with a web server, Actuator and the starter: the health indicator, the
 * {@code bizlocks} endpoint and the metrics endpoint over HTTP, on a real database.
 */
@ExtendWith({TestDatabaseExtension.class, OutputCaptureExtension.class})
class BizLocksEndpointWebTest {

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {}

    /** Every request is made by the authenticated user {@code ops-ann}, as a security filter chain would make it. */
    @Configuration(proxyBeanMethods = false)
    static class AuthenticatedAsOps {

        @Bean
        Filter authenticatedAsOps() {
            return (request, response, chain) -> chain.doFilter(
                    new HttpServletRequestWrapper((HttpServletRequest) request) {
                        @Override
                        public Principal getUserPrincipal() {
                            return () -> "ops-ann";
                        }
                    },
                    response);
        }
    }

    private final HttpClient http = HttpClient.newHttpClient();

    private static ConfigurableApplicationContext start(TestDatabase database, String... properties) {
        return start(new Class<?>[] {App.class}, database, properties);
    }

    private static ConfigurableApplicationContext start(
            Class<?>[] sources, TestDatabase database, String... properties) {
        return new SpringApplicationBuilder(sources)
                .properties(
                        "server.port=0",
                        "spring.datasource.url=" + database.jdbcUrl(),
                        "spring.datasource.username=" + database.username(),
                        "spring.datasource.password=" + database.password(),
                        "bizlock.housekeeping.enabled=false",
                        // The starter migrates its own tables; the application has no migrations of its own.
                        "spring.flyway.enabled=false",
                        "management.endpoints.web.exposure.include=health,bizlocks,metrics",
                        "management.endpoint.health.show-details=always")
                .properties(properties)
                .run();
    }

    private HttpResponse<String> get(ConfigurableApplicationContext app, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(app, path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(ConfigurableApplicationContext app, String path, String json) throws Exception {
        return http.send(
                HttpRequest.newBuilder(uri(app, path))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(json))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static URI uri(ConfigurableApplicationContext app, String path) {
        return URI.create("http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port") + path);
    }

    private static Map<String, Object> json(HttpResponse<String> response) {
        return JsonParserFactory.getJsonParser().parseMap(response.body());
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(Map<String, Object> map, String name) {
        return (List<Map<String, Object>>) map.get(name);
    }

    @Test
    @SuppressWarnings("unchecked")
    void healthIsUpWithTheDatabaseAndTheTables(TestDatabase database) throws Exception {
        try (ConfigurableApplicationContext app = start(database)) {
            HttpResponse<String> response = get(app, "/actuator/health/bizlock");
            assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            Map<String, Object> health = json(response);
            assertThat(health.get("status")).isEqualTo("UP");
            Map<String, Object> details = (Map<String, Object>) health.get("details");
            assertThat(details)
                    .containsEntry("table", "biz_lock")
                    .hasEntrySatisfying(
                            "renewalsOverdue",
                            value -> assertThat(((Number) value).intValue()).isZero())
                    .containsKeys("database", "databaseTime", "instance", "held", "waiting");
        }
    }

    @Test
    void healthIsDownWhenTheTablesAreMissing(DataSource dataSource) {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        String ddl = LockTables.ddl("absent_lock").replaceAll("(?m)^--.*$", "");
        Arrays.stream(ddl.split(";"))
                .map(String::strip)
                .filter(statement -> !statement.isEmpty())
                .forEach(jdbc::execute);
        try (LockService service = LockService.builder(dataSource)
                .tableName("absent_lock")
                .lockConnections(dataSource)
                .housekeeping(false)
                .build()) {
            // Dropped while the application runs: by hand, or a restore of the schema from before them.
            jdbc.execute("DROP TABLE absent_lock, absent_lock_token_floor, absent_lock_row, absent_lock_token,"
                    + " absent_lock_mode");
            Health health = new BizLockHealthIndicator(service).health(true);
            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat(health.getDetails())
                    .containsEntry(
                            "missingTables",
                            List.of(
                                    "absent_lock",
                                    "absent_lock_token_floor",
                                    "absent_lock_row",
                                    "absent_lock_token",
                                    "absent_lock_mode"));
        }
    }

    @Test
    void listsLocksHeldAcrossTheClusterAndThisInstancesHoldsAndRefusesForceRelease(TestDatabase database)
            throws Exception {
        try (ConfigurableApplicationContext app = start(database, "bizlock.endpoint.show-values=always");
                LockManager elsewhere =
                        LockFixture.manager(database.dataSource()).build()) {
            LockHandle remote = elsewhere
                    .tryAcquire(new LockKey("order", "42"), LockMode.LEASE, Duration.ZERO, null)
                    .orElseThrow();
            LockTemplate locks = app.getBean(LockTemplate.class);
            try (LockHandle local = locks.acquire("stock", "sku-1")) {
                HttpResponse<String> response = get(app, "/actuator/bizlocks");
                assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
                Map<String, Object> report = json(response);
                assertThat(report.get("instance"))
                        .isEqualTo(app.getBean(LockTemplate.class).instanceId());
                assertThat(list(report, "held"))
                        .anySatisfy(lock -> assertThat(lock)
                                .containsEntry("name", "order")
                                .containsEntry("key", "42")
                                .containsEntry("mode", "LEASE")
                                .containsEntry("owner", elsewhere.instanceId())
                                .hasEntrySatisfying(
                                        "fencingToken",
                                        value -> assertThat(((Number) value).longValue())
                                                .isEqualTo(remote.fencingToken()))
                                .containsKeys("acquiredAt", "expiresAt"))
                        .anySatisfy(lock -> assertThat(lock)
                                .containsEntry("name", "stock")
                                .containsEntry(
                                        "owner", app.getBean(LockTemplate.class).instanceId()));
                assertThat(list(report, "local"))
                        .singleElement()
                        .satisfies(lock -> assertThat(lock)
                                .containsEntry("name", "stock")
                                .containsEntry("key", "sku-1")
                                .containsEntry(
                                        "holderThread", Thread.currentThread().getName())
                                .hasEntrySatisfying(
                                        "fencingToken",
                                        value -> assertThat(((Number) value).longValue())
                                                .isEqualTo(local.fencingToken()))
                                .containsEntry("onLost", "LOG"));
                assertThat(list(report, "permits")).as("no semaphore held").isEmpty();
                try (PermitHandle permit = locks.acquirePermit("exports", "t1", 2)) {
                    assertThat(list(json(get(app, "/actuator/bizlocks")), "permits"))
                            .singleElement()
                            .satisfies(semaphore -> assertThat(semaphore)
                                    .containsEntry("name", "exports")
                                    .containsEntry("key", "t1")
                                    .containsEntry("mode", "LEASE")
                                    .hasEntrySatisfying(
                                            "permits",
                                            value -> assertThat(((Number) value).intValue())
                                                    .isEqualTo(2))
                                    .hasEntrySatisfying(
                                            "slotsHeld",
                                            slots -> assertThat((List<?>) slots)
                                                    .singleElement()
                                                    .satisfies(slot -> assertThat(((Number) slot).intValue())
                                                            .isEqualTo(permit.slot()))));
                }

                HttpResponse<String> refused = post(app, "/actuator/bizlocks", "{\"name\":\"order\",\"key\":\"42\"}");
                assertThat(refused.statusCode()).isEqualTo(403);
                assertThat(refused.body()).contains("bizlock.endpoint.force-release.enabled");
                assertThat(remote.isHeld()).isTrue();
                assertThat(app.getBean(BizLockDao.class)
                                .find("order", "42")
                                .orElseThrow()
                                .held())
                        .as("still held after the refusal")
                        .isTrue();
            }
            remote.unlock();
        }
    }

    @Test
    void masksEveryKeyByDefaultAndKeepsTheRestOfEachLock(TestDatabase database) throws Exception {
        try (ConfigurableApplicationContext app = start(database);
                LockManager elsewhere =
                        LockFixture.manager(database.dataSource()).build()) {
            LockHandle remote = elsewhere
                    .tryAcquire(new LockKey("customer", "ann@example.com"), LockMode.LEASE, Duration.ZERO, null)
                    .orElseThrow();
            try (LockHandle local = app.getBean(LockTemplate.class).acquire("customer", "bob@example.com")) {
                HttpResponse<String> response = get(app, "/actuator/bizlocks");
                assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
                assertThat(response.body()).doesNotContain("@example.com");
                Map<String, Object> report = json(response);
                assertThat(list(report, "held"))
                        .hasSize(2)
                        .allSatisfy(lock -> assertThat(lock)
                                .containsEntry("name", "customer")
                                .containsEntry("key", "******")
                                .containsKeys("owner", "fencingToken", "acquiredAt", "expiresAt"))
                        .anySatisfy(lock -> assertThat(lock).containsEntry("owner", elsewhere.instanceId()));
                assertThat(list(report, "local"))
                        .singleElement()
                        .satisfies(lock -> assertThat(lock)
                                .containsEntry("name", "customer")
                                .containsEntry("key", "******")
                                .containsEntry(
                                        "holderThread", Thread.currentThread().getName())
                                .hasEntrySatisfying(
                                        "fencingToken",
                                        value -> assertThat(((Number) value).longValue())
                                                .isEqualTo(local.fencingToken())));
            }
            remote.unlock();
        }
    }

    @Test
    void showsKeysToAnAuthenticatedCallerWhenShowValuesIsWhenAuthorized(TestDatabase database) throws Exception {
        try (ConfigurableApplicationContext app = start(
                new Class<?>[] {App.class, AuthenticatedAsOps.class},
                database,
                "bizlock.endpoint.show-values=when-authorized")) {
            try (LockHandle local = app.getBean(LockTemplate.class).acquire("customer", "ann@example.com")) {
                assertThat(list(json(get(app, "/actuator/bizlocks")), "local"))
                        .singleElement()
                        .satisfies(lock -> assertThat(lock).containsEntry("key", "ann@example.com"));
            }
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void listsAtMostMaxLocksOldestFirstAndSaysWhenItLeftSomeOut(TestDatabase database) throws Exception {
        try (ConfigurableApplicationContext app =
                        start(database, "bizlock.endpoint.max-locks=2", "bizlock.endpoint.show-values=always");
                LockManager elsewhere =
                        LockFixture.manager(database.dataSource()).build()) {
            List<LockHandle> held = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                held.add(elsewhere
                        .tryAcquire(new LockKey("many", "k" + i), LockMode.LEASE, Duration.ZERO, null)
                        .orElseThrow());
            }
            Map<String, Object> three = json(get(app, "/actuator/bizlocks"));
            assertThat(list(three, "held"))
                    .extracting(lock -> lock.get("key"))
                    .as("the two oldest of three")
                    .containsExactly("k0", "k1");
            assertThat(three).containsEntry("truncated", true);
            // ROW and NAMED locks have no owner rows: the report says they are not listed, rather than none held.
            assertThat((List<String>) three.get("notListedModes")).containsExactlyInAnyOrder("ROW", "NAMED");

            held.remove(2).unlock();
            Map<String, Object> two = json(get(app, "/actuator/bizlocks"));
            assertThat(list(two, "held")).hasSize(2);
            assertThat(two).containsEntry("truncated", false);
            held.forEach(LockHandle::unlock);
        }
    }

    @Test
    void forceReleaseRequestsAreLoggedWithTheirPrincipal(TestDatabase database, CapturedOutput output)
            throws Exception {
        try (ConfigurableApplicationContext refusing =
                start(new Class<?>[] {App.class, AuthenticatedAsOps.class}, database)) {
            assertThat(post(refusing, "/actuator/bizlocks", "{\"name\":\"audit\",\"key\":\"1\"}")
                            .statusCode())
                    .isEqualTo(403);
        }
        assertThat(output.getAll())
                .contains("bizlock refused to force-release lock audit/1 requested by ops-ann:"
                        + " bizlock.endpoint.force-release.enabled is false");

        try (ConfigurableApplicationContext app = start(
                        new Class<?>[] {App.class, AuthenticatedAsOps.class},
                        database,
                        "bizlock.endpoint.force-release.enabled=true");
                LockManager elsewhere =
                        LockFixture.manager(database.dataSource()).build()) {
            LockHandle remote = elsewhere
                    .tryAcquire(new LockKey("audit", "2"), LockMode.LEASE, Duration.ZERO, null)
                    .orElseThrow();
            assertThat(post(app, "/actuator/bizlocks", "{\"name\":\"audit\",\"key\":\"2\"}")
                            .statusCode())
                    .isEqualTo(200);
            assertThat(output.getAll())
                    .contains("bizlock force-released lock audit/2 (owner " + elsewhere.instanceId()
                            + ", fencing token " + remote.fencingToken() + ") at the request of ops-ann");
            assertThat(post(app, "/actuator/bizlocks", "{\"name\":\"audit\",\"key\":\"3\"}")
                            .statusCode())
                    .isEqualTo(404);
            assertThat(output.getAll())
                    .contains("bizlock force release of lock audit/3 requested by ops-ann: it was not held");
        }
    }

    @Test
    void forceReleaseWhenEnabledFreesTheLockAndItsHolderReportsItLost(TestDatabase database) throws Exception {
        List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
        try (ConfigurableApplicationContext app = start(database, "bizlock.endpoint.force-release.enabled=true");
                LockManager elsewhere = LockFixture.manager(database.dataSource())
                        .watchdogLease(Duration.ofMillis(600))
                        .build()) {
            elsewhere.addListener(lost::add);
            LockHandle remote = elsewhere
                    .tryAcquire(new LockKey("job", "nightly"), LockMode.LEASE, Duration.ZERO, null)
                    .orElseThrow();

            HttpResponse<String> released = post(app, "/actuator/bizlocks", "{\"name\":\"job\",\"key\":\"nightly\"}");
            assertThat(released.statusCode()).as(released.body()).isEqualTo(200);
            assertThat(json(released))
                    .containsEntry("released", true)
                    .containsEntry("formerOwner", elsewhere.instanceId());
            // Nobody holds it until the former holder has noticed, so the loss it reports is a removal, not a takeover.
            Await.until("the former holder reports the loss", Duration.ofSeconds(10), () -> !lost.isEmpty());
            assertThat(lost).singleElement().satisfies(event -> {
                assertThat(event.key()).isEqualTo("nightly");
                assertThat(event.cause()).as(event.reason()).isEqualTo(LossCause.REMOVED);
            });
            assertThat(remote.isHeld()).isFalse();

            assertThat(app.getBean(LockTemplate.class)
                            .tryAcquire("job", "nightly", Duration.ZERO)
                            .map(handle -> {
                                handle.unlock();
                                return true;
                            }))
                    .as("another instance can take it at once: the force release freed the row")
                    .contains(true);

            HttpResponse<String> notHeld = post(app, "/actuator/bizlocks", "{\"name\":\"job\",\"key\":\"nightly\"}");
            assertThat(notHeld.statusCode()).isEqualTo(404);
        }
    }

    @Test
    void exposesTheLockMetrics(TestDatabase database) throws Exception {
        try (ConfigurableApplicationContext app = start(database)) {
            app.getBean(LockTemplate.class).execute("metered", "1", () -> null);
            for (String meter : List.of("bizlock.acquire", "bizlock.wait", "bizlock.hold", "bizlock.held")) {
                HttpResponse<String> response = get(app, "/actuator/metrics/" + meter);
                assertThat(response.statusCode())
                        .as(meter + ": " + response.body())
                        .isEqualTo(200);
            }
            // One acquisition of "metered" is counted once; a second one makes it two.
            assertThat(get(app, "/actuator/metrics/bizlock.acquire?tag=outcome:acquired&tag=name:metered")
                            .body())
                    .contains("{\"statistic\":\"COUNT\",\"value\":1.0}");
            app.getBean(LockTemplate.class).execute("metered", "2", () -> null);
            assertThat(get(app, "/actuator/metrics/bizlock.acquire?tag=outcome:acquired&tag=name:metered")
                            .body())
                    .contains("{\"statistic\":\"COUNT\",\"value\":2.0}");
        }
    }
}
