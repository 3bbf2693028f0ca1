/** The server family behind the lock data source, detected once, and the checked lock table name put into its SQL. */
@NullMarked
package io.github.bizlock.internal.jdbc.dialect;

import org.jspecify.annotations.NullMarked;
