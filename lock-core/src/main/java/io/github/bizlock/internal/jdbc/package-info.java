/**
 * The lock tables' DAOs (lease rows, fencing tokens, the modes lock names are bound to, schema, housekeeping), the SQL
 * each runs, and their plumbing.
 */
@NullMarked
package io.github.bizlock.internal.jdbc;

import org.jspecify.annotations.NullMarked;
