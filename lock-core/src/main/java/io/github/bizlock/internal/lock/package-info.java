/**
 * The lock manager: what every mode shares between a thread's request for a lock and its release. A lock goes through
 * one lifecycle, with one name for each stage:
 *
 * <ol>
 *   <li>A thread asks the {@link LockManager} for a lock; {@link ModeBindings} lets it pass only in the one mode the
 *       lock's name is bound to, for every process. It enters the {@link Gate} of its key and mode ({@link Gates}
 *       keeps the gates of the keys in use). The threads of this process queue at the gate, so one of them at a time
 *       talks to the database, and reentry costs no round trip.
 *   <li>The thread that passes the gate has the mode's {@link io.github.bizlock.internal.engine.LockEngine LockEngine}
 *       acquire the lock in the database; what the engine returns is a {@link io.github.bizlock.internal.engine.Grant
 *       Grant}.
 *   <li>The process keeps the grant as a {@link HeldGrant}: until when it may count on it, whether it was lost, and the
 *       fencing tokens reserved with it. The {@link Watchdog} renews it by having the engine keep it alive: a LEASE
 *       row's lease is extended, a ROW or NAMED session answers a heartbeat.
 *   <li>Each thread's turn with a held grant is a {@link Hold}, from its first acquisition to its last unlock, with a
 *       fencing token of its own ({@link FencingTokens}); the handles of a reentrant hold share it.
 *   <li>When a hold ends, {@link HandOff} decides whether the grant passes to the next thread waiting at the gate or is
 *       given back: released in the database by the {@link Releaser}, which waits for the database at most 2 s (on
 *       the unlocking thread where the engine bounds the wait itself, else on a thread of its own) and retries a
 *       failed LEASE release in the background. {@link Holds} takes a thread from the gate to its hold and back out.
 *   <li>A grant lost while held (its lease ended, or the database no longer holds it for this process) is reported by
 *       {@link LossReporter}, which tells the listeners on a thread of their own.
 *   <li>When the application stops, {@link Shutdown} refuses new acquisitions, gives holders a grace period, then
 *       reports the grants still held lost and releases them.
 * </ol>
 *
 * <p>{@link MultiKeyLocks} takes several keys of one name through this same lifecycle, one after the other in the
 * byte order of the keys, and gives them to the caller as one {@link DefaultMultiLockHandle}.
 *
 * <p>{@link LockSnapshot} is a gate as {@link LockManager#locks()} shows it at one moment; {@link InstanceId} makes the
 * process-unique owner id.
 */
@NullMarked
package io.github.bizlock.internal.lock;

import org.jspecify.annotations.NullMarked;
