package io.github.bizlock;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every relative link in the project's Markdown (README, CONTRIBUTING, docs/, the benchmarks' pages) leads to a file
 * that exists and, when it names a section, to a heading there, with anchors made as GitHub makes them.
 */
class DocumentationLinksTest {

    private static final Path PROJECT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("^#+ (.+)$");
    private static final Set<String> NOT_PAGES = Set.of("target", ".git", "node_modules");
    private static final Pattern FENCED = Pattern.compile("(?ms)^```.*?^```");

    @Test
    void everyLinkBetweenTheProjectsPagesResolves() throws IOException {
        List<Path> pages = markdownPages(PROJECT);
        assertThat(pages)
                .as("the pages README links to")
                .contains(PROJECT.resolve("README.md"), PROJECT.resolve("docs/modes.md"));
        assertThat(brokenLinks(pages)).isEmpty();
    }

    @Test
    void aLinkToAMissingPageOrSectionIsReported(@TempDir Path dir) throws IOException {
        Files.writeString(
                dir.resolve("a.md"),
                "# A\n\n## What happens when…\n\n[ok](#what-happens-when) [ok](b.md#spring-boot-35-and-4)"
                        + " [gone](c.md) [no section](b.md#nowhere)\n\n```\n[in code](d.md)\n```\n");
        Files.writeString(dir.resolve("b.md"), "# B\n\n## Spring Boot 3.5 and 4\n");
        assertThat(brokenLinks(markdownPages(dir))).containsExactly("a.md: c.md", "a.md: b.md#nowhere");
    }

    private static List<Path> markdownPages(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(path -> path.toString().endsWith(".md"))
                    .filter(path -> {
                        for (Path part : root.relativize(path)) {
                            if (NOT_PAGES.contains(part.toString())) {
                                return false;
                            }
                        }
                        return true;
                    })
                    .sorted()
                    .toList();
        }
    }

    private static List<String> brokenLinks(List<Path> pages) {
        Map<Path, Set<String>> anchors = new HashMap<>();
        List<String> broken = new ArrayList<>();
        for (Path page : pages) {
            Matcher link = LINK.matcher(FENCED.matcher(read(page)).replaceAll(""));
            while (link.find()) {
                String target = link.group(1);
                if (target.matches("^[a-z]+:.*")) {
                    continue; // http:, https:, mailto: are not checked here
                }
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                Path resolved =
                        file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                boolean found = Files.exists(resolved)
                        && (hash < 0
                                || !resolved.toString().endsWith(".md")
                                || anchors.computeIfAbsent(resolved, DocumentationLinksTest::anchorsOf)
                                        .contains(target.substring(hash + 1)));
                if (!found) {
                    broken.add(page.getFileName() + ": " + target);
                }
            }
        }
        return broken;
    }

    /** GitHub's anchors: the heading in lower case, without punctuation, spaces as hyphens, repeats numbered. */
    private static Set<String> anchorsOf(Path page) {
        Set<String> anchors = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        for (String line : FENCED.matcher(read(page)).replaceAll("").split("\n")) {
            Matcher heading = HEADING.matcher(line);
            if (heading.matches()) {
                String slug = heading.group(1)
                        .strip()
                        .toLowerCase(Locale.ROOT)
                        .replaceAll("[^\\p{L}\\p{N}_\\- ]", "")
                        .replace(' ', '-');
                int repeat = seen.merge(slug, 1, Integer::sum) - 1;
                anchors.add(repeat == 0 ? slug : slug + "-" + repeat);
            }
        }
        return anchors;
    }

    private static String read(Path page) {
        try {
            return Files.readString(page);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
