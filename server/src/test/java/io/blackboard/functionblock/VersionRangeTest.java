package io.blackboard.functionblock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class VersionRangeTest {

    private static final List<String> VERSIONS = List.of("0.1.0", "0.2.5", "1.0.0", "1.2.0", "1.2.7", "1.10.0",
            "2.0.0", "2.1", "1.0-beta", "nightly");

    private static List<String> matching(String range) {
        VersionRange parsed = VersionRange.parse(range);
        return VERSIONS.stream().filter(parsed::matches).toList();
    }

    @Test
    void anExactVersionIsAnyString() {
        assertThat(matching("1.2.0")).containsExactly("1.2.0");
        assertThat(matching("1.0-beta")).containsExactly("1.0-beta");
        assertThat(matching("nightly")).containsExactly("nightly");
        assertThat(matching("1.2")).as("exact: 1.2 is not 1.2.0").isEmpty();
    }

    @Test
    void everyVersion() {
        assertThat(matching(null)).hasSize(VERSIONS.size());
        assertThat(matching("*")).hasSize(VERSIONS.size());
    }

    @Test
    void wildcards() {
        assertThat(matching("1.x")).containsExactly("1.0.0", "1.2.0", "1.2.7", "1.10.0");
        assertThat(matching("1.2.*")).containsExactly("1.2.0", "1.2.7");
    }

    @Test
    void caretAndTilde() {
        assertThat(matching("^1.2")).containsExactly("1.2.0", "1.2.7", "1.10.0");
        assertThat(matching("^0.2.0")).as("below 1.0 the minor is the boundary").containsExactly("0.2.5");
        assertThat(matching("^1")).containsExactly("1.0.0", "1.2.0", "1.2.7", "1.10.0");
        assertThat(matching("~1.2.3")).containsExactly("1.2.7");
        assertThat(matching("~1")).containsExactly("1.0.0", "1.2.0", "1.2.7", "1.10.0");
    }

    @Test
    void comparisonsAllHold() {
        assertThat(matching(">=1.2 <2")).containsExactly("1.2.0", "1.2.7", "1.10.0");
        assertThat(matching(">= 2.0")).containsExactly("2.0.0", "2.1");
        assertThat(matching("<1")).containsExactly("0.1.0", "0.2.5");
        assertThat(matching("=2.1.0")).containsExactly("2.1");
    }

    @Test
    void aBadRangeSaysWhatIsWrong() {
        assertThatThrownBy(() -> VersionRange.parse("^abc")).hasMessageContaining("'abc' is not a numeric version");
        assertThatThrownBy(() -> VersionRange.parse(">=1.0 <two")).hasMessageContaining("'two'");
    }
}
