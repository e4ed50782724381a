package io.blackboard.operator;

import io.blackboard.job.FailureReason;
import io.blackboard.platform.errors.BadRequest;
import io.blackboard.worker.WorkerDirectory;
import io.blackboard.worker.WorkerState;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.springframework.lang.Nullable;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** The dashboard's views: workers with what they serve, and the latest failures. */
@Service
class OperatorService {

    private final WorkerDirectory workers;
    private final OperatorStore store;

    OperatorService(WorkerDirectory workers, OperatorStore store) {
        this.workers = workers;
        this.store = store;
    }

    @Transactional(readOnly = true)
    List<OperatorWorker> workers(@Nullable WorkerState state) {
        Map<UUID, List<FunctionBlockRef>> served = store.functionBlocksByWorker();
        return workers.list(false, state).stream()
                .map(worker -> new OperatorWorker(worker, served.getOrDefault(worker.id(), List.of())))
                .toList();
    }

    @Transactional(readOnly = true)
    List<RunningJob> running(int limit) {
        return store.running(limit);
    }

    @Transactional(readOnly = true)
    List<Failure> failures(@Nullable String reason, @Nullable UUID functionBlockId, int limit) {
        String wanted = reason == null ? null : reason.toUpperCase(Locale.ROOT);
        if (wanted != null && Arrays.stream(FailureReason.values()).noneMatch(known -> known.name().equals(wanted))) {
            throw new BadRequest("Unknown failure reason '" + reason + "': expected one of "
                    + Arrays.stream(FailureReason.values()).map(Enum::name).sorted().toList());
        }
        return store.recentFailures(wanted, functionBlockId, limit);
    }
}
