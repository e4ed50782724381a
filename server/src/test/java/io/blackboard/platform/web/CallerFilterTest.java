package io.blackboard.platform.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import tools.jackson.databind.json.JsonMapper;

/**
 * What the filter undoes, without a server: an answer that could not be written runs the undo
 * its request registered (claims go back at once); one written in full never does.
 */
class CallerFilterTest {

    final CallerFilter filter = new CallerFilter(JsonMapper.builder().build(), new SimpleMeterRegistry());

    @Test
    void anAnswerThatCannotBeWrittenUndoesWhatItCarried() throws Exception {
        AtomicInteger undone = new AtomicInteger();
        HttpServletResponseWrapper failing = new HttpServletResponseWrapper(new MockHttpServletResponse()) {
            @Override
            public void flushBuffer() throws IOException {
                throw new IOException("Broken pipe");
            }
        };
        filter.doFilter(new MockHttpServletRequest("POST", "/blackboard/job"), failing,
                (request, response) -> Caller.of((HttpServletRequest) request)
                        .onUndelivered(undone::incrementAndGet));
        assertThat(undone).hasValue(1);
    }

    @Test
    void anAnswerThatFailedInTheHandlerUndoesWhatItCarried() {
        AtomicInteger undone = new AtomicInteger();
        assertThatThrownBy(() -> filter.doFilter(new MockHttpServletRequest("POST", "/blackboard/job"),
                new MockHttpServletResponse(), (request, response) -> {
                    Caller.of((HttpServletRequest) request).onUndelivered(undone::incrementAndGet);
                    throw new IOException("Connection reset by peer");
                })).isInstanceOf(IOException.class);
        assertThat(undone).hasValue(1);
    }

    @Test
    void anAnswerWrittenInFullIsNeverUndone() throws Exception {
        AtomicInteger undone = new AtomicInteger();
        MockHttpServletResponse answer = new MockHttpServletResponse();
        filter.doFilter(new MockHttpServletRequest("POST", "/blackboard/job"), answer, (request, response) -> {
            Caller.of((HttpServletRequest) request).onUndelivered(undone::incrementAndGet);
            response.getWriter().write("[]");
        });
        assertThat(undone).hasValue(0);
        assertThat(answer.isCommitted()).isTrue();
    }

    @Test
    void theBudgetIsWholeMillisecondsUpToADay() {
        assertThat(CallerFilter.budget(null)).isEqualTo(-1);
        assertThat(CallerFilter.budget("0")).isZero();
        assertThat(CallerFilter.budget(" 1500 ")).isEqualTo(TimeUnit.MILLISECONDS.toNanos(1500));
        assertThat(CallerFilter.budget("86400000")).isEqualTo(TimeUnit.DAYS.toNanos(1));
        for (String bad : new String[] {"", "-1", "+5", "1.5", "1e3", "0x10", "86400001", "9999999999999"}) {
            assertThatThrownBy(() -> CallerFilter.budget(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Blackboard-Timeout-Ms");
        }
    }
}
