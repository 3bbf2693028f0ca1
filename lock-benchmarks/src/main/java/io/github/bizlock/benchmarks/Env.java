package io.github.bizlock.benchmarks;

import java.util.List;

/** Where the subjects connect: the benchmark database and Redis; passed on to the worker JVMs as arguments. */
record Env(String jdbcUrl, String user, String password, String redisHost, int redisPort) {

    List<String> toArgs() {
        return List.of(jdbcUrl, user, password, redisHost, Integer.toString(redisPort));
    }

    static Env fromArgs(String[] args, int from) {
        return new Env(args[from], args[from + 1], args[from + 2], args[from + 3], Integer.parseInt(args[from + 4]));
    }
}
