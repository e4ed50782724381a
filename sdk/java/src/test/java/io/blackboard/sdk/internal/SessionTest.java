package io.blackboard.sdk.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SessionTest {

    @Test
    void next_is_used_from_api_version_1_1_on() {
        assertThat(Session.hasNext("1.1")).isTrue();
        assertThat(Session.hasNext("1.10")).isTrue();
        assertThat(Session.hasNext("1.1.3")).isTrue();
        assertThat(Session.hasNext("2")).isTrue();
    }

    @Test
    void older_or_unknown_api_versions_keep_the_single_push() {
        assertThat(Session.hasNext("1")).isFalse();
        assertThat(Session.hasNext("1.0")).isFalse();
        assertThat(Session.hasNext("0.9")).isFalse();
        assertThat(Session.hasNext(null)).as("a server that does not say").isFalse();
        assertThat(Session.hasNext("")).isFalse();
        assertThat(Session.hasNext("one")).isFalse();
        assertThat(Session.hasNext(11)).as("not a string").isFalse();
    }
}
