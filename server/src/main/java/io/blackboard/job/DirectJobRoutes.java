package io.blackboard.job;

import io.blackboard.platform.web.DirectRoute;
import io.blackboard.platform.web.DirectRoutes;
import java.util.List;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.JsonNode;

/**
 * The hot job endpoints, answered without Spring MVC ({@link DirectRoutes}) by their controller
 * methods: a worker's poll, a busy worker's round trip, a push, and the engine's create.
 */
@Configuration(proxyBeanMethods = false)
class DirectJobRoutes {

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

    @Bean
    DirectRoute<JsonNode> createRoute(JobController controller) {
        return new DirectRoute<>("/blackboard" + JobController.CREATE, JsonNode.class, Object.class,
                controller::create);
    }
}
