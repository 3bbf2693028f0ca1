package io.github.bizlock.benchmarks;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** What the report's header says about where it ran: the database product, Redis's version, the machine's memory. */
final class Machine {

    private Machine() {}

    /** {@code MySQL 8.0.31} or {@code MariaDB 10.11.19}, from the server's {@code VERSION()}. */
    static String product(String version) {
        return version.toLowerCase(Locale.ROOT).contains("mariadb")
                ? "MariaDB " + version.split("-")[0]
                : "MySQL " + version.split("-")[0];
    }

    /** Redis's {@code redis_version}, from a plain {@code INFO server}, or {@code unknown}. */
    static String redisVersion(Env env) {
        try (Socket socket = new Socket(env.redisHost(), env.redisPort())) {
            socket.getOutputStream().write("*2\r\n$4\r\nINFO\r\n$6\r\nserver\r\n".getBytes(StandardCharsets.US_ASCII));
            BufferedReader in =
                    new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.startsWith("redis_version:")) {
                    return line.substring("redis_version:".length()).strip();
                }
            }
        } catch (Exception ex) {
            return "unknown";
        }
        return "unknown";
    }

    static long memoryGib() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    long kib = Long.parseLong(line.replaceAll("\\D", ""));
                    return Math.round(kib / 1024.0 / 1024.0);
                }
            }
        } catch (Exception ex) {
            // not Linux
        }
        return Runtime.getRuntime().maxMemory() >> 30;
    }
}
