package io.github.bizlock.internal.jdbc.dialect;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A server family, MySQL 8 or MariaDB, and the lock table that bizlock's statements are rendered for: the one place
 * that knows how the two differ. The statements themselves are the MySQL family's, one class per table or duty in this
 * package ({@code LeaseSql}, {@code TokenSql}, {@code ModeSql}, {@code SchemaSql}, {@code HousekeepingSql},
 * {@code MigrationLeaseSql}, {@code SessionSql}, {@code RowSql}, {@code ReadLeaseSql}, {@code TopologyProbe}), each rendered once, when it
 * is built, by {@link #render}, {@link #statement} or {@link #causal}. The templates have one kind of placeholder,
 * {@code ${name}}: {@code ${table}}, {@code ${token_server}} and {@code ${token_boot}} filled here, others by the class
 * that composes its statements ({@link #fill}). {@link ServerErrors} holds the family's error codes.
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
    // Written once more at most, when a topology that could not be read at start is read; each Statement picks its
    // form from it at each use.
    private volatile ClusterTopology topology;
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
    abstract String serverStart();

    /**
     * What a causal statement starts with on a Galera node, so that it waits until every write committed anywhere in
     * the cluster is applied here; empty where the server has no per-statement form (then the DAO's causal reads set
     * the session's wait around the query, {@link #causalReadsOn()}).
     */
    abstract String causalPrefix();

    /** The locking clause of ROW's waiting {@code SELECT}, to which {@link #rowWaitInStatement()} adds the seconds. */
    abstract String rowLockWaiting();

    /**
     * The locking clause of a ROW read lock's {@code SELECT}, a shared row lock, to which {@code NOWAIT} or the
     * waiting form is added: {@code FOR SHARE} on MySQL 8, {@code LOCK IN SHARE MODE} on MariaDB, which has no
     * {@code FOR SHARE}.
     */
    abstract String rowShareLocking();

    /** Whether ROW's waiting {@code SELECT} names its wait in seconds, after {@link #rowLockWaiting()}. */
    abstract boolean rowWaitInStatement();

    /** The statement that sets the session's row-lock wait (parameter: seconds), or null when the SELECT names it. */
    abstract @Nullable String rowLockWaitTimeout();

    /** The error code of a {@code FOR UPDATE NOWAIT} that found the row locked. */
    abstract int rowNowaitErrorCode();

    /** The lock table's name, checked to be a plain identifier. */
    public final String table() {
        return table;
    }

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
     * Run before a query that decides whether a lock is held, on its connection, on a Galera node: the query then waits
     * until every write committed anywhere in the cluster is applied here, so it never reads a holder that has already
     * left. Connector/J refuses a query that starts with {@code SET}, so the wait is the session's, for that query
     * only.
     */
    public final String causalReadsOn() {
        return "SET SESSION wsrep_sync_wait = 1";
    }

    /** Run after the query that {@link #causalReadsOn()} prepared: the connection goes back to the pool as it was. */
    public final String causalReadsOff() {
        return "SET SESSION wsrep_sync_wait = DEFAULT";
    }

    /**
     * A statement that names neither the issuer of tokens nor needs causality: {@code ${table}} replaced by the lock
     * table's name.
     *
     * @param late placeholders the caller fills at each use ({@link #fill}), left in place: an operator's script that
     *     names a lock
     * @throws IllegalArgumentException if the template names the issuer of tokens ({@link #statement} renders those),
     *     or a placeholder other than {@code late} is left
     */
    public final String render(String template, String... late) {
        if (template.contains(TOKEN_SERVER) || template.contains(TOKEN_BOOT)) {
            throw new IllegalArgumentException("A statement that issues fencing tokens differs by deployment: render"
                    + " it with Dialect.statement, not render:\n" + template);
        }
        String sql = template.replace(TABLE, table);
        String checked = sql;
        for (String name : late) {
            checked = fill(checked, name, "");
        }
        complete(checked);
        return sql;
    }

    /**
     * A statement in each form a deployment needs: {@code ${table}} replaced by the lock table's name, and
     * {@code ${token_server}} and {@code ${token_boot}} by the expressions of the server that issues fencing tokens and
     * of its start (both {@code 0} on a multi-writer cluster, whose nodes issue as one).
     *
     * @throws IllegalArgumentException if a placeholder is left
     */
    public final Statement statement(String template) {
        String multiWriter = issuing(template, true);
        return new Statement(this, issuing(template, false), multiWriter, multiWriter);
    }

    /**
     * {@link #statement} for an UPDATE that decides from the row whether this owner holds a lock (a renewal, a
     * release): on a Galera node, which applies other nodes' commits a moment after they return, it waits for them
     * ({@link #causalPrefix()}) instead of acting on a state the lock has already left. Not for queries: Connector/J
     * refuses a query that starts with {@code SET}; those run with {@link #causalReadsOn()}.
     */
    public final Statement causal(String template) {
        String multiWriter = issuing(template, true);
        return new Statement(this, issuing(template, false), multiWriter, causalPrefix() + multiWriter);
    }

    private String issuing(String template, boolean oneIssuer) {
        return complete(template.replace(TABLE, table)
                .replace(TOKEN_SERVER, oneIssuer ? "0" : "@@server_id")
                .replace(
                        TOKEN_BOOT,
                        oneIssuer
                                ? "0"
                                : "COALESCE(@bizlock_token_boot, @bizlock_token_boot := " + serverStart() + ")"));
    }

    /** The statement, once no placeholder is left in it: a misspelt one fails when its holder is built. */
    private static String complete(String sql) {
        int left = sql.indexOf("${");
        if (left >= 0) {
            throw new IllegalArgumentException("A statement still names the placeholder "
                    + sql.substring(left, Math.max(left, sql.indexOf('}', left)) + 1) + ":\n" + sql);
        }
        return sql;
    }

    /** Fills the placeholder {@code ${name}} of a template with {@code value}: composing statements from parts. */
    public static String fill(String template, String name, String value) {
        return template.replace("${" + name + "}", value);
    }
}
