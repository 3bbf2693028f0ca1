package io.github.bizlock.internal.jdbc;

import io.github.bizlock.internal.jdbc.dialect.ServerErrors;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;

/**
 * Logs lease acquisitions the database refused for now, at most once every 10 s, so a node out of its cluster shows.
 */
final class AcquireRefusals {

    private static final Logger log = LoggerFactory.getLogger(LeaseDao.class);
    private static final long EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final AtomicLong lastLogged = new AtomicLong(System.nanoTime() - EVERY_NANOS);
    private final AtomicLong since = new AtomicLong();

    /**
     * Nothing acquired, if the database refused the attempt for now (a write conflict, a node out of its cluster's
     * primary component): reported, and the caller tries again. Any other failure is thrown.
     */
    OptionalLong nothingIfRefusedForNow(DataAccessException ex) {
        if (!ServerErrors.refusedForNow(ex)) {
            throw ex;
        }
        report(ex);
        return OptionalLong.empty();
    }

    private void report(DataAccessException ex) {
        long count = since.incrementAndGet();
        long last = lastLogged.get();
        long now = System.nanoTime();
        if (now - last >= EVERY_NANOS && lastLogged.compareAndSet(last, now)) {
            since.addAndGet(-count);
            log.warn(
                    "bizlock: the database refused {} lock acquisition(s) for now and they will be tried again;"
                            + " the last: {} (1213 and 3101 are write conflicts with another node or session; 1047 and 1180"
                            + " mean the node is not part of the cluster's primary component: check the node, or use"
                            + " a JDBC URL that fails over to another)",
                    count,
                    ex.getMostSpecificCause().getMessage());
        }
    }
}
