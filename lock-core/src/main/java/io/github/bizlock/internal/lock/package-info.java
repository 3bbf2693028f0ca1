/**
 * The engine SPI and what every mode shares: the per-key JVM gate (reentrancy, one database waiter per JVM), the
 * watchdog that renews leases, and the process-unique owner id.
 */
@NullMarked
package io.github.bizlock.internal.lock;

import org.jspecify.annotations.NullMarked;
