package io.blackboard;

import org.junit.jupiter.api.Test;
import org.springframework.modulith.core.ApplicationModules;

class ModularityTest {

    @Test
    void featurePackagesHaveNoDependencyCycles() {
        ApplicationModules.of(BlackboardApplication.class).verify();
    }
}
