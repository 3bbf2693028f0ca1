package io.github.bizlock.internal.jdbc.session;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.test.ChildJvm;
import io.github.bizlock.test.ParentLink;
import io.github.bizlock.test.TestDatabase;
import java.util.List;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * A child JVM that takes one ROW or NAMED lock, answers {@code HELD <token>} and keeps it until killed (or until the
 * test ends).
 *
 * <p>Arguments: mode, JDBC URL, user, password, lock name, lock key.
 */
public final class SessionHolderMain {

    private SessionHolderMain() {}

    /** Starts a holder of {@code name}/{@code key} in {@code mode} on {@code database}. */
    static ChildJvm start(LockMode mode, TestDatabase database, String name, String key) {
        return ChildJvm.builder(SessionHolderMain.class)
                .name("session-holder-" + mode)
                .args(mode.name(), database.jdbcUrl(), database.username(), database.password(), name, key)
                .start();
    }

    public static void main(String[] args) {
        ParentLink.run(args, SessionHolderMain::run);
    }

    private static void run(ParentLink parent, List<String> args) throws Exception {
        LockMode mode = LockMode.valueOf(args.get(0));
        DriverManagerDataSource dataSource = new DriverManagerDataSource(args.get(1), args.get(2), args.get(3));
        SessionLocks locks = SessionLocks.open(mode, LockFixture.daos(dataSource), dataSource, 2);
        LockHandle handle = locks.template().acquire(args.get(4), args.get(5));
        parent.answer("HELD " + handle.fencingToken());
        parent.awaitEnd();
    }
}
