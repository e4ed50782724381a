package io.blackboard.ojs;

import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** A queue with jobs not yet ended, and how many are in each state. */
record OjsQueue(String name, long available, long active, long scheduled, long dead) {

    ObjectNode toJson(JsonMapper json) {
        ObjectNode shown = json.createObjectNode();
        shown.put("name", name);
        shown.put("available", available);
        shown.put("active", active);
        shown.put("scheduled", scheduled);
        shown.put("dead_letter", dead);
        return shown;
    }
}
