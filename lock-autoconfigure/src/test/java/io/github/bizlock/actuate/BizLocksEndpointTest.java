package io.github.bizlock.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LeaseDao;
import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.jdbc.LockRow;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.test.TestDatabaseExtension;
import java.security.Principal;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
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

    private LeaseDao dao;
    private LockDaos daos;
    private LockManager manager;

    @BeforeAll
    static void createSchema(DataSource dataSource) {
        LockFixture.createSchema(dataSource);
    }

    @BeforeEach
    void setUp(DataSource dataSource) {
        daos = LockFixture.daos(dataSource);
        dao = daos.leases();
        manager = LockFixture.manager(daos, InstanceId.generate()).build();
    }

    @AfterEach
    void tearDown() {
        manager.close();
    }

    private LockHandle hold(String name, String key) {
        try {
            return manager.tryAcquire(new LockKey(name, key), LockMode.LEASE, Duration.ZERO, null)
                    .orElseThrow();
        } catch (InterruptedException ex) {
            throw new AssertionError(ex);
        }
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
        return new BizLocksEndpoint(() -> dao, () -> manager, 10, false, showValues, List.of(roles));
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
                .isThrownBy(() -> new BizLocksEndpoint(dao, manager, 0, false))
                .withMessage("bizlock.endpoint.max-locks must be at least 1, was 0");
        BizLocksEndpoint endpoint = new BizLocksEndpoint(() -> dao, () -> manager, 1, false, Show.ALWAYS, List.of());

        try (LockHandle first = hold("single", "a")) {
            BizLocksEndpoint.LocksReport one = endpoint.locks(SecurityContext.NONE);
            assertThat(one.held()).extracting(BizLocksEndpoint.HeldLock::key).containsExactly("a");
            assertThat(one.truncated())
                    .as("exactly max-locks held: nothing left out")
                    .isFalse();
            BizLocksEndpoint.HeldLock listed = one.held().get(0);
            LockRow row = dao.find(new LockKey("single", "a")).orElseThrow();
            assertThat(listed.fencingToken()).isEqualTo(first.fencingToken());
            assertThat(listed.owner()).isEqualTo(manager.instanceId());
            assertThat(listed.mode()).isEqualTo(LockMode.LEASE);
            assertThat(listed.acquiredAt())
                    .as("the database's time, in UTC")
                    .isEqualTo(row.acquiredAt().toInstant(ZoneOffset.UTC).toString());
            assertThat(listed.expiresAt())
                    .isEqualTo(row.expiresAt().toInstant(ZoneOffset.UTC).toString());
            assertThat(one.instance()).isEqualTo(manager.instanceId());

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
    void showsKeysOnlyToTheCallersShowValuesLetSeeThem() {
        try (LockHandle held = hold("customer", "ann@example.com")) {
            List<String> shown = List.of("ann@example.com", "ann@example.com");
            List<String> masked = List.of(BizLocksEndpoint.MASK, BizLocksEndpoint.MASK);

            assertThat(keys(new BizLocksEndpoint(dao, manager, 10, false).locks(as("ops", "ADMIN"))))
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
            assertThat(row.owner()).isEqualTo(manager.instanceId());
            assertThat(row.fencingToken()).isEqualTo(held.fencingToken());
        }
    }

    @Test
    void aForceReleaseOfANameOrKeyNoLockCanHaveIsABadRequest() {
        BizLocksEndpoint endpoint = new BizLocksEndpoint(dao, manager, 10, true);

        WebEndpointResponse<BizLocksEndpoint.ForceReleaseResult> response = endpoint.release(" ", "1", as("ops"));

        assertThat(response.getStatus()).isEqualTo(WebEndpointResponse.STATUS_BAD_REQUEST);
        assertThat(response.getBody().released()).isFalse();
        assertThat(response.getBody().message()).contains("The lock name must not be blank");
    }

    @Test
    void aForceReleaseWithoutAPrincipalIsLoggedAsAnUnauthenticatedCaller(CapturedOutput output) {
        BizLocksEndpoint refusing = new BizLocksEndpoint(dao, manager, 10, false);
        assertThat(refusing.release("anon", "1", as(null)).getStatus()).isEqualTo(403);
        assertThat(output.getAll()).contains("lock anon/1 requested by an unauthenticated caller:");

        BizLocksEndpoint endpoint = new BizLocksEndpoint(dao, manager, 10, true);
        LockHandle held = hold("anon", "2");
        WebEndpointResponse<BizLocksEndpoint.ForceReleaseResult> released = endpoint.release("anon", "2", as(null));
        assertThat(released.getStatus()).isEqualTo(200);
        assertThat(released.getBody().formerOwner()).isEqualTo(manager.instanceId());
        assertThat(output.getAll())
                .contains("bizlock force-released lock anon/2 (owner " + manager.instanceId() + ", fencing token "
                        + held.fencingToken() + ") at the request of an unauthenticated caller");
    }

    @Test
    void aForceReleaseOfALockReleasedBeforeNamesNoFormerOwner() {
        BizLocksEndpoint endpoint = new BizLocksEndpoint(dao, manager, 10, true);
        hold("done", "1").unlock(); // its row stays, free

        WebEndpointResponse<BizLocksEndpoint.ForceReleaseResult> response = endpoint.release("done", "1", as("ops"));

        assertThat(response.getStatus()).isEqualTo(WebEndpointResponse.STATUS_NOT_FOUND);
        assertThat(response.getBody().released()).isFalse();
        assertThat(response.getBody().formerOwner()).isNull();
    }

    @Test
    void logsTheInputOfAForceReleaseEscapedSoItCannotForgeLogLines(CapturedOutput output) {
        String forged = "1\r\n2026-01-01T00:00:00Z  WARN bizlock force-released lock order/42";
        BizLocksEndpoint refusing = new BizLocksEndpoint(dao, manager, 10, false);
        assertThat(refusing.release("audit\u2028", forged, as("ops\nadmin")).getStatus())
                .isEqualTo(403);
        BizLocksEndpoint endpoint = new BizLocksEndpoint(dao, manager, 10, true);
        assertThat(endpoint.release("audit\t", forged, as("ops")).getStatus()).isEqualTo(404);

        assertThat(output.getAll())
                .doesNotContain("\n2026-01-01T00:00:00Z")
                .contains("lock audit\\u2028/1\\r\\n2026-01-01T00:00:00Z  WARN bizlock force-released lock order/42"
                        + " requested by ops\\nadmin:")
                .contains("lock audit\\t/1\\r\\n2026-01-01T00:00:00Z  WARN bizlock force-released lock order/42"
                        + " requested by ops: it was not held");
    }
}
