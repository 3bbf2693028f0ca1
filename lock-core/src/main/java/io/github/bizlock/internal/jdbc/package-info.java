/**
 * The lock tables' DAOs, peers built once from one {@link io.github.bizlock.internal.jdbc.LockDatabase} (the dialect,
 * the lock table and the statement runner) and handed out as {@link io.github.bizlock.internal.jdbc.LockDaos}: lease
 * rows, fencing tokens, the modes lock names are bound to, schema, housekeeping, the migration lease. Their SQL is the
 * dialect's ({@code internal.jdbc.dialect}).
 */
@NullMarked
package io.github.bizlock.internal.jdbc;

import org.jspecify.annotations.NullMarked;
