package io.github.bizlock.internal.jdbc.dialect;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A server family, MySQL 8 or MariaDB, and the lock table that bizlock's statements are rendered for. The statements
 * live beside the classes that run them, as templates naming the table {@code ${table}}; only ROW mode's differ
 * between the families.
 */
public abstract sealed class Dialect permits MySqlDialect, MariaDbDialect {

    private static final String TABLE = "${table}";

    /**
     * Stands in statements for the server that issues a fencing token: {@code @@server_id}, evaluated by the server
     * that runs the statement (a replica applying it replicates the value, whatever the binlog format), so a promoted
     * replica tells a token floor taken over by another server from one it took over itself. On a multi-writer
     * cluster, whose nodes issue tokens as one, {@code 0}: the nodes must not move each other's counters to a new epoch.
     */
    private static final String TOKEN_SERVER = "${token_server}";

    private static final int MAX_RENDERED = 256;

    /** How long after a failed read of the topology the next one may be made. */
    private static final long READ_AGAIN_NANOS = TimeUnit.SECONDS.toNanos(1);

    /**
     * Stands in statements for the start of the server that issues fencing tokens, in seconds since 1970: with
     * {@code ${token_server}} it tells a reign, so a server that starts again (it may have been another's replica in
     * between, or missed another's reign) starts a new fencing epoch ({@code TokenFloor}). Derived from the server's
     * {@code Uptime} and the statement's start, which advance together, so it is the same in every statement of one
     * run of the server, whatever {@code @@timestamp} says. Reading the status table costs about 0.1-0.3 ms, so each
     * session reads it once, into a user variable: a session lives and dies on one server, within one of its runs, so
     * the value is always that of the server the statement runs on (MySQL 8 warns that such an assignment is
     * deprecated, and runs it). {@code 0} on a multi-writer cluster, like the server.
     */
    private static final String TOKEN_BOOT = "${token_boot}";

    private final String table;
    // Written once more at most, when a topology that could not be read at start is read: the statements' cache is
    // replaced after it, so a reader that sees the new cache sees the new topology (render reads them in that order).
    private volatile ClusterTopology topology;
    private volatile Map<String, String> rendered = new ConcurrentHashMap<>();
    private volatile @Nullable Supplier<ClusterTopology> reader;
    private final ReentrantLock reading = new ReentrantLock();
    private volatile long nextReadNanos = System.nanoTime();

    protected Dialect(String table, ClusterTopology topology) {
        this.table = TableName.validate(table);
        this.topology = topology;
    }

    /** The server family, e.g. {@code MySQL}. */
    public abstract String product();

    /** The expression of the server's start in seconds since 1970, from its status variable {@code Uptime}. */
    protected abstract String serverStart();

    /** The deployment the server belongs to (a server on its own, a Galera node, a replica...), as last read. */
    public final ClusterTopology topology() {
        return topology;
    }

    /**
     * The deployment, read again from the server first when it could not be read before and the last try was a second
     * ago or more; for the check before a lock, so that a topology unknown at start (ROW and NAMED refused) is learnt
     * at a later lock. Only one caller reads at a time; the others get the topology as it is.
     */
    public final ClusterTopology currentTopology() {
        ClusterTopology current = topology;
        Supplier<ClusterTopology> source = reader;
        if (current.known() || source == null || System.nanoTime() - nextReadNanos < 0 || !reading.tryLock()) {
            return current;
        }
        try {
            if (topology.known() || System.nanoTime() - nextReadNanos < 0) {
                return topology;
            }
            ClusterTopology read = source.get().declaringSingleWriter(current.singleWriterDeclared());
            nextReadNanos = System.nanoTime() + READ_AGAIN_NANOS;
            if (read.known()) {
                topology = read;
                rendered = new ConcurrentHashMap<>(); // ${token_server} depends on it
            }
            return read;
        } finally {
            reading.unlock();
        }
    }

    /** Where {@link #currentTopology()} reads the deployment again while it is not known. */
    final void readAgainWith(Supplier<ClusterTopology> reader) {
        this.reader = reader;
    }

    /**
     * The statement of an UPDATE template that decides from the row whether this owner holds a lock (a renewal, a
     * release), made to see every write committed anywhere in the cluster before it: on a Galera node, which applies
     * other nodes' commits a moment after they return, it waits for them ({@code wsrep_sync_wait}) instead of acting
     * on a state the lock has already left. Elsewhere the plain statement. Not for queries: Connector/J refuses a
     * query that starts with {@code SET}; those run through {@code LockJdbc.queryCausal}.
     */
    public String renderCausal(String template) {
        return render(template);
    }

    /**
     * The statement of a template: {@code ${table}} replaced by the lock table's name, which was checked to be safe,
     * and {@code ${token_server}} and {@code ${token_boot}} by the expressions of the server that issues fencing tokens
     * and of its start.
     */
    public final String render(String template) {
        // Statements are built on every lock operation: render each once. Templates are constants, except the few
        // that carry a wait in seconds, so the map stays small; past the bound, render without keeping.
        Map<String, String> cache = rendered;
        String cached = cache.get(template);
        if (cached != null) {
            return cached;
        }
        boolean oneIssuer = topology.multiWriter();
        String sql = template.replace(TABLE, table)
                .replace(TOKEN_SERVER, oneIssuer ? "0" : "@@server_id")
                .replace(
                        TOKEN_BOOT,
                        oneIssuer
                                ? "0"
                                : "COALESCE(@bizlock_token_boot, @bizlock_token_boot := " + serverStart() + ")");
        if (cache.size() < MAX_RENDERED) {
            cache.put(template, sql);
        }
        return sql;
    }
}
