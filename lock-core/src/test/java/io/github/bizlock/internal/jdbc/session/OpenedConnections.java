package io.github.bizlock.internal.jdbc.session;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/** A data source that counts the connections it opened, and remembers the last and the thread that opened it. */
final class OpenedConnections extends DelegatingDataSource {

    final AtomicInteger opened = new AtomicInteger();
    volatile Connection last;
    volatile Thread openedOn;

    OpenedConnections(DataSource target) {
        super(target);
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection connection = super.getConnection();
        opened.incrementAndGet();
        last = connection;
        openedOn = Thread.currentThread();
        return connection;
    }
}
