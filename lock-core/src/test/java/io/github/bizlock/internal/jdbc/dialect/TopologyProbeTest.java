package io.github.bizlock.internal.jdbc.dialect;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.test.TestDatabaseExtension;
import io.github.bizlock.test.TestDatabases;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The deployment is told from the server's settings. The test server is a server on its own (or a Galera node), so
 * the other deployments are classified from the settings such servers report; what the probe asks the server beyond
 * them (a Galera cluster's size, whether a Group Replication group runs) is asked of the server in hand, or of a
 * closed connection for a server that cannot answer.
 */
@ExtendWith(TestDatabaseExtension.class)
class TopologyProbeTest {

    private static final String GALERA_PROVIDER = "/usr/lib/galera/libgalera_smm.so";

    @Test
    void aGaleraNodeIsToldByWsrepOnWithAProviderAndNamesTheClusterSize(DataSource dataSource) throws SQLException {
        Map<String, String> galera = Map.of("wsrep_on", "ON", "wsrep_provider", GALERA_PROVIDER);
        try (Connection connection = dataSource.getConnection()) {
            ClusterTopology topology = TopologyProbe.classify(galera, connection);
            assertThat(topology.kind()).isEqualTo(ClusterTopology.Kind.GALERA);
            assertThat(topology.setting()).matches("wsrep_on=ON, wsrep_cluster_size=(\\d+|\\?)");
        }
        assertThat(TopologyProbe.classify(galera, closedConnection(dataSource)))
                .isEqualTo(new ClusterTopology(
                        ClusterTopology.Kind.GALERA, "wsrep_on=ON, wsrep_cluster_size unknown", false));
    }

    @Test
    void wsrepOnCountsAsGaleraOnlyWithAProviderLoaded(DataSource dataSource) throws SQLException {
        Connection closed = closedConnection(dataSource);
        assertThat(TopologyProbe.classify(Map.of("wsrep_on", "ON", "wsrep_provider", "none"), closed))
                .isEqualTo(ClusterTopology.SINGLE_SERVER);
        assertThat(TopologyProbe.classify(Map.of("wsrep_on", "ON", "wsrep_provider", "None"), closed))
                .isEqualTo(ClusterTopology.SINGLE_SERVER);
        assertThat(TopologyProbe.classify(Map.of("wsrep_on", "ON"), closed)).isEqualTo(ClusterTopology.SINGLE_SERVER);
        assertThat(TopologyProbe.classify(Map.of("wsrep_on", "OFF", "wsrep_provider", GALERA_PROVIDER), closed))
                .isEqualTo(ClusterTopology.SINGLE_SERVER);
    }

    @Test
    void aSettingIsOnWhenItSaysOnInAnyCaseOrOne(DataSource dataSource) throws SQLException {
        Connection closed = closedConnection(dataSource);
        for (String on : new String[] {"ON", "on", "1"}) {
            assertThat(TopologyProbe.classify(Map.of("read_only", on), closed).kind())
                    .as(on)
                    .isEqualTo(ClusterTopology.Kind.READ_ONLY);
        }
        for (String off : new String[] {"OFF", "0", ""}) {
            assertThat(TopologyProbe.classify(Map.of("read_only", off), closed))
                    .as(off)
                    .isEqualTo(ClusterTopology.SINGLE_SERVER);
        }
    }

    @Test
    void aMultiPrimaryGroupIsToldByItsModeWhenTheGroupRunsOrCannotBeAsked(DataSource dataSource) throws SQLException {
        Connection closed = closedConnection(dataSource);
        assertThat(TopologyProbe.classify(Map.of("group_replication_single_primary_mode", "OFF"), closed))
                .isEqualTo(new ClusterTopology(
                        ClusterTopology.Kind.GROUP_REPLICATION_MULTI_PRIMARY,
                        "group_replication_single_primary_mode=OFF",
                        false));
        assertThat(TopologyProbe.classify(Map.of("group_replication_single_primary_mode", "ON"), closed))
                .isEqualTo(ClusterTopology.SINGLE_SERVER);
    }

    @Test
    void aReplicaIsToldByItsReadOnlySettingNamingTheStricterOne(DataSource dataSource) throws SQLException {
        Connection closed = closedConnection(dataSource);
        assertThat(TopologyProbe.classify(Map.of("super_read_only", "ON", "read_only", "ON"), closed))
                .isEqualTo(new ClusterTopology(ClusterTopology.Kind.READ_ONLY, "super_read_only=ON", false));
        assertThat(TopologyProbe.classify(Map.of("super_read_only", "OFF", "read_only", "ON"), closed))
                .isEqualTo(new ClusterTopology(ClusterTopology.Kind.READ_ONLY, "read_only=ON", false));
        assertThat(TopologyProbe.classify(Map.of("super_read_only", "OFF", "read_only", "OFF"), closed))
                .isEqualTo(ClusterTopology.SINGLE_SERVER);
    }

    @Test
    void theServerInHandReportsItsSettingsUnderLowerCaseNames(DataSource dataSource) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            assertThat(TopologyProbe.settings(connection, TopologyProbe.VARIABLES))
                    .containsKey("read_only")
                    // What a crash can lose, read in the same statement (sync_binlog exists with or without a binlog).
                    .containsKeys("innodb_flush_log_at_trx_commit", "log_bin", "sync_binlog")
                    .allSatisfy((name, value) -> assertThat(name).isLowerCase());
        }
    }

    @Test
    void aServerWhoseSettingsCannotBeReadIsUnknownNeverTakenForAServerOnItsOwn(DataSource dataSource)
            throws SQLException {
        ClusterTopology topology = TopologyProbe.detect(closedConnection(dataSource));
        assertThat(topology.kind()).isEqualTo(ClusterTopology.Kind.UNKNOWN);
        assertThat(topology.known()).isFalse();
        assertThat(topology.setting())
                .as("the server's answer, for the refusal's message")
                .isNotBlank();
        assertThat(topology.sessionLockRefusal(io.github.bizlock.LockMode.ROW, "SELECT ... FOR UPDATE"))
                .hasValueSatisfying(refusal -> assertThat(refusal)
                        .contains("could not read the server's replication settings")
                        .contains("bizlock.cluster.single-writer=true"));
        assertThat(topology.declaringSingleWriter(true).sessionLockRefusal(io.github.bizlock.LockMode.ROW, "x"))
                .isEmpty();
    }

    @Test
    void aGroupIsTakenToRunUnlessTheServerListsNoOnlineMember(DataSource dataSource) throws SQLException {
        assertThat(TopologyProbe.groupRunning(closedConnection(dataSource))).isTrue();
        try (Connection connection = dataSource.getConnection()) {
            // MySQL lists the group's members (none here); MariaDB has no Group Replication and no such table.
            assertThat(TopologyProbe.groupRunning(connection))
                    .isEqualTo(TestDatabases.server().isMariaDb());
        }
    }

    private static Connection closedConnection(DataSource dataSource) throws SQLException {
        Connection connection = dataSource.getConnection();
        connection.close();
        return connection;
    }
}
