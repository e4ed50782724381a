package io.blackboard.ojs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;

/**
 * One test case of the OJS conformance suite: a JSON file under a level's directory
 * (docs/test-case-reference.md, "Test Case Schema"). It is named by its file, since two cases
 * of the suite share an id in places.
 */
record OjsCase(Path file, String testId, int level, JsonNode root) {

    /** The level directories run here, in order, with the highest level they hold. */
    static final List<String> LEVEL_DIRECTORIES = List.of("level-0-core", "level-1-reliable");
    static final int MAX_LEVEL = 1;

    /** {@code L0-OPS-008 operations/fetch-exclusive-claim}: the id, the category and the file. */
    String displayName() {
        return testId + " " + file.getParent().getFileName() + "/" + fileStem();
    }

    private String fileStem() {
        String name = file.getFileName().toString();
        return name.endsWith(".json") ? name.substring(0, name.length() - ".json".length()) : name;
    }

    List<JsonNode> setup() {
        return steps(root.get("setup"));
    }

    List<JsonNode> steps() {
        return steps(root.get("steps"));
    }

    List<JsonNode> teardown() {
        return steps(root.get("teardown"));
    }

    /** A list of steps, or (for setup and teardown) an object holding one under "steps". */
    private static List<JsonNode> steps(JsonNode node) {
        if (node == null || node.isNull()) {
            return List.of();
        }
        JsonNode list = node.isObject() ? node.get("steps") : node;
        if (list == null || !list.isArray()) {
            throw new IllegalArgumentException("steps must be an array (or an object with a \"steps\" array): " + node);
        }
        List<JsonNode> steps = new ArrayList<>();
        list.forEach(steps::add);
        return steps;
    }

    /** The cases of levels 0 and 1 under {@code suites}: level 0's files in path order, then level 1's. */
    static List<OjsCase> load(Path suites) {
        List<OjsCase> cases = new ArrayList<>();
        for (String directory : LEVEL_DIRECTORIES) {
            Path root = suites.resolve(directory);
            if (!Files.isDirectory(root)) {
                throw new IllegalStateException("no OJS conformance cases at " + root.toAbsolutePath()
                        + " (set ojs.conformance.suites or OJS_CONFORMANCE_SUITES to the suites directory)");
            }
            for (Path file : jsonFiles(root)) {
                OjsCase c = read(file);
                if (c.level() <= MAX_LEVEL) {
                    cases.add(c);
                }
            }
        }
        return cases;
    }

    private static List<Path> jsonFiles(Path root) {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(p -> p.toString().endsWith(".json")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static OjsCase read(Path file) {
        try {
            JsonNode root = OjsResponse.json().readTree(Files.readString(file));
            return new OjsCase(file, root.path("test_id").asString(file.toString()), root.path("level").asInt(-1), root);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
