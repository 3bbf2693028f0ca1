package io.github.bizlock.internal.jdbc.session;

import io.github.bizlock.internal.jdbc.dialect.SessionSql;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A session engine's data source for tests: it remembers the connections it opened, in order (the engine's sessions,
 * and the canceller's kill connection once a wait had to be ended), so a test can run statements on a session behind
 * the engine's back; and it can make them answer {@code SELECT CONNECTION_ID()} as another live connection, which is
 * what a driver that reconnected behind a session's back (Connector/J's {@code autoReconnect}) leaves: the server id
 * that a session recorded is not the one its statements now run on. Every other statement runs on the connection
 * itself, on the real server.
 */
public final class SessionConnections extends DelegatingDataSource implements AutoCloseable {

    private final List<Connection> opened = new CopyOnWriteArrayList<>();
    private volatile boolean answerAsAnother;
    private Connection another;

    public SessionConnections(DataSource target) {
        super(target);
    }

    /** How many connections were opened through this data source. */
    public int opened() {
        return opened.size();
    }

    /** The {@code index}th connection opened, from 0. */
    public Connection connection(int index) {
        return opened.get(index);
    }

    /**
     * From now on {@code SELECT CONNECTION_ID()} (and any statement made with {@code createStatement()}, which opening
     * a session reads its id with) runs on another connection. A statement prepared before keeps its connection.
     */
    public void answerConnectionIdAsAnother() {
        answerAsAnother = true;
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection connection = super.getConnection();
        Connection session = (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(),
                new Class<?>[] {Connection.class},
                (proxy, method, args) ->
                        call(answersConnectionId(method, args) ? another() : connection, method, args));
        opened.add(session);
        return session;
    }

    private boolean answersConnectionId(Method method, Object[] args) {
        if (!answerAsAnother) {
            return false;
        }
        return method.getName().equals("createStatement") && method.getParameterCount() == 0
                || method.getName().equals("prepareStatement")
                        && method.getParameterCount() == 1
                        && SessionSql.CONNECTION_ID.equals(args[0]);
    }

    private synchronized Connection another() throws SQLException {
        if (another == null) {
            another = super.getConnection();
        }
        return another;
    }

    private static Object call(Connection target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException ex) {
            throw ex.getCause();
        }
    }

    @Override
    public synchronized void close() throws SQLException {
        if (another != null) {
            another.close();
        }
    }
}
