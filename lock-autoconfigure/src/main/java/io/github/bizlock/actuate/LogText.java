package io.github.bizlock.actuate;

import org.jspecify.annotations.Nullable;

/**
 * Text from a request, made safe to log: a caller who puts a line break in a lock name, key or user name must not be
 * able to write a line of its own into the log (a forged "force-released" entry, say).
 */
final class LogText {

    private LogText() {}

    /**
     * The text with backslashes doubled and control characters and line separators written as Java escapes
     * ({@code \n}, {@code \r}, {@code \t}, otherwise a backslash, {@code u} and four hex digits, as for the Unicode
     * line separators), so that every escaped text reads back to one original.
     */
    static String escape(String text) {
        @Nullable StringBuilder escaped = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            String replacement = replacement(c);
            if (replacement != null && escaped == null) {
                escaped = new StringBuilder(text.length() + 16).append(text, 0, i);
            }
            if (escaped != null) {
                if (replacement != null) {
                    escaped.append(replacement);
                } else {
                    escaped.append(c);
                }
            }
        }
        return escaped != null ? escaped.toString() : text;
    }

    private static @Nullable String replacement(char c) {
        return switch (c) {
            case '\\' -> "\\\\";
            case '\n' -> "\\n";
            case '\r' -> "\\r";
            case '\t' -> "\\t";
            default ->
                Character.isISOControl(c) || c == '\u2028' || c == '\u2029' ? String.format("\\u%04x", (int) c) : null;
        };
    }
}
