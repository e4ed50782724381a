package io.blackboard.job;

import io.blackboard.platform.web.DirectRoute;
import io.blackboard.platform.web.DirectRoutes;
import java.lang.reflect.Type;
import java.util.List;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.JsonNode;

/**
 * The hot job endpoints, answered without Spring MVC ({@link DirectRoutes}) by their controller
 * methods: a worker's poll, a busy worker's round trip, a push, a batch push, and the engine's create.
 */
@Configuration(proxyBeanMethods = false)
class DirectJobRoutes {

    private static final Type PUSHES = new TypeReference<List<PushRequest>>() { }.getType();

    /**
     * A poll, long or not. An interrupt while it waits (the replica stopping) goes to Spring MVC
     * as any failure of the direct way does, and is answered there as it was before: a 500.
     */
    @Bean
    DirectRoute<PollRequest> pollRoute(WorkerJobController controller) {
        return new DirectRoute<>(WorkerJobController.POLL, PollRequest.class, List.class, (request, http) -> {
            try {
                return controller.poll(request, http);
            } catch (InterruptedException e) {
                throw new IllegalStateException("interrupted while the poll waited", e);
            }
        });
    }

    @Bean
    DirectRoute<NextRequest> nextRoute(WorkerJobController controller) {
        return new DirectRoute<>(WorkerJobController.NEXT, NextRequest.class, NextAnswer.class, controller::next);
    }

    @Bean
    DirectRoute<PushRequest> pushRoute(WorkerJobController controller) {
        return new DirectRoute<>(WorkerJobController.PUSH, PushRequest.class, JobView.class, controller::push);
    }

    /**
     * A batch push. A batch of no pushes or of too many is left to Spring MVC, whose refusal
     * names the bound; so is a batch with a null or invalid item ({@link DirectRoutes} validates
     * each item of a list body).
     */
    @Bean
    DirectRoute<List<PushRequest>> pushBatchRoute(WorkerJobController controller) {
        return new DirectRoute<>(WorkerJobController.PUSH_BATCH, PUSHES, List.class, (pushes, http) -> {
            if (pushes.isEmpty() || pushes.size() > WorkerJobController.MAX_BATCH_PUSHES) {
                throw new DirectRoutes.Declined();
            }
            return controller.pushBatch(pushes, http);
        });
    }

    @Bean
    DirectRoute<JsonNode> createRoute(JobController controller) {
        return new DirectRoute<>("/blackboard" + JobController.CREATE, JsonNode.class, Object.class,
                controller::create);
    }
}
