package io.github.bizlock.internal.jdbc.session;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import java.time.Duration;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * A child JVM that takes one ROW or NAMED lock, prints {@code HELD <token>} and waits to be killed.
 *
 * <p>Arguments: mode, JDBC URL, user, password, lock name, lock key.
 */
public final class SessionHolderMain {

    private SessionHolderMain() {}

    public static void main(String[] args) throws Exception {
        LockMode mode = LockMode.valueOf(args[0]);
        DriverManagerDataSource dataSource = new DriverManagerDataSource(args[1], args[2], args[3]);
        SessionLocks locks = SessionLocks.open(mode, LockFixture.daos(dataSource), dataSource, 2);
        LockHandle handle = locks.template().acquire(args[4], args[5]);
        System.out.println("HELD " + handle.fencingToken());
        System.out.flush();
        Thread.sleep(Duration.ofMinutes(5).toMillis());
    }
}
