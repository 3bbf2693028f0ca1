package io.github.bizlock.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.PermitHandle;
import io.github.bizlock.service.BizLockDao;
import io.github.bizlock.service.LockService;
import io.github.bizlock.test.TestDatabaseExtension;
import java.security.Principal;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * The {@code bizlocks} endpoint's operations called directly, on a real database: the limits of its listing and the
 * answers of its force release that the web test does not reach.
 */
@ExtendWith({TestDatabaseExtension.class, OutputCaptureExtension.class})
class BizLocksEndpointTest {

    private LockService service;
    private BizLockDao dao;

    @BeforeAll
    static void createSchema(DataSource dataSource) {
        LockFixture.createSchema(dataSource);
    }

    @BeforeEach
    void setUp(DataSource dataSource) {
        service = LockService.builder(dataSource)
                .lockConnections(dataSource)
                .housekeeping(false)
                .build();
        dao = service.dao();
    }

    @AfterEach
    void tearDown() {
        service.close();
    }

    private LockHandle hold(String name, String key) {
        return service.template().tryAcquire(name, key, Duration.ZERO).orElseThrow();
    }

    private static SecurityContext as(@Nullable String user, String... roles) {
        return new SecurityContext() {
            @Override
            public @Nullable Principal getPrincipal() {
                return user == null ? null : () -> user;
            }

            @Override
            public boolean isUserInRole(String role) {
                return List.of(roles).contains(role);
            }
        };
    }

    private BizLocksEndpoint showing(Show showValues, String... roles) {
        return new BizLocksEndpoint(() -> service, 10, false, showValues, List.of(roles));
    }

    private static List<String> keys(BizLocksEndpoint.LocksReport report) {
        List<String> keys = new ArrayList<>();
        report.held().forEach(lock -> keys.add(lock.key()));
        report.local().forEach(lock -> keys.add(lock.key()));
        return keys;
    }

