package io.github.bizlock.internal.jdbc.dialect;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

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
    private final ClusterTopology topology;

    protected Dialect(String table, ClusterTopology topology) {
        this.table = TableName.validate(table);
        this.topology = topology;
    }

    private static final int MAX_RENDERED = 256;

    private final Map<String, String> rendered = new ConcurrentHashMap<>();

    /** The server family, e.g. {@code MySQL}. */
    public abstract String product();

    /** The expression of the server's start in seconds since 1970, from its status variable {@code Uptime}. */
    protected abstract String serverStart();

    /** The deployment the server belongs to (a server on its own, a Galera node, a replica...). */
    public final ClusterTopology topology() {
        return topology;
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
        String cached = rendered.get(template);
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
        if (rendered.size() < MAX_RENDERED) {
            rendered.put(template, sql);
        }
        return sql;
    }
}
