package io.github.bizlock.sample;

import java.time.Duration;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/** Which replica this is, and how long its simulated business work takes. */
@Component
public class SampleInstance {

    private final String name;
    private final Duration work;

    public SampleInstance(
            @Value("${sample.instance-name:replica-${server.port:8080}}") String name,
            @Value("${sample.work:20ms}") Duration work) {
        this.name = name;
        this.work = work;
    }

    public String name() {
        return name;
    }

    /**
     * Stands for the slow part of real work (a remote call, a price check) between reading and writing, which is
     * where concurrent requests interleave.
     */
    public void simulateWork() {
        try {
            Thread.sleep(work.toMillis());
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", ex);
        }
    }
}
