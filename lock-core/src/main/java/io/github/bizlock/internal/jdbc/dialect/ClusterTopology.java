package io.github.bizlock.internal.jdbc.dialect;

import io.github.bizlock.LockMode;
import java.util.Optional;

/**
 * What kind of deployment the lock DataSource's server belongs to, read once at start-up ({@link TopologyProbe}), and
 * which lock modes are exact there.
 *
 * <p>LEASE is exact on every writable topology: its lock is a conditional update of one row, which a Galera cluster
 * certifies and Group Replication certifies cluster-wide, so two nodes never both win it. ROW ({@code SELECT ... FOR
 * UPDATE}) and NAMED ({@code GET_LOCK}) lock one node only: on a cluster that takes writes on several nodes, two
 * instances writing through different nodes both get the lock. They are refused there unless the user declares that
 * every instance writes through one node (single writer).
 *
 * @param kind the deployment
 * @param setting the server setting that told, e.g. {@code wsrep_on=ON}, named in errors
 * @param singleWriterDeclared whether the user declared that all lock traffic goes to one node
 */
public record ClusterTopology(Kind kind, String setting, boolean singleWriterDeclared) {

    /** The deployments bizlock tells apart. */
    public enum Kind {
        /** A server on its own, or a primary whose replicas take no writes. */
        SINGLE_SERVER,
        /** A node of a MariaDB Galera Cluster or Percona XtraDB Cluster: every node takes writes. */
        GALERA,
        /** A member of a MySQL Group Replication group in multi-primary mode: every member takes writes. */
        GROUP_REPLICATION_MULTI_PRIMARY,
        /** A server that takes no writes: a replica, or a Group Replication secondary. */
        READ_ONLY,
        /**
         * Not known: the server's settings could not be read (a proxy that refuses {@code SHOW GLOBAL VARIABLES}, an
         * error at start-up). Any of the others, so ROW and NAMED locks are refused until they can be read.
         */
        UNKNOWN
    }

    /** A server on its own. */
    public static final ClusterTopology SINGLE_SERVER = new ClusterTopology(Kind.SINGLE_SERVER, "", false);

    /** A topology that could not be read, and why: {@code setting} holds the server's answer. */
    public static ClusterTopology unknown(String why) {
        return new ClusterTopology(Kind.UNKNOWN, why, false);
    }

    /** Whether the server's settings were read. */
    public boolean known() {
        return kind != Kind.UNKNOWN;
    }

    /** Whether several nodes take writes, so that a lock on one node does not exclude holders on another. */
    public boolean multiWriter() {
        return kind == Kind.GALERA || kind == Kind.GROUP_REPLICATION_MULTI_PRIMARY;
    }

    /** Whether reads on this node may lag writes committed through another node (Galera applies them after commit). */
    public boolean galera() {
        return kind == Kind.GALERA;
    }

    /** The same topology, with the user's declaration that all lock traffic goes to one node. */
    public ClusterTopology declaringSingleWriter(boolean declared) {
        return new ClusterTopology(kind, setting, declared);
    }

    /**
     * Why locks of a mode that holds a session cannot be trusted here, or empty when they can.
     *
     * @param mode ROW or NAMED
     * @param lockStatement the statement that takes such a lock, named in the message
     */
    public Optional<String> sessionLockRefusal(LockMode mode, String lockStatement) {
        if ((!multiWriter() && known()) || singleWriterDeclared) {
            return Optional.empty();
        }
        if (!known()) {
            // Fail closed: a node of a multi-writer cluster would let two instances hold one lock.
            return Optional.of("bizlock refuses " + mode + " locks for now: it could not read the server's replication"
                    + " settings (" + setting + "), so it cannot tell a server on its own from a node of a multi-writer"
                    + " cluster (Galera, multi-primary Group Replication), where " + lockStatement + " locks one node"
                    + " only and instances writing through different nodes would hold the same lock at once. It reads"
                    + " them again at the next ROW or NAMED lock (at most once a second). Let the lock"
                    + " DataSource's account run SHOW GLOBAL VARIABLES (a proxy in front of the server may refuse"
                    + " it), or use LEASE mode, which is exact on any topology; only if the server is on its own or"
                    + " every instance sends all its lock traffic to one node, declare it with"
                    + " bizlock.cluster.single-writer=true (LockService.builder().singleWriter(true) without Spring"
                    + " Boot)");
        }
        return Optional.of("bizlock refuses " + mode + " locks on this server: it is " + describe() + " (" + setting
                + "), where every node takes writes, and " + lockStatement + " locks one node only, so instances"
                + " writing through different nodes would hold the same lock at once. Use LEASE mode (bizlock.mode=LEASE"
                + " or mode = LockMode.LEASE on the lock), which is exact on a cluster. Only if every instance sends all"
                + " its lock traffic to one node (a single-writer setup), declare it with bizlock.cluster.single-writer"
                + "=true (LockService.builder().singleWriter(true) without Spring Boot); docs/cluster.md, \"Running on a"
                + " cluster\", explains the risks");
    }

    /**
     * Why LEASE read locks are refused here, if they are: on a multi-writer cluster not declared single-writer, and
     * while the deployment is not known. Their grant, renewal and release run as transactions over two tables, whose
     * exclusion of writers across nodes is not yet proven (the issue 33 tests saw failed holds there).
     */
    public Optional<String> readLockRefusal() {
        if ((!multiWriter() && known()) || singleWriterDeclared) {
            return Optional.empty();
        }
        String where = known()
                ? "it is " + describe() + " (" + setting + "), where every node takes writes"
                : "it could not read the server's replication settings (" + setting + "), so it cannot tell a server on"
                        + " its own from a node of a multi-writer cluster";
        return Optional.of("bizlock refuses LEASE read locks (access = READ) on this server for now: " + where
                + ", and read locks are not yet proven to keep writers out across the nodes of a multi-writer cluster."
                + " Take the write lock instead (drop access = READ), which is exact on a cluster; only if every"
                + " instance sends all its lock traffic to one node, declare it with bizlock.cluster.single-writer=true"
                + " (LockService.builder().singleWriter(true) without Spring Boot)");
    }

    /**
     * Fails when the server takes no writes.
     *
     * @throws IllegalStateException naming the setting and the fix
     */
    public void requireWritable() {
        if (kind == Kind.READ_ONLY) {
            throw new IllegalStateException("bizlock's lock DataSource points at a server that takes no writes ("
                    + setting + "): a replica or a Group Replication secondary, whose lock rows no other instance"
                    + " would see. Point the lock DataSource (bizlock.datasource) at the primary, or at a proxy that"
                    + " sends writes to it");
        }
    }

    private String describe() {
        return switch (kind) {
            case GALERA -> "a node of a Galera cluster (MariaDB Galera Cluster or Percona XtraDB Cluster)";
            case GROUP_REPLICATION_MULTI_PRIMARY -> "a member of a multi-primary Group Replication group";
            case READ_ONLY -> "a read-only server";
            case SINGLE_SERVER -> "a single server";
            case UNKNOWN -> "a server whose replication settings could not be read";
        };
    }
}
