package io.blackboard.functionblock;

import java.util.UUID;

/** One registered version of a named function block. */
public record BlockVersion(UUID id, String name, String version) {
}
