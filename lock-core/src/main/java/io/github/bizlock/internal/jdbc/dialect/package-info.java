/**
 * The server family behind the lock data source, detected once, and everything bizlock sends it: the MySQL family's
 * statements, one class per table or duty ({@code *Sql}, {@code TopologyProbe}), rendered once for the checked lock
 * table name; how MySQL and MariaDB differ ({@code MySqlDialect}, {@code MariaDbDialect}); the server's error codes
 * ({@code ServerErrors}).
 */
@NullMarked
package io.github.bizlock.internal.jdbc.dialect;

import org.jspecify.annotations.NullMarked;
