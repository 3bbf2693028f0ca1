package io.github.bizlock.internal.jdbc.dialect;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.springframework.jdbc.CannotGetJdbcConnectionException;

/** Picks the dialect from what the server says it is, and refuses servers too old for bizlock's SQL. */
public final class Dialects {

    private static final Pattern VERSION = Pattern.compile("(\\d+)\\.(\\d+)\\.(\\d+)");

    private Dialects() {}

    public static Dialect detect(DataSource dataSource, String table) {
        return detect(dataSource, table, false);
    }

    /**
     * The dialect of the server behind the DataSource, with the deployment it belongs to.
     *
     * @param singleWriter whether the user declared that every instance sends all lock traffic to one node of a
     *     multi-writer cluster, which lets ROW and NAMED locks run there
     */
    public static Dialect detect(DataSource dataSource, String table, boolean singleWriter) {
        try (Connection connection = dataSource.getConnection()) {
            DatabaseMetaData metaData = connection.getMetaData();
            ClusterTopology topology = TopologyProbe.detect(connection).declaringSingleWriter(singleWriter);
            Dialect dialect =
                    forServer(metaData.getDatabaseProductName(), metaData.getDatabaseProductVersion(), table, topology);
            if (!topology.known()) {
                dialect.readAgainWith(() -> readTopology(dataSource));
            }
            return dialect;
        } catch (SQLException ex) {
            throw new CannotGetJdbcConnectionException("bizlock could not connect to detect the database server", ex);
        }
    }

    private static ClusterTopology readTopology(DataSource dataSource) {
        try (Connection connection = dataSource.getConnection()) {
            return TopologyProbe.detect(connection);
        } catch (SQLException ex) {
            return ClusterTopology.unknown(ex.getMessage());
        }
    }

    /**
     * The dialect for a server.
     *
     * @throws IllegalStateException if the server is not MySQL 8.0+ or MariaDB 10.6+
     */
    static Dialect forServer(String productName, String productVersion, String table) {
        return forServer(productName, productVersion, table, ClusterTopology.SINGLE_SERVER);
    }

    /**
     * The dialect for a server of a given product, version and deployment: {@link #detect} without asking the server,
     * for tests that need another server's statements or topology.
     *
     * @throws IllegalStateException if the server is not MySQL 8.0+ or MariaDB 10.6+
     */
    public static Dialect forServer(String productName, String productVersion, String table, ClusterTopology topology) {
        String product = productName.toLowerCase(Locale.ROOT);
        boolean mariaDb = product.contains("mariadb")
                || productVersion.toLowerCase(Locale.ROOT).contains("mariadb");
        if (!mariaDb && !product.contains("mysql")) {
            throw new IllegalStateException("bizlock runs on MySQL 8.0+ and MariaDB 10.6+, but the DataSource is "
                    + productName + " " + productVersion
                    + "; point bizlock at a MySQL or MariaDB DataSource (bizlock.datasource names one bean)");
        }
        // MariaDB behind the MySQL protocol may report "5.5.5-10.11.6-MariaDB": the last version number is the real
        // one.
        Matcher matcher = VERSION.matcher(productVersion);
        int major = 0;
        int minor = 0;
        while (matcher.find()) {
            major = Integer.parseInt(matcher.group(1));
            minor = Integer.parseInt(matcher.group(2));
            if (!mariaDb) {
                break;
            }
        }
        if (mariaDb) {
            if (major < 10 || (major == 10 && minor < 6)) {
                throw unsupported("MariaDB", productVersion, "10.6");
            }
            return new MariaDbDialect(table, topology);
        }
        if (major < 8) {
            throw unsupported("MySQL", productVersion, "8.0");
        }
        return new MySqlDialect(table, topology);
    }

    private static IllegalStateException unsupported(String product, String version, String minimum) {
        return new IllegalStateException("bizlock needs " + product + " " + minimum + " or later (for NOWAIT, "
                + "SKIP LOCKED and DATETIME(6) lease arithmetic), but the server is " + product + " " + version
                + "; upgrade the server");
    }
}
