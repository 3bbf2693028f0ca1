package io.github.bizlock.internal.jdbc.dialect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The table name goes into SQL text as it is, so only plain identifiers of at most 47 characters pass (every name derived from them fits 64). */
class TableNameTest {

    @Test
    void plainIdentifiersUpToTheLimitPass() {
        assertThat(TableName.validate("biz_lock")).isEqualTo("biz_lock");
        assertThat(TableName.validate("_Lock2")).isEqualTo("_Lock2");
        String longest = "t".repeat(TableName.MAX_LENGTH);
        assertThat(TableName.validate(longest)).isEqualTo(longest);
    }

    @Test
    void aNameOverFortySevenCharactersIsRefusedWithItsLength() {
        String name = "t".repeat(TableName.MAX_LENGTH + 1);
        assertThatThrownBy(() -> TableName.validate(name))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is 48 characters; at most 47 are allowed");
    }

    @Test
    void blankAndMissingNamesAreRefused() {
        assertThatThrownBy(() -> TableName.validate(null)).hasMessageContaining("must not be blank");
        assertThatThrownBy(() -> TableName.validate(" ")).hasMessageContaining("must not be blank");
    }

    @Test
    void anythingThatIsNotAPlainIdentifierIsRefused() {
        for (String name : new String[] {"app.biz_lock", "`biz_lock`", "biz lock", "1lock", "lock;DROP"}) {
            assertThatThrownBy(() -> TableName.validate(name))
                    .as(name)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("is not a plain SQL identifier");
        }
    }
}
