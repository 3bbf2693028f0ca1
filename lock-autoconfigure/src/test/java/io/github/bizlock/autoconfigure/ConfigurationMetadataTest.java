package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.service.LockDefaults;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.json.JsonParserFactory;

/** The generated metadata that IDEs complete {@code bizlock.*} properties from, and the tables of them in README and docs. */
class ConfigurationMetadataTest {

    private static final List<String> PROPERTIES = List.of(
            "bizlock.advisor-order",
            "bizlock.backoff.initial",
            "bizlock.backoff.max",
            "bizlock.cluster.single-writer",
            "bizlock.datasource",
            "bizlock.enabled",
            "bizlock.fail-fast",
            "bizlock.endpoint.force-release.enabled",
            "bizlock.endpoint.max-locks",
            "bizlock.endpoint.roles",
            "bizlock.endpoint.show-values",
            "bizlock.fair",
            "bizlock.housekeeping.batch-size",
            "bizlock.housekeeping.enabled",
            "bizlock.housekeeping.interval",
            "bizlock.housekeeping.retention",
            "bizlock.instance-id",
            "bizlock.local-handoffs",
            "bizlock.lease-time",
            "bizlock.metrics.key-tag-names",
            "bizlock.migration.enabled",
            "bizlock.mode",
            "bizlock.named.secret",
            "bizlock.on-lost",
            "bizlock.refuse-in-snapshot-transaction",
            "bizlock.session.heartbeat",
            "bizlock.shutdown-grace-period",
            "bizlock.session.max-connections",
            "bizlock.table-name",
            "bizlock.wait-time",
            "bizlock.wake-up",
            "bizlock.watchdog-lease",
            "bizlock.writes.max-connections");

    /** Former names, read for one release; in the metadata, deprecated, and in no table of README or the docs. */
    private static final Map<String, String> RENAMED =
            Map.of("bizlock.connections.max-size", "bizlock.writes.max-connections");

