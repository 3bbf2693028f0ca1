package io.github.bizlock.benchmarks;

/**
 * What every scenario measures with: where its subjects connect, the statement counters, the results it adds to, and
 * how long it measures.
 */
record ScenarioContext(Env env, Stats stats, Results results, Settings settings) {}
