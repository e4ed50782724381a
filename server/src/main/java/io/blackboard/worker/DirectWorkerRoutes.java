package io.blackboard.worker;

import io.blackboard.platform.web.DirectRoute;
import io.blackboard.platform.web.DirectRoutes;
import java.util.UUID;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** A worker's heartbeat (with a body), answered without Spring MVC ({@link DirectRoutes}) by its controller method. */
@Configuration(proxyBeanMethods = false)
class DirectWorkerRoutes {

    @Bean
    DirectRoute<PingRequest> pingRoute(WorkerController controller) {
        return new DirectRoute<>("/workers/{id}/ping", PingRequest.class, PingReply.class,
                (request, http) -> controller.ping(id(DirectRoutes.segment(http, 2)), request, http));
    }

    /** An id that is no UUID is left to Spring MVC, which answers it as before: 400. */
    private static UUID id(String segment) {
        try {
            return UUID.fromString(segment.strip());
        } catch (IllegalArgumentException e) {
            throw new DirectRoutes.Declined();
        }
    }
}
