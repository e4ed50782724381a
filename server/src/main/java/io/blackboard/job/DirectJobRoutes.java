package io.blackboard.job;

import io.blackboard.platform.web.DirectRoute;
import io.blackboard.platform.web.DirectRoutes;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** A busy worker's round trip, answered without Spring MVC ({@link DirectRoutes}) by the same controller method. */
@Configuration(proxyBeanMethods = false)
class DirectJobRoutes {

    @Bean
    DirectRoute<NextRequest> nextRoute(WorkerJobController controller) {
        return new DirectRoute<>(WorkerJobController.NEXT, NextRequest.class, NextAnswer.class, controller::next);
    }
}