    /**
     * The metadata in the classes folder (or jar) that holds {@link BizLockProperties}, not the first on the class path:
     * Spring Boot's jars carry theirs, and a build whose processor did not run (JDK 23+ runs none found on the class
     * path) must fail here.
     */
    private static Map<String, Object> metadata() throws IOException {
        URL classes =
                BizLockProperties.class.getProtectionDomain().getCodeSource().getLocation();
        try (URLClassLoader module = new URLClassLoader(new URL[] {classes}, null);
                InputStream in = module.getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("metadata generated into " + classes).isNotNull();
            return JsonParserFactory.getJsonParser().parseMap(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(Map<String, Object> metadata, String name) {
        return (List<Map<String, Object>>) metadata.get(name);
    }

    @Test
    void listsEveryPropertyWithAOneSentenceDescription() throws IOException {
        List<Map<String, Object>> properties = list(metadata(), "properties");
        assertThat(properties)
                .extracting(property -> (String) property.get("name"))
                .filteredOn(name -> name.startsWith("bizlock."))
                .containsExactlyInAnyOrderElementsOf(
                        java.util.stream.Stream.concat(PROPERTIES.stream(), RENAMED.keySet().stream())
                                .toList());
        // Generated from @Endpoint(id = "bizlocks"), as for every Actuator endpoint; no cache.time-to-live, which the
        // processor lists only for a read operation without parameters (the listing takes the caller's
        // SecurityContext).
        assertThat(properties)
                .extracting(property -> (String) property.get("name"))
                .filteredOn(name -> !name.startsWith("bizlock."))
                .containsExactlyInAnyOrder("management.endpoint.bizlocks.access");
        assertThat(properties)
                .allSatisfy(property -> assertThat((String) property.get("description"))
                        .as("description of %s", property.get("name"))
                        .isNotBlank()
                        .endsWith(".")
                        .doesNotContain("{@"));
    }

    @Test
    void givesDefaultsOfPropertiesThatHaveOne() throws IOException {
        Map<Object, Object> defaults = new java.util.HashMap<>();
        list(metadata(), "properties")
                .forEach(property -> defaults.put(property.get("name"), property.get("defaultValue")));
        assertThat(defaults)
                .containsEntry("bizlock.enabled", true)
                .containsEntry("bizlock.fail-fast", false)
                .containsEntry("bizlock.mode", "lease")
                .containsEntry("bizlock.table-name", "biz_lock")
                .containsEntry("bizlock.migration.enabled", true)
                .containsEntry("bizlock.advisor-order", 2147483547)
                .containsEntry("bizlock.on-lost", "log")
                .containsEntry("bizlock.refuse-in-snapshot-transaction", false)
                .containsEntry("bizlock.endpoint.force-release.enabled", false)
                .containsEntry("bizlock.endpoint.show-values", "never");
        assertThat(BizLockProperties.DEFAULT_ADVISOR_ORDER).isEqualTo(2147483547);
    }

    /**
     * The properties that start from {@link LockDefaults} have their defaults in the additional metadata, since the
     * metadata processor reads only literals: here they are checked against the one place they are written.
     */
    @Test
    void givesTheDefaultsOfLockServiceBuilderAsLockDefaultsHasThem() throws IOException {
        Map<Object, Object> defaults = new java.util.HashMap<>();
        list(metadata(), "properties")
                .forEach(property -> defaults.put(property.get("name"), property.get("defaultValue")));
        assertThat(defaults)
                .containsEntry("bizlock.table-name", LockDefaults.TABLE_NAME)
                .containsEntry("bizlock.watchdog-lease", text(LockDefaults.WATCHDOG_LEASE))
                .containsEntry("bizlock.fair", LockDefaults.FAIR)
                .containsEntry("bizlock.local-handoffs", LockDefaults.LOCAL_HANDOFFS)
                .containsEntry("bizlock.backoff.initial", text(LockDefaults.BACKOFF_INITIAL))
                .containsEntry("bizlock.backoff.max", text(LockDefaults.BACKOFF_MAX))
                .containsEntry("bizlock.writes.max-connections", LockDefaults.MAX_WRITE_CONNECTIONS)
                .containsEntry("bizlock.session.max-connections", LockDefaults.MAX_SESSIONS)
                .containsEntry("bizlock.session.heartbeat", text(LockDefaults.SESSION_HEARTBEAT))
                .containsEntry("bizlock.housekeeping.interval", text(LockDefaults.HOUSEKEEPING_INTERVAL))
                .containsEntry("bizlock.housekeeping.retention", text(LockDefaults.HOUSEKEEPING_RETENTION))
                .containsEntry("bizlock.housekeeping.batch-size", LockDefaults.HOUSEKEEPING_BATCH_SIZE);
    }

    /** A duration as the metadata writes it: {@code 30s}, {@code 10m}, {@code 1h}, {@code 5ms}. */
    private static String text(java.time.Duration duration) {
        if (duration.toMillis() % 1000 != 0) {
            return duration.toMillis() + "ms";
        }
        long seconds = duration.toSeconds();
        return seconds % 3600 == 0 ? seconds / 3600 + "h" : seconds % 60 == 0 ? seconds / 60 + "m" : seconds + "s";
    }

    @Test
    void hintsTheModesSoIdesCompleteThem() throws IOException {
        Map<String, Object> modeHint = list(metadata(), "hints").stream()
                .filter(hint -> "bizlock.mode".equals(hint.get("name")))
                .findFirst()
                .orElseThrow();
        assertThat(list(modeHint, "values"))
                .extracting(value -> value.get("value"))
                .containsExactly("lease", "row", "named");
    }

    @Test
    @SuppressWarnings("unchecked")
    void aFormerNameIsDeprecatedWithItsReplacement() throws IOException {
        RENAMED.forEach((former, replacement) -> {
            Map<String, Object> property;
            try {
                property = list(metadata(), "properties").stream()
                        .filter(candidate -> former.equals(candidate.get("name")))
                        .findFirst()
                        .orElseThrow();
            } catch (IOException ex) {
                throw new java.io.UncheckedIOException(ex);
            }
            assertThat((Map<String, Object>) property.get("deprecation"))
                    .containsEntry("replacement", replacement)
                    .containsEntry("level", "warning");
        });
    }

    @Test
    void readmeListsEveryPropertyAndTheReferenceDescribesIt() throws IOException {
        for (Path page : List.of(Path.of("..", "README.md"), Path.of("..", "docs", "configuration.md"))) {
            String text = Files.readString(page);
            for (String property : PROPERTIES) {
                assertThat(text.split("\n\\| `" + property + "` \\|", -1))
                        .as(page + " lists " + property + " in exactly one table row")
                        .hasSize(2);
            }
        }
    }
}
