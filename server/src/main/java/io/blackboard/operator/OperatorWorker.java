package io.blackboard.operator;

import io.blackboard.worker.WorkerView;
import java.util.List;

/** A worker and the function blocks it registered. */
record OperatorWorker(WorkerView worker, List<FunctionBlockRef> functionBlocks) {
}
