package llm

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/reviewdev/review/conversation"
)

// Four requests side by side through one client: the server refuses the
// first with 429 and Retry-After. Every request waits out the pause, not
// only the one told; the refused one is sent again once (five requests,
// no storm); and concurrency halves while the server pushes back.
func TestLimiterSharedBackoff(t *testing.T) {
	var (
		mu       sync.Mutex
		arrivals []time.Time
		refused  time.Time
		inflight int
		most     int
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrivals = append(arrivals, time.Now())
		first := len(arrivals) == 1
		inflight++
		most = max(most, inflight)
		mu.Unlock()
		defer func() { mu.Lock(); inflight--; mu.Unlock() }()
		if first {
			time.Sleep(50 * time.Millisecond) // the others are on their way
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}`))
			mu.Lock()
			refused = time.Now()
			mu.Unlock()
			return
		}
		time.Sleep(100 * time.Millisecond)
		_, _ = w.Write([]byte(`{"choices": [{"message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 1, "completion_tokens": 1}}`))
	}))
	defer srv.Close()
	c := NewClient(ClientConfig{BaseURL: srv.URL + "/v1", Concurrency: 4, MaxAttempts: 3})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.Complete(context.Background(), Request{Model: "m", Messages: []conversation.Message{{Role: conversation.User, Content: "hi"}}})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(arrivals) != 9 {
		t.Errorf("%d requests for 8 and one 429, want 9", len(arrivals))
	}
	if most > 4 {
		t.Errorf("%d requests in flight at once, the ceiling is 4", most)
	}
	for i, a := range arrivals {
		if a.After(refused.Add(20*time.Millisecond)) && a.Before(refused.Add(900*time.Millisecond)) {
			t.Errorf("request %d arrived %v after the 429, within its Retry-After", i+1, a.Sub(refused))
		}
	}
	if l := c.Limits(); l.Ceiling != 4 || l.Lowest >= 4 {
		t.Errorf("limits %+v: the push-back should have lowered concurrency", l)
	}
}

func TestLimiterSteps(t *testing.T) {
	l := newLimiter(8)
	ctx := context.Background()
	for range 8 {
		if err := l.acquire(ctx); err != nil {
			t.Fatal(err)
		}
	}
	l.release(true, 0)
	if l.limit != 4 || l.lowest != 4 {
		t.Fatalf("after a push-back: limit %d, lowest %d; want 4", l.limit, l.lowest)
	}
	for range 7 {
		l.release(false, 0)
	}
	// Grows back by one for each run of answers as long as the limit.
	if l.limit != 5 {
		t.Errorf("limit %d after 7 answers at 4, want 5", l.limit)
	}
	// Cancelled while waiting for a pause, acquire gives up at once.
	if err := l.acquire(ctx); err != nil {
		t.Fatal(err)
	}
	l.release(true, time.Hour)
	ctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := l.acquire(ctx); err == nil {
		t.Error("acquire during a pause with a cancelled context succeeded")
	}
}
