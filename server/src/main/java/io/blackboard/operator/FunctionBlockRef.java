package io.blackboard.operator;

import java.util.UUID;

/** A function block as the dashboard names it. */
record FunctionBlockRef(UUID id, String name, String version) {
}
