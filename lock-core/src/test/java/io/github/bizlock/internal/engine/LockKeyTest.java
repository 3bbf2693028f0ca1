package io.github.bizlock.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** What a lock may be called: limits in bytes of UTF-8, and nothing two different texts would share in the database. */
class LockKeyTest {

    @Test
    void namesAndKeysUpToTheirByteLimitsPass() {
        String name = "n".repeat(LockKey.MAX_NAME_BYTES);
        String key = "k".repeat(LockKey.MAX_KEY_BYTES);
        LockKey lock = new LockKey(name, key);
        assertThat(lock.name()).isEqualTo(name);
        assertThat(lock.key()).isEqualTo(key);
    }

    @Test
    void aNameOneByteOverTheLimitIsRefusedWithItsSize() {
        // 63 two-byte characters and three one-byte ones: 66 characters, 129 bytes.
        String name = "é".repeat(63) + "abc";
        assertThatThrownBy(() -> new LockKey(name, "1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("The lock name is 129 bytes of UTF-8, more than the 128 allowed")
                .hasMessageContaining("'" + name.substring(0, 40) + "...'");
    }

    @Test
    void aKeyOneByteOverTheLimitIsRefused() {
        assertThatThrownBy(() -> new LockKey("order", "k".repeat(LockKey.MAX_KEY_BYTES + 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("The lock key is 513 bytes of UTF-8, more than the 512 allowed");
    }

    @Test
    void anOverlongValueIsQuotedCutToFortyCharacters() {
        // 43 three-byte characters are 129 bytes, the shortest name over the limit; the message shows the first 40.
        String name = "€".repeat(43);
        assertThatThrownBy(() -> new LockKey(name, "1"))
                .hasMessageContaining("'" + "€".repeat(40) + "...'")
                .hasMessageNotContaining("€".repeat(41));
    }

    @Test
    void nullAndBlankAreRefusedNamingWhich() {
        assertThatThrownBy(() -> new LockKey(null, "1")).hasMessage("The lock name must not be null");
        assertThatThrownBy(() -> new LockKey("order", null)).hasMessage("The lock key must not be null");
        assertThatThrownBy(() -> new LockKey(" ", "1")).hasMessageContaining("The lock name must not be blank");
        assertThatThrownBy(() -> new LockKey("order", "\t")).hasMessageContaining("The lock key must not be blank");
    }

    @Test
    void nulIsRefusedWithItsIndex() {
        assertThatThrownBy(() -> new LockKey("order", "a\0b"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("The lock key contains U+0000 (NUL) at index 1");
    }

    @Test
    void aLoneSurrogateIsRefusedButAPairIsOneCharacter() {
        assertThat(new LockKey("order", "😀").key()).isEqualTo("😀");
        assertThat(new LockKey("order", "a😀b😀").key()).isEqualTo("a😀b😀");
        assertThatThrownBy(() -> new LockKey("order", "a\uD83D"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("The lock key contains a lone surrogate U+D83D at index 1");
        assertThatThrownBy(() -> new LockKey("order", "\uDE00x"))
                .hasMessageContaining("lone surrogate U+DE00 at index 0");
        // A high surrogate followed by something other than a low one is alone too.
        assertThatThrownBy(() -> new LockKey("order", "\uD83Dx")).hasMessageContaining("lone surrogate U+D83D");
        // Two high surrogates: the second is checked on its own, not skipped as the end of a pair.
        assertThatThrownBy(() -> new LockKey("order", "😀\uD83D")).hasMessageContaining("at index 2");
    }

    @Test
    void printsAsNameSlashKey() {
        assertThat(new LockKey("order", "42")).hasToString("order/42");
    }
}
