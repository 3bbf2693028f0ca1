/**
 * The ROW and NAMED engines: one {@link io.github.bizlock.internal.jdbc.session.SessionLockEngine} holding a database
 * session per lock, with each mode's statements as its steps, the session pool, and the canceller that ends waits on
 * time. Only the engine is public.
 */
@NullMarked
package io.github.bizlock.internal.jdbc.session;

import org.jspecify.annotations.NullMarked;
