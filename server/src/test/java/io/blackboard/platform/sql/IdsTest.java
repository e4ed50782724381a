package io.blackboard.platform.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class IdsTest {

    @Test
    void idsAreVersion7AndStrictlyIncreasingInCreationOrder() {
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            ids.add(Ids.newId());
        }
        for (int i = 1; i < ids.size(); i++) {
            UUID previous = ids.get(i - 1);
            UUID current = ids.get(i);
            assertThat(current.version()).isEqualTo(7);
            assertThat(current.variant()).isEqualTo(2);
            // PostgreSQL orders uuid bytewise, i.e. as unsigned: compare the same way
            assertThat(Long.compareUnsigned(current.getMostSignificantBits(), previous.getMostSignificantBits()))
                    .as("id %d after %d", i, i - 1).isPositive();
        }
    }
}