    @Test
    void refusesAMaxLocksBelowOneAndListsOneLockWithMaxLocksOne() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new BizLocksEndpoint(service, 0, false))
                .withMessage("bizlock.endpoint.max-locks must be at least 1, was 0");
        BizLocksEndpoint endpoint = new BizLocksEndpoint(() -> service, 1, false, Show.ALWAYS, List.of());

        try (LockHandle first = hold("single", "a")) {
            BizLocksEndpoint.LocksReport one = endpoint.locks(SecurityContext.NONE);
            assertThat(one.held()).extracting(BizLocksEndpoint.HeldLock::key).containsExactly("a");
            assertThat(one.truncated())
                    .as("exactly max-locks held: nothing left out")
                    .isFalse();
            BizLocksEndpoint.HeldLock listed = one.held().get(0);
            BizLockDao.Row row = dao.find("single", "a").orElseThrow();
            assertThat(listed.fencingToken()).isEqualTo(first.fencingToken());
            assertThat(listed.owner()).isEqualTo(service.template().instanceId());
            assertThat(listed.mode()).isEqualTo(LockMode.LEASE);
            assertThat(listed.acquiredAt())
                    .as("the database's time, in UTC")
                    .isEqualTo(row.acquiredAt().toInstant(ZoneOffset.UTC).toString());
            assertThat(listed.expiresAt())
                    .isEqualTo(row.expiresAt().toInstant(ZoneOffset.UTC).toString());
            assertThat(one.instance()).isEqualTo(service.template().instanceId());

            try (LockHandle second = hold("single", "b")) {
                BizLocksEndpoint.LocksReport two = endpoint.locks(SecurityContext.NONE);
                assertThat(two.held())
                        .extracting(BizLocksEndpoint.HeldLock::key)
                        .containsExactly("a");
                assertThat(two.truncated()).isTrue();
                assertThat(two.local())
                        .extracting(BizLocksEndpoint.InstanceLock::key)
                        .containsExactlyInAnyOrder("a", "b");
            }
        }
    }

    @Test
    void listsEachSemaphoreWithItsPermitsAndTheSlotsThisInstanceHolds() {
        BizLocksEndpoint endpoint = showing(Show.ALWAYS);
        try (PermitHandle first = service.template().acquirePermit("export", "t#1", 3);
                PermitHandle second = service.template().acquirePermit("export", "t#1", 3);
                LockHandle plain = hold("order", "o#2")) {
            BizLocksEndpoint.LocksReport report = endpoint.locks(SecurityContext.NONE);

            assertThat(report.permits())
                    .as("one semaphore, its key without the slot (a '#' in the key itself stays), the slots held")
                    .containsExactly(new InstancePermits(
                            "export",
                            "t#1",
                            LockMode.LEASE,
                            3,
                            Stream.of(first.slot(), second.slot()).sorted().toList()));
            assertThat(report.local())
                    .as("the slot locks are still listed one by one, beside the plain lock")
                    .extracting(BizLocksEndpoint.InstanceLock::key)
                    .containsExactlyInAnyOrder("t#1#" + first.slot(), "t#1#" + second.slot(), "o#2");
            assertThat(showing(Show.NEVER).locks(SecurityContext.NONE).permits())
                    .extracting(InstancePermits::key)
                    .containsExactly(BizLocksEndpoint.MASK);
        }
        assertThat(endpoint.locks(SecurityContext.NONE).permits())
                .as("given back")
                .isEmpty();
    }

    @Test
    void showsKeysOnlyToTheCallersShowValuesLetSeeThem() {
        try (LockHandle held = hold("customer", "ann@example.com")) {
            List<String> shown = List.of("ann@example.com", "ann@example.com");
            List<String> masked = List.of(BizLocksEndpoint.MASK, BizLocksEndpoint.MASK);

            assertThat(keys(new BizLocksEndpoint(service, 10, false).locks(as("ops", "ADMIN"))))
                    .as("the plain constructor never shows keys")
                    .isEqualTo(masked);
            assertThat(keys(showing(Show.NEVER).locks(as("ops", "ADMIN")))).isEqualTo(masked);
            assertThat(keys(showing(Show.ALWAYS).locks(as(null)))).isEqualTo(shown);

            BizLocksEndpoint anyUser = showing(Show.WHEN_AUTHORIZED);
            assertThat(keys(anyUser.locks(as(null)))).as("unauthenticated").isEqualTo(masked);
            assertThat(keys(anyUser.locks(as("ops"))))
                    .as("authenticated, no roles set")
                    .isEqualTo(shown);

            BizLocksEndpoint admins = showing(Show.WHEN_AUTHORIZED, "ADMIN", "AUDIT");
            assertThat(keys(admins.locks(as("ops", "USER"))))
                    .as("without the role")
                    .isEqualTo(masked);
            assertThat(keys(admins.locks(as("ops", "USER", "AUDIT"))))
                    .as("with one role")
                    .isEqualTo(shown);

            BizLocksEndpoint.HeldLock row =
                    showing(Show.NEVER).locks(as(null)).held().get(0);
            assertThat(row.name()).isEqualTo("customer");
            assertThat(row.owner()).isEqualTo(service.template().instanceId());
            assertThat(row.fencingToken()).isEqualTo(held.fencingToken());
        }
    }

    @Test
    void aForceReleaseOfANameOrKeyNoLockCanHaveIsABadRequest() {
        BizLocksEndpoint endpoint = new BizLocksEndpoint(service, 10, true);

        WebEndpointResponse<BizLocksEndpoint.ForceReleaseResult> response = endpoint.release(" ", "1", as("ops"));

        assertThat(response.getStatus()).isEqualTo(WebEndpointResponse.STATUS_BAD_REQUEST);
        assertThat(response.getBody().released()).isFalse();
        assertThat(response.getBody().message()).contains("The lock name must not be blank");
    }

    @Test
    void aForceReleaseWithoutAPrincipalIsLoggedAsAnUnauthenticatedCaller(CapturedOutput output) {
        BizLocksEndpoint refusing = new BizLocksEndpoint(service, 10, false);
        assertThat(refusing.release("anon", "1", as(null)).getStatus()).isEqualTo(403);
        assertThat(output.getAll()).contains("lock anon/1 requested by an unauthenticated caller:");

        BizLocksEndpoint endpoint = new BizLocksEndpoint(service, 10, true);
        LockHandle held = hold("anon", "2");
        WebEndpointResponse<BizLocksEndpoint.ForceReleaseResult> released = endpoint.release("anon", "2", as(null));
        assertThat(released.getStatus()).isEqualTo(200);
        assertThat(released.getBody().formerOwner())
                .isEqualTo(service.template().instanceId());
        assertThat(output.getAll())
                .contains("bizlock force-released lock anon/2 (owner "
                        + service.template().instanceId() + ", fencing token " + held.fencingToken()
                        + ") at the request of an unauthenticated caller");
    }

    @Test
    void aForceReleaseOfALockReleasedBeforeNamesNoFormerOwner() {
        BizLocksEndpoint endpoint = new BizLocksEndpoint(service, 10, true);
        hold("done", "1").unlock(); // its row stays, free

        WebEndpointResponse<BizLocksEndpoint.ForceReleaseResult> response = endpoint.release("done", "1", as("ops"));

        assertThat(response.getStatus()).isEqualTo(WebEndpointResponse.STATUS_NOT_FOUND);
        assertThat(response.getBody().released()).isFalse();
        assertThat(response.getBody().formerOwner()).isNull();
    }

    @Test
    void logsTheInputOfAForceReleaseEscapedSoItCannotForgeLogLines(CapturedOutput output) {
        String forged = "1\r\n2026-01-01T00:00:00Z  WARN bizlock force-released lock order/42";
        BizLocksEndpoint refusing = new BizLocksEndpoint(service, 10, false);
        assertThat(refusing.release("audit\u2028", forged, as("ops\nadmin")).getStatus())
                .isEqualTo(403);
        BizLocksEndpoint endpoint = new BizLocksEndpoint(service, 10, true);
        assertThat(endpoint.release("audit\t", forged, as("ops")).getStatus()).isEqualTo(404);

        assertThat(output.getAll())
                .doesNotContain("\n2026-01-01T00:00:00Z")
                .contains("lock audit\\u2028/1\\r\\n2026-01-01T00:00:00Z  WARN bizlock force-released lock order/42"
                        + " requested by ops\\nadmin:")
                .contains("lock audit\\t/1\\r\\n2026-01-01T00:00:00Z  WARN bizlock force-released lock order/42"
                        + " requested by ops: it was not held");
    }
}
