package io.blackboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every link in the README, BENCHMARKS.md and docs/ leads somewhere: a relative link names a file
 * of the repository, and an anchor names a heading of its page (GitHub's slugs). Links outside
 * the repository (http, mailto) are not fetched: this machine has no internet.
 */
class DocumentationLinksTest {

    private static final Pattern LINK = Pattern.compile("!?\\[[^\\]]*\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern INLINE_CODE = Pattern.compile("`[^`]*`");

    @Test
    void everyRelativeLinkAndAnchorInTheDocumentationResolves() throws IOException {
        List<Path> pages = pages();
        assertThat(pages).as("the pages checked").contains(ROOT.resolve("README.md"));
        List<String> broken = new ArrayList<>();
        int links = 0;
        for (Path page : pages) {
            for (String target : links(page)) {
                links++;
                String problem = check(page, target);
                if (problem != null) {
                    broken.add(ROOT.relativize(page) + ": (" + target + ") " + problem);
                }
            }
        }
        assertThat(links).as("links found").isPositive();
        assertThat(broken).as("broken links").isEmpty();
    }

    @Test
    void anchorsFollowGitHubsSlugs() {
        assertThat(slugs(List.of("## Guarantees, and what the tests prove", "### The `runOnce()` sweepers",
                "## Run it", "## Run it")))
                .containsExactly("guarantees-and-what-the-tests-prove", "the-runonce-sweepers", "run-it", "run-it-1");
    }

    /** The repository's root: the tests run in the server module's directory. */
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    private static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("BENCHMARKS.md")));
        try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    /** The link targets of a page, outside fenced code blocks and inline code. */
    private static List<String> links(Path page) throws IOException {
        List<String> targets = new ArrayList<>();
        for (String line : prose(page)) {
            Matcher matcher = LINK.matcher(INLINE_CODE.matcher(line).replaceAll(""));
            while (matcher.find()) {
                targets.add(matcher.group(1));
            }
        }
        return targets;
    }

    /** The lines of a page outside its fenced code blocks. */
    private static List<String> prose(Path page) throws IOException {
        List<String> lines = new ArrayList<>();
        boolean fenced = false;
        for (String line : Files.readAllLines(page)) {
            if (line.stripLeading().startsWith("```")) {
                fenced = !fenced;
            } else if (!fenced) {
                lines.add(line);
            }
        }
        return lines;
    }

    private static String check(Path page, String target) throws IOException {
        if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
            return null; // http:, https:, mailto:
        }
        int hash = target.indexOf('#');
        String path = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path file = path.isEmpty() ? page : page.getParent().resolve(path).normalize();
        if (!file.startsWith(ROOT)) {
            return "leaves the repository";
        }
        if (!Files.exists(file)) {
            return "no such file";
        }
        if (anchor != null && !anchor.isEmpty()) {
            if (!file.toString().endsWith(".md")) {
                return "an anchor into a file that is not markdown";
            }
            if (!slugs(headings(file)).contains(anchor)) {
                return "no heading with the anchor #" + anchor;
            }
        }
        return null;
    }

    private static List<String> headings(Path file) throws IOException {
        return prose(file).stream().filter(line -> HEADING.matcher(line).matches()).toList();
    }

    /** GitHub's anchors: lowercase, punctuation but '-' and '_' dropped, spaces to '-', repeats numbered. */
    static Set<String> slugs(List<String> headings) {
        Set<String> slugs = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        for (String heading : headings) {
            Matcher matcher = HEADING.matcher(heading);
            if (!matcher.matches()) {
                continue;
            }
            String text = matcher.group(1).replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1");
            String slug = text.toLowerCase().replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
            int count = seen.merge(slug, 1, Integer::sum);
            slugs.add(count == 1 ? slug : slug + "-" + (count - 1));
        }
        return slugs;
    }
}
