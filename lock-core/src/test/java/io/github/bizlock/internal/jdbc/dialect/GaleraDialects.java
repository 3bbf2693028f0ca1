package io.github.bizlock.internal.jdbc.dialect;

/** Dialects of a Galera node, for tests that check what bizlock sends there on a server that only plays one. */
public final class GaleraDialects {

    private GaleraDialects() {}

    /**
     * MariaDB as a node of a Galera cluster: {@code wsrep_sync_wait} exists on every MariaDB server, so its statements
     * also run on one on its own.
     */
    public static Dialect mariaDbNode(String table) {
        return new MariaDbDialect(
                table, new ClusterTopology(ClusterTopology.Kind.GALERA, "wsrep_on=ON (pretended by a test)", false));
    }
}
