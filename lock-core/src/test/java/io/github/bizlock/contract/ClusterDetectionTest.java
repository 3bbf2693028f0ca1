package io.github.bizlock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.github.bizlock.LockAccess;
import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LeaseDao;
import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.jdbc.dialect.ClusterTopology;
import io.github.bizlock.internal.jdbc.dialect.Dialects;
import io.github.bizlock.internal.jdbc.dialect.TableName;
import io.github.bizlock.internal.jdbc.session.SessionLocks;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.service.LockService;
import io.github.bizlock.test.TestDatabases;
import java.time.Duration;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * Start-up detection of the deployment: a Galera node is told from a server on its own, and ROW and NAMED locks, which
 * lock one node only, are refused on a multi-writer cluster unless a single writer is declared.
 */
@ExtendWith(io.github.bizlock.test.TestDatabaseExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClusterDetectionTest {

    private final boolean cluster = TestDatabases.server().isCluster();

    @BeforeAll
    void createSchema(DataSource dataSource) {
        LockFixture.createSchema(dataSource);
    }

    @Test
    void detectsWhetherTheServerIsAGaleraNode(DataSource dataSource) {
        ClusterTopology topology =
                Dialects.detect(dataSource, TableName.DEFAULT).topology();
        if (cluster) {
            assertThat(topology.kind()).isEqualTo(ClusterTopology.Kind.GALERA);
            assertThat(topology.setting()).contains("wsrep_on=ON", "wsrep_cluster_size=3");
            assertThat(topology.multiWriter()).isTrue();
        } else {
            assertThat(topology).isEqualTo(ClusterTopology.SINGLE_SERVER);
        }
    }

    @Test
    void rowAndNamedLocksAreRefusedOnAMultiWriterClusterAndLeaseWorks(DataSource dataSource) throws Exception {
        LockDaos daos = LockFixture.daos(dataSource);
        LeaseDao dao = daos.leases();
        DataSource sessions = SessionLocks.dedicated(dataSource);
        String owner = InstanceId.generate();
        try (LockManager manager = LockFixture.manager(daos, owner)
                .engine(LockFixture.row(daos, sessions, 2, owner))
                .engine(LockFixture.named(daos, sessions, 2, owner))
                .build()) {
            for (LockMode mode : new LockMode[] {LockMode.ROW, LockMode.NAMED}) {
                LockKey key = new LockKey("detection-" + mode, "1");
                if (cluster) {
                    assertThatIllegalStateException()
                            .isThrownBy(() -> manager.tryAcquire(key, mode, Duration.ZERO, null))
                            .withMessageContaining("refuses " + mode)
                            .withMessageContaining("wsrep_on=ON")
                            .withMessageContaining("Use LEASE mode")
                            .withMessageContaining("bizlock.cluster.single-writer=true");
                } else {
                    Optional<LockHandle> held = manager.tryAcquire(key, mode, Duration.ZERO, null);
                    assertThat(held).isPresent();
                    held.get().unlock();
                }
            }
            Optional<LockHandle> lease =
                    manager.tryAcquire(new LockKey("detection-LEASE", "1"), LockMode.LEASE, Duration.ZERO, null);
            assertThat(lease).isPresent();
            lease.get().unlock();
        }
    }

    @Test
    void leaseReadLocksAreRefusedOnAMultiWriterClusterUnlessASingleWriterIsDeclared(DataSource dataSource) {
        LockOptions read = LockOptions.defaults().access(LockAccess.READ);
        try (LockService service =
                LockService.builder(dataSource).housekeeping(false).build()) {
            if (cluster) {
                assertThatIllegalStateException()
                        .isThrownBy(() -> service.template().tryAcquire("detection-read", "1", read))
                        .withMessageContaining("refuses LEASE read locks")
                        .withMessageContaining("wsrep_on=ON")
                        .withMessageContaining("drop access = READ")
                        .withMessageContaining("bizlock.cluster.single-writer=true");
            } else {
                service.template()
                        .tryAcquire("detection-read", "1", read)
                        .orElseThrow()
                        .unlock();
            }
            service.template().acquire("detection-read", "1").unlock();
        }
        try (LockService declared = LockService.builder(dataSource)
                .housekeeping(false)
                .singleWriter(true)
                .build()) {
            declared.template()
                    .tryAcquire("detection-read", "2", read)
                    .orElseThrow()
                    .unlock();
        }
    }

    @Test
    void aDeclaredSingleWriterLetsRowLocksRun(DataSource dataSource) throws Exception {
        LockDaos daos = LockDaos.of(
                dataSource,
                new DataSourceTransactionManager(dataSource),
                Dialects.detect(dataSource, TableName.DEFAULT, true));
        String owner = InstanceId.generate();
        try (LockManager manager = LockFixture.manager(daos, owner)
                .engine(LockFixture.row(daos, SessionLocks.dedicated(dataSource), 2, owner))
                .build()) {
            Optional<LockHandle> held =
                    manager.tryAcquire(new LockKey("declared-single-writer", "1"), LockMode.ROW, Duration.ZERO, null);
            assertThat(held).isPresent();
            held.get().unlock();
        }
    }

    @Test
    void aServiceWhoseDefaultModeIsRefusedFailsToStart(DataSource dataSource) {
        for (LockMode mode : new LockMode[] {LockMode.ROW, LockMode.NAMED}) {
            LockService.Builder builder = LockService.builder(dataSource)
                    .defaultMode(mode)
                    .sessionDataSource(SessionLocks.dedicated(dataSource))
                    .housekeeping(false);
            if (cluster) {
                assertThatIllegalStateException()
                        .isThrownBy(builder::build)
                        .withMessageContaining("refuses " + mode)
                        .withMessageContaining("singleWriter(true)");
                builder.singleWriter(true);
            }
            builder.build().close();
        }
    }
}
