package io.github.bizlock;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The house rule that a class past 300 lines wants splitting, kept for the main code of every module of the build:
 * a long file is a class doing several things.
 */
class ClassSizeTest {

    static final int MAX_LINES = 300;

    /** The repository: this module's parent, where every module of the build is a folder. */
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    @Test
    void noMainSourceFileOfAnyModuleIsLongerThan300Lines() throws IOException {
        List<Path> sources;
        try (Stream<Path> modules = Files.list(ROOT)) {
            sources = modules.map(module -> module.resolve("src/main/java"))
                    .filter(Files::isDirectory)
                    .flatMap(ClassSizeTest::javaFiles)
                    .toList();
        }
        assertThat(sources)
                .as("main sources of the build's modules under " + ROOT)
                .hasSizeGreaterThan(100);
        List<String> tooLong = sources.stream()
                .filter(source -> lines(source) > MAX_LINES)
                .map(source -> ROOT.relativize(source) + " (" + lines(source) + " lines)")
                .toList();
        assertThat(tooLong)
                .as("classes over %d lines: split each by its duties", MAX_LINES)
                .isEmpty();
    }

    private static Stream<Path> javaFiles(Path directory) {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(file -> file.toString().endsWith(".java")).toList().stream();
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static long lines(Path source) {
        try (Stream<String> lines = Files.lines(source)) {
            return lines.count();
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
