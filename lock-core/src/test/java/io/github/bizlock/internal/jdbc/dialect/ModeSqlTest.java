package io.github.bizlock.internal.jdbc.dialect;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ModeSqlTest {

    @Test
    void plainNamesAreQuotedAndOthersWrittenInHex() {
        assertThat(ModeSql.literal("stock")).isEqualTo("'stock'");
        assertThat(ModeSql.literal("Reports.build")).isEqualTo("'Reports.build'");
        assertThat(ModeSql.literal("o'neil")).isEqualTo("X'6f276e65696c'");
        assertThat(ModeSql.literal("a\\b")).isEqualTo("X'615c62'");
        assertThat(ModeSql.literal("库存")).isEqualTo("X'e5ba93e5ad98'");
    }

    @Test
    void spaceAndTildeAreTheEndsOfThePrintableRangeThatIsQuoted() {
        assertThat(ModeSql.literal("a b~")).isEqualTo("'a b~'");
        assertThat(ModeSql.literal("a\u001fb")).isEqualTo("X'611f62'");
        assertThat(ModeSql.literal("a\u007fb")).isEqualTo("X'617f62'");
    }
}
