package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import io.github.bizlock.test.TestDatabases;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** On a multi-writer cluster (BIZLOCK_TEST_DB=galera) the starter refuses ROW and NAMED, and runs LEASE. */
@ExtendWith(TestDatabaseExtension.class)
@EnabledIf("onCluster")
class ClusterModesAutoConfigurationTest {

    private ApplicationContextRunner runner;

    static boolean onCluster() {
        return TestDatabases.server().isCluster();
    }

    @BeforeEach
    void setUp(TestDatabase database) {
        runner = BizLockAutoConfigurationTest.runner(database, BizLockAutoConfiguration.class)
                .withPropertyValues("bizlock.housekeeping.enabled=false");
    }

    @Test
    void aDefaultModeOfRowOrNamedFailsTheStartNamingTheSettingAndLease() {
        for (String mode : new String[] {"ROW", "NAMED"}) {
            runner.withPropertyValues("bizlock.mode=" + mode).run(context -> {
                assertThat(context).hasFailed();
                assertThat(context.getStartupFailure())
                        .rootCause()
                        .hasMessageContaining("refuses " + mode)
                        .hasMessageContaining("wsrep_on=ON")
                        .hasMessageContaining("Use LEASE mode")
                        .hasMessageContaining("bizlock.cluster.single-writer=true");
            });
        }
    }

    @Test
    void leaseRunsAndARowLockIsRefusedWhenAsked() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            LockTemplate locks = context.getBean(LockTemplate.class);
            try (LockHandle lease = locks.acquire("cluster-lease", "1")) {
                assertThat(lease.fencingToken()).isPositive();
            }
            assertThatIllegalStateException()
                    .isThrownBy(() -> locks.acquire(
                            "cluster-row", "1", LockOptions.defaults().mode(LockMode.ROW)))
                    .withMessageContaining("refuses ROW");
        });
    }

    @Test
    void aDeclaredSingleWriterStartsWithRowAsTheDefaultMode() {
        runner.withPropertyValues("bizlock.mode=ROW", "bizlock.cluster.single-writer=true")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    try (LockHandle row = context.getBean(LockTemplate.class).acquire("single-writer-row", "1")) {
                        assertThat(row.mode()).isEqualTo(LockMode.ROW);
                    }
                });
    }
}
