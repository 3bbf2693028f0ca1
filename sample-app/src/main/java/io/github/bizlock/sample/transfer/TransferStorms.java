package io.github.bizlock.sample.transfer;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.stereotype.Component;

/** Runs many transfers at once in both directions, through the locked {@link TransferService}. */
@Component
public class TransferStorms {

    private final TransferService transfers;

    public TransferStorms(TransferService transfers) {
        this.transfers = transfers;
    }

    /** Runs {@code count} transfers of 1 between the accounts on 8 threads, half in each direction. */
    public TransferStorm run(String a, String b, int count) throws InterruptedException {
        long started = System.nanoTime();
        int booked = 0;
        int refused = 0;
        int failed = 0;
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Future<Transfer>> running = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                boolean forward = i % 2 == 0;
                running.add(threads.submit(() -> transfers.transfer(forward ? a : b, forward ? b : a, 1)));
            }
            for (Future<Transfer> transfer : running) {
                try {
                    if (transfer.get(2, TimeUnit.MINUTES).booked()) {
                        booked++;
                    } else {
                        refused++;
                    }
                } catch (ExecutionException | TimeoutException ex) {
                    failed++;
                }
            }
        } finally {
            threads.shutdownNow();
        }
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        return new TransferStorm(count, booked, refused, failed, elapsed, transfers.report(List.of(a, b)));
    }
}
