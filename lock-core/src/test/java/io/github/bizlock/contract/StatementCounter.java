package io.github.bizlock.contract;

import com.mysql.cj.MysqlConnection;
import com.mysql.cj.Query;
import com.mysql.cj.interceptors.QueryInterceptor;
import com.mysql.cj.log.Log;
import com.mysql.cj.protocol.Message;
import com.mysql.cj.protocol.Resultset;
import com.mysql.cj.protocol.ServerSession;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Counts the statements Connector/J sends on the connections whose URL names this class in {@code queryInterceptors}:
 * what the server's {@code Questions} counter counts (text queries and prepared-statement executions, transaction
 * control included; not pings), but for this test's connections only, so other clients of a shared server do not
 * move it.
 */
public final class StatementCounter implements QueryInterceptor {

    /** The URL parameter that installs the counter. */
    public static final String URL_PARAMETER = "queryInterceptors=" + StatementCounter.class.getName();

    private static final AtomicLong SENT = new AtomicLong();
    private static final AtomicLong MATCHED = new AtomicLong();
    private static volatile Predicate<String> matching = sql -> false;
    private static final int COM_QUERY = 3;
    private static final int COM_STMT_EXECUTE = 23;

    /** Statements sent so far on counted connections, in this JVM. */
    static long sent() {
        return SENT.get();
    }

    /** From now on, counts the statements whose SQL matches, from zero. */
    public static void countMatching(Predicate<String> which) {
        matching = which;
        MATCHED.set(0);
    }

    /** Statements sent on counted connections whose SQL matched, since {@link #countMatching}. */
    public static long matched() {
        return MATCHED.get();
    }

    @Override
    public QueryInterceptor init(MysqlConnection connection, Properties properties, Log log) {
        return this;
    }

    /** Every command packet passes here before it is sent; the first byte says which command it is. */
    @Override
    public <M extends Message> M preProcess(M packet) {
        int command = packet.getByteBuffer()[0];
        if (command == COM_QUERY || command == COM_STMT_EXECUTE) {
            SENT.incrementAndGet();
        }
        return null;
    }

    @Override
    public <T extends Resultset> T preProcess(Supplier<String> sql, Query query) {
        // Counted as a packet too; here the statement's text is at hand.
        if (matching.test(sql.get())) {
            MATCHED.incrementAndGet();
        }
        return null;
    }

    @Override
    public boolean executeTopLevelOnly() {
        return false;
    }

    @Override
    public void destroy() {}

    @Override
    public <T extends Resultset> T postProcess(
            Supplier<String> sql, Query query, T resultset, ServerSession serverSession) {
        return null;
    }
}
