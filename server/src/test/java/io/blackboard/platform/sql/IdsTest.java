package io.blackboard.platform.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

class IdsTest {

    /** One at a time or drawn together, in one thread's order. */
    @Test
    void idsAreVersion7AndStrictlyIncreasingInCreationOrder() {
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            if (i % 3 == 0) {
                ids.addAll(Ids.newIds(i % 7));
            }
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

    /** The random bits of ids drawn together are drawn for each, not shared or left zero. */
    @Test
    void idsDrawnTogetherHaveRandomBitsOfTheirOwn() {
        List<UUID> ids = Ids.newIds(1000);
        assertThat(ids).hasSize(1000);
        assertThat(ids.stream().map(id -> id.getLeastSignificantBits() & 0x3FFFFFFFFFFFFFFFL).distinct().count())
                .isEqualTo(1000);
        assertThat(ids.stream().mapToLong(id -> Long.bitCount(id.getLeastSignificantBits() & 0x3FFFFFFFFFFFFFFFL))
                .average().orElseThrow()).as("about half of 62 random bits set").isBetween(29.0, 33.0);
        assertThat(ids).allSatisfy(id -> assertThat(id.variant()).isEqualTo(2));
        assertThat(Ids.newIds(0)).isEmpty();
    }

    /** Threads drawing ids together get distinct ids, each batch's in a row. */
    @Test
    void idsDrawnByManyThreadsAtOnceAreDistinctAndEachBatchInARow() throws Exception {
        List<List<UUID>> batches = Collections.synchronizedList(new ArrayList<>());
        try (ExecutorService threads = Executors.newFixedThreadPool(8)) {
            for (int t = 0; t < 8; t++) {
                threads.submit(() -> {
                    for (int i = 0; i < 2_000; i++) {
                        batches.add(Ids.newIds(1 + i % 5));
                    }
                });
            }
        }
        assertThat(batches).hasSize(16_000);
        assertThat(batches.stream().mapToLong(List::size).sum())
                .isEqualTo(batches.stream().flatMap(List::stream).distinct().count());
        for (List<UUID> batch : batches) {
            for (int i = 1; i < batch.size(); i++) {
                assertThat(stamp(batch.get(i))).isEqualTo(stamp(batch.get(i - 1)) + 1);
            }
        }
    }

    /** The millisecond and the 12-bit counter after it, as one number. */
    private static long stamp(UUID id) {
        long msb = id.getMostSignificantBits();
        return ((msb >>> 16) << 12) | (msb & 0x0FFFL);
    }
}
