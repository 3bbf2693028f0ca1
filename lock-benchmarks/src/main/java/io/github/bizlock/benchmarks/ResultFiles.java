package io.github.bizlock.benchmarks;

import static io.github.bizlock.benchmarks.Timing.log;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The files of one server's run beside its report {@code <date>-<server>.md}: the raw waits
 * ({@code <date>-<server>-waits.csv}), the medians the throughput chart is drawn from
 * ({@code <date>-<server>-throughput.csv}), the wait-time CDF and strip charts of C1 and C
 * ({@code <date>-<server>-wait-cdf.png}, {@code -strip.png}), and the throughput chart of every server that ran that
 * day ({@code <date>-throughput.png}, one panel per server, redrawn by each server's run).
 */
final class ResultFiles {

    private static final List<String> THROUGHPUT_SCENARIOS =
            List.of("A", "B", "C1", "C", "C3", SemaphoreScenario.SCENARIO, SemaphoreScenario.ACROSS_JVMS);

    private final Path directory;
    private final String date;
    private final String server;

    ResultFiles(Path directory, String date, String server) {
        this.directory = directory;
        this.date = date;
        this.server = server;
    }

    /** {@code <date>-<server>}: what every file of this run is named after. */
    String base() {
        return date + "-" + server;
    }

    Path report() {
        return directory.resolve(base() + ".md");
    }

    /** Writes the CSVs and draws the charts; a chart that fails is logged, the report stands without it. */
    void write(Results results) throws IOException {
        Path waits = directory.resolve(base() + "-waits.csv");
        results.waits().writeCsv(waits);
        log("wrote %s", waits);
        writeThroughput(results);
        List<String> scenarios = List.of("C1", "C");
        try {
            Charts.waitCdf(
                    directory.resolve(base() + "-wait-cdf.png"),
                    results.waits(),
                    scenarios,
                    List.of(server + " C1: 8 threads of one client, one key", server + " C: 8 clients, one key"));
            Charts.strip(
                    directory.resolve(base() + "-strip.png"),
                    results.waits(),
                    scenarios,
                    List.of(server + " C1: acquisitions/s per thread", server + " C: acquisitions/s per instance"));
            drawThroughput();
            log("drew the charts in %s", directory);
        } catch (RuntimeException | IOException ex) {
            log("could not draw the charts: %s", ex);
        }
    }

    private void writeThroughput(Results results) throws IOException {
        StringBuilder csv = new StringBuilder("server,scenario,subject,per_second\n");
        for (String scenario : THROUGHPUT_SCENARIOS) {
            String metric = scenario.equals("A") || scenario.equals("B") ? "ops" : "acq";
            for (Subject subject : results.subjects(scenario)) {
                double value = results.median(scenario, subject, metric);
                if (!Double.isNaN(value)) {
                    csv.append(String.format(
                            Locale.ROOT, "%s,%s,\"%s\",%.1f%n", server, scenario, subject.label(), value));
                }
            }
        }
        Files.writeString(directory.resolve(base() + "-throughput.csv"), csv);
    }

    /** One panel per server whose throughput CSV of this date is in the directory. */
    private void drawThroughput() throws IOException {
        List<String> servers = new ArrayList<>();
        List<Charts.Throughput> bars = new ArrayList<>();
        List<Path> files;
        try (Stream<Path> listed = Files.list(directory)) {
            files = listed.filter(file -> file.getFileName().toString().startsWith(date + "-")
                            && file.getFileName().toString().endsWith("-throughput.csv"))
                    .sorted()
                    .toList();
        }
        for (Path file : files) {
            for (String line :
                    Files.readAllLines(file).subList(1, Files.readAllLines(file).size())) {
                // server,scenario,"subject",value: the subject is the only quoted field.
                int open = line.indexOf('"');
                int close = line.lastIndexOf('"');
                String[] head = line.substring(0, open).split(",");
                double value = Double.parseDouble(line.substring(close + 2));
                if (!servers.contains(head[0])) {
                    servers.add(head[0]);
                }
                bars.add(new Charts.Throughput(head[0], head[1], line.substring(open + 1, close), value));
            }
        }
        Charts.throughput(directory.resolve(date + "-throughput.png"), servers, bars);
    }
}
