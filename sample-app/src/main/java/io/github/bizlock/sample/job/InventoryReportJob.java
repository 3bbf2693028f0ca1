package io.github.bizlock.sample.job;

import io.github.bizlock.LockMode;
import io.github.bizlock.annotation.DistributedLock;
import io.github.bizlock.annotation.OnFailure;
import io.github.bizlock.sample.SampleInstance;
import java.time.Duration;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * A job every replica schedules, which must run once per tick for the whole cluster. The lock stops replicas running
 * it at the same moment; the slot check inside stops a replica whose clock fires a little later from running the same
 * tick again after the first has finished. A ROW lock ({@code SELECT ... FOR UPDATE NOWAIT}) answers "busy" in one
 * statement, and a crashed replica's lock frees as soon as the server notices its session is gone.
 */
@Service
public class InventoryReportJob {

    static final String JOB = "inventory-report";

    private final JdbcTemplate jdbc;
    private final SampleInstance instance;
    private final Duration period;

    public InventoryReportJob(
            JdbcTemplate jdbc, SampleInstance instance, @Value("${sample.job.period:10s}") Duration period) {
        this.jdbc = jdbc;
        this.instance = instance;
        this.period = period;
    }

    /** @return whether this replica ran the tick, or {@code null} if another held the lock */
    @DistributedLock(
            name = "job",
            key = "'inventory-report'",
            waitTime = "0s",
            onFailure = OnFailure.SKIP,
            mode = LockMode.ROW)
    @Transactional
    public Boolean runTick() {
        // The slot comes from the database clock, which all replicas share.
        Long slot = jdbc.queryForObject(
                "SELECT FLOOR(UNIX_TIMESTAMP(UTC_TIMESTAMP(6)) * 1000 / ?)", Long.class, period.toMillis());
        Integer done = jdbc.queryForObject(
                "SELECT COUNT(*) FROM job_runs WHERE job = ? AND slot = ?", Integer.class, JOB, slot);
        if (done != null && done > 0) {
            return false;
        }
        instance.simulateWork();
        jdbc.update("INSERT INTO job_runs (job, slot, instance) VALUES (?, ?, ?)", JOB, slot, instance.name());
        return true;
    }

    /** The most runs any tick has had (1 is right). */
    public int maxRunsPerTick() {
        Integer max = jdbc.queryForObject(
                "SELECT COALESCE(MAX(runs), 0) FROM (SELECT COUNT(*) AS runs FROM job_runs WHERE job = ?"
                        + " GROUP BY slot) r",
                Integer.class,
                JOB);
        return max == null ? 0 : max;
    }

    public int ticksRun() {
        Integer ticks =
                jdbc.queryForObject("SELECT COUNT(DISTINCT slot) FROM job_runs WHERE job = ?", Integer.class, JOB);
        return ticks == null ? 0 : ticks;
    }
}
