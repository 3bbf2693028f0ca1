/** All SQL, one class per server family, as text blocks that read as SQL; server detection; the checked table name. */
@NullMarked
package io.github.bizlock.internal.jdbc.dialect;

import org.jspecify.annotations.NullMarked;
