package io.github.bizlock.autoconfigure;

import java.util.stream.Collectors;
import org.springframework.jdbc.core.JdbcTemplate;

/** What an administrator's SQL client does with the DDL bizlock prints: skips comments, runs each statement. */
final class AdministratorSql {

    private AdministratorSql() {}

    static void run(JdbcTemplate jdbc, String ddl) {
        String statements =
                ddl.lines().filter(line -> !line.strip().startsWith("--")).collect(Collectors.joining("\n"));
        for (String statement : statements.split(";")) {
            if (!statement.isBlank()) {
                jdbc.execute(statement);
            }
        }
    }
}
