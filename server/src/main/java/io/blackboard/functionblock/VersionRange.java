package io.blackboard.functionblock;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The versions of a function block an engine accepts when it names the block instead of its id:
 * an exact version ({@code 1.2.0}, any string), every version ({@code *} or none given), or a
 * range over numeric dotted versions, in the notation of npm and Cargo: {@code 1.x} or {@code 1.*}
 * (that prefix), {@code ^1.2} (from 1.2 up to the next major, or the next minor under 1.0),
 * {@code ~1.2.3} (from 1.2.3 up to the next minor), and comparisons {@code >=1.0 <2.0}
 * ({@code >}, {@code >=}, {@code <}, {@code <=}, {@code =}), all of which must hold. A version that is not
 * numeric dotted (say {@code 1.0-beta}) matches only exactly.
 */
public final class VersionRange {

    private static final Pattern NUMERIC = Pattern.compile("\\d{1,9}(\\.\\d{1,9}){0,3}");
    private static final Pattern COMPARISON = Pattern.compile("(>=|<=|>|<|=)?\\s*(\\S+)");
    private static final Pattern WILDCARD = Pattern.compile("((\\d{1,9}\\.){0,3})[xX*]");

    private final String text;
    private final Predicate<String> accepts;

    private VersionRange(String text, Predicate<String> accepts) {
        this.text = text;
        this.accepts = accepts;
    }

    /** The range, or {@link IllegalArgumentException} with what is wrong in it. */
    public static VersionRange parse(String text) {
        String range = text == null ? "*" : text.strip();
        if (range.isEmpty() || range.equals("*") || range.equalsIgnoreCase("x")) {
            return new VersionRange("*", version -> true);
        }
        if (!isRange(range)) {
            return new VersionRange(range, range::equals);
        }
        List<Predicate<String>> all = new ArrayList<>();
        for (String part : range.replaceAll("(>=|<=|>|<|=)\\s+", "$1").split("\\s+")) {
            all.add(term(part));
        }
        return new VersionRange(range, version -> NUMERIC.matcher(version).matches()
                && all.stream().allMatch(term -> term.test(version)));
    }

    public boolean matches(String version) {
        return accepts.test(version);
    }

    @Override
    public String toString() {
        return text;
    }

    private static boolean isRange(String range) {
        char first = range.charAt(0);
        return first == '^' || first == '~' || first == '>' || first == '<' || first == '='
                || WILDCARD.matcher(range).matches();
    }

    private static Predicate<String> term(String term) {
        Matcher wildcard = WILDCARD.matcher(term);
        if (wildcard.matches()) {
            String prefix = wildcard.group(1);
            return prefix.isEmpty() ? version -> true : version -> (version + ".").startsWith(prefix);
        }
        if (term.startsWith("^") || term.startsWith("~")) {
            String from = term.substring(1);
            int[] low = numbers(from);
            boolean majorOnly = !from.contains(".");
            int[] high;
            if (majorOnly || (term.startsWith("^") && low[0] > 0)) {
                high = new int[] {low[0] + 1};
            } else {
                high = new int[] {low[0], low[1] + 1};
            }
            return version -> compare(numbers(version), low) >= 0 && compare(numbers(version), high) < 0;
        }
        Matcher comparison = COMPARISON.matcher(term);
        if (!comparison.matches()) {
            throw new IllegalArgumentException("'" + term + "' is not a version comparison");
        }
        String operator = comparison.group(1) == null ? "=" : comparison.group(1);
        int[] bound = numbers(comparison.group(2));
        return version -> {
            int order = compare(numbers(version), bound);
            return switch (operator) {
                case ">=" -> order >= 0;
                case "<=" -> order <= 0;
                case ">" -> order > 0;
                case "<" -> order < 0;
                default -> order == 0;
            };
        };
    }

    /** A numeric dotted version's parts; missing minor and patch parts count as 0 when compared. */
    private static int[] numbers(String version) {
        if (!NUMERIC.matcher(version).matches()) {
            throw new IllegalArgumentException("'" + version + "' is not a numeric version such as 1.2.0");
        }
        String[] parts = version.split("\\.");
        int[] numbers = new int[Math.max(2, parts.length)];
        for (int i = 0; i < parts.length; i++) {
            numbers[i] = Integer.parseInt(parts[i]);
        }
        return numbers;
    }

    private static int compare(int[] a, int[] b) {
        for (int i = 0; i < Math.max(a.length, b.length); i++) {
            int x = i < a.length ? a[i] : 0;
            int y = i < b.length ? b[i] : 0;
            if (x != y) {
                return Integer.compare(x, y);
            }
        }
        return 0;
    }
}
