package io.blackboard.worker;

import java.util.Map;

/** How many live workers are in each state, and how many ONLINE ones are deaf. */
public record WorkerCensus(Map<WorkerState, Long> byState, int deaf) {
}
