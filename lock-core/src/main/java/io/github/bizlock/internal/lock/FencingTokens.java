package io.github.bizlock.internal.lock;

/**
 * Gives each hold its fencing token: the next one reserved with its grant, or, for a grant that came without tokens,
 * one the engine issues while the hold still has the lock.
 */
final class FencingTokens {

    private final HandOff handOff;
    private final LossReporter losses;

    FencingTokens(HandOff handOff, LossReporter losses) {
        this.handOff = handOff;
        this.losses = losses;
    }

    /**
     * The fencing token of a hold: the one it took with the grant, or one issued now, while the hold still has the
     * lock, by an engine that issues tokens on demand. Issued while held, it is above the token of every earlier hold
     * and below that of every later one.
     */
    long fencingToken(DefaultLockHandle handle) {
        Hold hold = handle.hold;
        long token = hold.token();
        if (token != 0) {
            return token;
        }
        HeldGrant held = hold.heldGrant;
        held.tokenLock.lock();
        try {
            token = hold.token();
            if (token != 0) {
                return token;
            }
            if (handle.unlocked) {
                throw new IllegalStateException("Lock " + handle.gate.id.key() + " was unlocked before its fencing"
                        + " token was asked for; ROW and NAMED issue tokens on demand, so ask while holding the lock");
            }
            if (held.hold() != hold || !held.isValid()) {
                throw losses.lostException(hold);
            }
            token = held.takeReservedToken();
            if (token == 0) {
                int count = handOff.tokensToReserve(handle.gate.waiting(), held.handoffs());
                long top = held.engine().issueTokens(held.grant(), count);
                held.reserved(top, count);
                token = held.takeReservedToken();
            }
            hold.token(token);
            return token;
        } finally {
            held.tokenLock.unlock();
        }
    }
}
