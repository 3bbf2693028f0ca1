package io.github.bizlock.internal.jdbc.dialect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.github.bizlock.LockMode;
import org.junit.jupiter.api.Test;

class ClusterTopologyTest {

    private final ClusterTopology galera =
            new ClusterTopology(ClusterTopology.Kind.GALERA, "wsrep_on=ON, wsrep_cluster_size=3", false);

    @Test
    void sessionLocksAreRefusedOnAMultiWriterClusterNamingTheSettingAndLease() {
        assertThat(galera.sessionLockRefusal(LockMode.ROW, "SELECT ... FOR UPDATE"))
                .hasValueSatisfying(message -> assertThat(message)
                        .contains(
                                "ROW",
                                "a node of a Galera cluster",
                                "wsrep_on=ON",
                                "wsrep_cluster_size=3",
                                "Use LEASE mode")
                        .contains("bizlock.cluster.single-writer=true", "Running on a cluster"));
        ClusterTopology multiPrimary = new ClusterTopology(
                ClusterTopology.Kind.GROUP_REPLICATION_MULTI_PRIMARY,
                "group_replication_single_primary_mode=OFF",
                false);
        assertThat(multiPrimary.sessionLockRefusal(LockMode.NAMED, "GET_LOCK"))
                .hasValueSatisfying(message -> assertThat(message)
                        .contains("NAMED", "GET_LOCK", "a member of a multi-primary Group Replication group")
                        .contains("group_replication_single_primary_mode=OFF", "LEASE"));
    }

    @Test
    void aDeclaredSingleWriterOrASingleServerAllowsSessionLocks() {
        assertThat(galera.declaringSingleWriter(true).sessionLockRefusal(LockMode.ROW, "x"))
                .isEmpty();
        assertThat(ClusterTopology.SINGLE_SERVER.sessionLockRefusal(LockMode.NAMED, "x"))
                .isEmpty();
        assertThat(new ClusterTopology(ClusterTopology.Kind.READ_ONLY, "read_only=ON", false).multiWriter())
                .isFalse();
    }

    @Test
    void aReadOnlyServerIsRefusedNamingTheSettingAndThePrimary() {
        assertThatIllegalStateException()
                .isThrownBy(() -> new ClusterTopology(ClusterTopology.Kind.READ_ONLY, "super_read_only=ON", false)
                        .requireWritable())
                .withMessageContaining("super_read_only=ON")
                .withMessageContaining("primary");
        galera.requireWritable();
        ClusterTopology.SINGLE_SERVER.requireWritable();
    }

    @Test
    void onlyMariaDbOnGaleraRendersCausalStatements() {
        String template = "UPDATE ${table} SET a = 1";
        assertThat(Dialects.forServer("MariaDB", "10.11.19-MariaDB", "biz_lock", galera)
                        .causal(template)
                        .sql())
                .isEqualTo("SET STATEMENT wsrep_sync_wait = 3 FOR UPDATE biz_lock SET a = 1");
        assertThat(Dialects.forServer("MariaDB", "10.11.19-MariaDB", "biz_lock")
                        .causal(template)
                        .sql())
                .isEqualTo("UPDATE biz_lock SET a = 1");
        assertThat(Dialects.forServer("MySQL", "8.0.31", "biz_lock", galera)
                        .causal(template)
                        .sql())
                .isEqualTo("UPDATE biz_lock SET a = 1");
    }
}
