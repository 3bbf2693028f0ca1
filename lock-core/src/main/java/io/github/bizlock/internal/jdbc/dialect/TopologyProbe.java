package io.github.bizlock.internal.jdbc.dialect;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the server settings that tell a cluster node or a replica from a server on its own, and warns when the server
 * may lose acknowledged commits in a crash ({@link CommitDurability}).
 */
final class TopologyProbe {

    private static final Logger log = LoggerFactory.getLogger(TopologyProbe.class);

    /**
     * Settings of both families in one statement: a variable the server does not have is simply not listed (MySQL has
     * no {@code wsrep_*}; {@code group_replication_*} exist only with the plugin loaded).
     */
    static final String VARIABLES = """
            SHOW GLOBAL VARIABLES
             WHERE Variable_name IN ('wsrep_on', 'wsrep_provider', 'read_only', 'super_read_only',
                                     'group_replication_single_primary_mode',
                                     'innodb_flush_log_at_trx_commit', 'log_bin', 'sync_binlog')
            """;

    /** Whether Group Replication runs: the group's members that are online (none when the plugin is stopped). */
    private static final String GROUP_MEMBERS = """
            SELECT COUNT(*)
              FROM performance_schema.replication_group_members
             WHERE MEMBER_STATE = 'ONLINE'
            """;

    /** The size of a Galera cluster, for messages. */
    private static final String CLUSTER_SIZE = "SHOW GLOBAL STATUS LIKE 'wsrep_cluster_size'";

    private TopologyProbe() {}

    static ClusterTopology detect(Connection connection) {
        Map<String, String> settings;
        try {
            settings = settings(connection, VARIABLES);
        } catch (SQLException ex) {
            log.warn(
                    "bizlock could not read the server's replication settings ({}): until it can, it refuses ROW and"
                            + " NAMED locks, which a multi-writer cluster would not make exclusive, and reads them again"
                            + " at the next such lock",
                    ex.getMessage());
            return ClusterTopology.unknown(ex.getMessage());
        }
        ClusterTopology topology = classify(settings, connection);
        String hazard = CommitDurability.hazard(settings, topology.kind());
        if (hazard != null) {
            log.warn(hazard);
        }
        return topology;
    }

    /**
     * The deployment that the settings read from the server tell, asking the server through the connection only what
     * the settings leave open: the size of a Galera cluster, for messages, and whether a multi-primary group runs.
     */
    static ClusterTopology classify(Map<String, String> settings, Connection connection) {
        if (on(settings.get("wsrep_on")) && !"none".equalsIgnoreCase(settings.getOrDefault("wsrep_provider", "none"))) {
            return new ClusterTopology(ClusterTopology.Kind.GALERA, "wsrep_on=ON, " + clusterSize(connection), false);
        }
        if (settings.containsKey("group_replication_single_primary_mode")
                && !on(settings.get("group_replication_single_primary_mode"))
                && groupRunning(connection)) {
            return new ClusterTopology(
                    ClusterTopology.Kind.GROUP_REPLICATION_MULTI_PRIMARY,
                    "group_replication_single_primary_mode=OFF",
                    false);
        }
        if (on(settings.get("super_read_only"))) {
            return new ClusterTopology(ClusterTopology.Kind.READ_ONLY, "super_read_only=ON", false);
        }
        if (on(settings.get("read_only"))) {
            return new ClusterTopology(ClusterTopology.Kind.READ_ONLY, "read_only=ON", false);
        }
        return ClusterTopology.SINGLE_SERVER;
    }

    static String clusterSize(Connection connection) {
        try {
            return "wsrep_cluster_size=" + settings(connection, CLUSTER_SIZE).getOrDefault("wsrep_cluster_size", "?");
        } catch (SQLException ex) {
            return "wsrep_cluster_size unknown";
        }
    }

    static boolean groupRunning(Connection connection) {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(GROUP_MEMBERS)) {
            return rows.next() && rows.getInt(1) > 0;
        } catch (SQLException ex) {
            // performance_schema off: the plugin's setting alone says multi-primary; trust it.
            return true;
        }
    }

    static Map<String, String> settings(Connection connection, String sql) throws SQLException {
        Map<String, String> settings = new HashMap<>();
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            while (rows.next()) {
                settings.put(rows.getString(1).toLowerCase(Locale.ROOT), rows.getString(2));
            }
        }
        return settings;
    }

    /** Whether a setting as the server lists it is on: {@code ON} in any case, or {@code 1}. */
    static boolean on(@Nullable String value) {
        return value != null && (value.equalsIgnoreCase("ON") || value.equals("1"));
    }
}
