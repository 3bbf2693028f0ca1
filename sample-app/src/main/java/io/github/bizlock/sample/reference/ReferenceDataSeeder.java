package io.github.bizlock.sample.reference;

import io.github.bizlock.LockMode;
import io.github.bizlock.annotation.DistributedLock;
import io.github.bizlock.annotation.OnFailure;
import io.github.bizlock.sample.SampleInstance;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

@Service
public class ReferenceDataSeeder {

    private final JdbcTemplate jdbc;
    private final SampleInstance instance;

    public ReferenceDataSeeder(JdbcTemplate jdbc, SampleInstance instance) {
        this.jdbc = jdbc;
        this.instance = instance;
    }

    /**
     * Seeds the reference data unless it is there. A replica that finds another one seeding right now skips
     * ({@code onFailure = SKIP} returns {@code null} without running the method): the other one does the work. A NAMED
     * lock ({@code GET_LOCK}) suits start-up work: if the seeding replica dies, the server frees the lock at once.
     *
     * @return whether this replica seeded, or {@code null} if it skipped because another was seeding
     */
    @DistributedLock(
            name = "seed",
            key = "'reference-data'",
            waitTime = "0s",
            onFailure = OnFailure.SKIP,
            mode = LockMode.NAMED)
    @Transactional
    public Boolean seedIfEmpty() {
        Integer rows = jdbc.queryForObject("SELECT COUNT(*) FROM reference_data", Integer.class);
        if (rows != null && rows > 0) {
            return false;
        }
        instance.simulateWork();
        jdbc.batchUpdate(
                "INSERT INTO reference_data (code, label) VALUES (?, ?)",
                java.util.List.of(new Object[] {"CNY", "Chinese yuan"}, new Object[] {"EUR", "Euro"}, new Object[] {
                    "USD", "US dollar"
                }));
        jdbc.update("INSERT INTO seed_runs (instance) VALUES (?)", instance.name());
        return true;
    }

    /** How many times the reference data was seeded (1 is right). */
    public int seedRuns() {
        Integer runs = jdbc.queryForObject("SELECT COUNT(*) FROM seed_runs", Integer.class);
        return runs == null ? 0 : runs;
    }
}
