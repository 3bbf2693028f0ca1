package io.github.bizlock.internal.jdbc.dialect;

/**
 * One statement of a dialect, rendered when its holder is built, in each form a deployment needs; which form runs is
 * picked at each use from the topology as last read, since a topology unknown at start may be read later
 * ({@link Dialect#currentTopology()}): a multi-writer cluster's nodes issue fencing tokens as one ({@code 0} for
 * {@code ${token_server}} and {@code ${token_boot}}), and a causal statement on a Galera node carries the dialect's
 * causality wait.
 */
public final class Statement {

    private final Dialect dialect;
    private final String perServer;
    private final String multiWriter;
    private final String galera;

    Statement(Dialect dialect, String perServer, String multiWriter, String galera) {
        this.dialect = dialect;
        this.perServer = perServer;
        this.multiWriter = multiWriter;
        this.galera = galera;
    }

    /** The statement's text for the deployment as last read. */
    public String sql() {
        ClusterTopology topology = dialect.topology();
        if (topology.galera()) {
            return galera;
        }
        return topology.multiWriter() ? multiWriter : perServer;
    }

    @Override
    public String toString() {
        return sql();
    }
}
