package io.github.bizlock.benchmarks;

/**
 * The benchmark's environment variables, read once: {@code BENCH_RUNS} (3), {@code BENCH_SECONDS} (measured seconds per
 * scenario and subject, 1.5), {@code BENCH_WARMUP_SECONDS} (0.5), {@code BENCH_REDIS_PORT} (6379), and for the
 * servers {@code BENCH_MYSQL_PORT} (33307), {@code BENCH_MYSQL_DATA}, {@code BENCH_MARIADB_URL},
 * {@code BENCH_MARIADB_USER}, {@code BENCH_MARIADB_PASSWORD}; {@code BENCH_REVISION} names the code in the report.
 */
record Settings(int runs, double seconds, double warmup, int redisPort) {

    static Settings fromEnvironment() {
        return new Settings(
                Integer.parseInt(get("BENCH_RUNS", "3")),
                Double.parseDouble(get("BENCH_SECONDS", "1.5")),
                Double.parseDouble(get("BENCH_WARMUP_SECONDS", "0.5")),
                Integer.parseInt(get("BENCH_REDIS_PORT", "6379")));
    }

    /** The variable {@code name}, or {@code fallback} when it is unset or blank. */
    static String get(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
