package io.blackboard.job;

import io.blackboard.platform.errors.BadRequest;
import io.blackboard.platform.web.Caller;
import java.util.ArrayList;
import java.util.List;
import org.springframework.stereotype.Service;

/**
 * One round trip per job for a busy worker: the results it pushes and the next jobs it claims,
 * in one transaction. The worker's row is locked first, as for any poll; the pushes land
 * exactly as a batch push lands them (fenced by worker and attempt, each answered on its own);
 * the claim then sees their slots free. One commit covers both, and a request refused as a
 * whole (unknown worker, a block it does not serve) leaves nothing pushed and nothing claimed.
 */
@Service
class NextService {

    private final ClaimService claims;
    private final PushService pushes;

    NextService(ClaimService claims, PushService pushes) {
        this.claims = claims;
        this.pushes = pushes;
    }

    NextAnswer next(NextRequest request, Caller caller) {
        List<PushRequest> results = request.resultsOrNone();
        for (int i = 0; i < results.size(); i++) {
            if (!request.workerId().equals(results.get(i).workerId())) {
                throw new BadRequest("results[" + i + "].workerId: every push must name the request's workerId");
            }
        }
        List<PushOutcome> outcomes = new ArrayList<>(results.size());
        List<JobView> jobs = claims.claimAfter(request.poll(), () -> {
            outcomes.clear(); // the transaction is not retried today, but a retried one must not answer twice
            if (!results.isEmpty()) {
                outcomes.addAll(pushes.pushBatch(results));
            }
        }, caller);
        return new NextAnswer(outcomes, jobs);
    }
}
