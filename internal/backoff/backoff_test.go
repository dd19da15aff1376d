package backoff

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"
)

func TestDelay(t *testing.T) {
	p := Policy{Attempts: 4, Base: 100 * time.Millisecond, Max: time.Second}
	for n, ceil := range map[int]time.Duration{
		1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 400 * time.Millisecond,
		4: 800 * time.Millisecond, 5: time.Second, 60: time.Second, 1 << 20: time.Second,
	} {
		var hi time.Duration
		for range 300 {
			d := p.Delay(n)
			if d < 0 || d > ceil {
				t.Fatalf("Delay(%d) = %s, want within [0, %s]", n, d, ceil)
			}
			hi = max(hi, d)
		}
		// Full jitter spreads over the whole range; 300 draws all in the
		// lower half would happen with probability 2^-300.
		if hi <= ceil/2 {
			t.Errorf("Delay(%d) never above %s", n, hi)
		}
	}
	huge := Policy{Base: time.Second, Max: 1<<63 - 1}
	if d := huge.Delay(200); d < 0 {
		t.Errorf("doubling past the largest Duration: Delay = %s", d)
	}
	for _, p := range []Policy{{}, {Base: time.Second}, {Base: -time.Second, Max: time.Second}} {
		if d := p.Delay(3); d != 0 {
			t.Errorf("%+v: Delay = %s, want 0", p, d)
		}
	}
}

func TestOr(t *testing.T) {
	def := Policy{Attempts: 4, Base: time.Second, Max: 30 * time.Second}
	if got := (Policy{Base: -1}).Or(def); got != def {
		t.Errorf("zero policy: %+v", got)
	}
	mine := Policy{Attempts: 1, Base: time.Millisecond, Max: time.Second}
	if got := mine.Or(def); got != mine {
		t.Errorf("set policy: %+v", got)
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	const all = Seconds | Fractions | Dates | Millis
	tests := []struct {
		name   string
		header map[string]string
		forms  Forms
		want   time.Duration
		ok     bool
	}{
		{"none", nil, all, 0, false},
		{"zero", map[string]string{"Retry-After": "0"}, Seconds, 0, true},
		{"seconds", map[string]string{"Retry-After": " 7 "}, Seconds, 7 * time.Second, true},
		{"whole seconds, capped", map[string]string{"Retry-After": "99999999999999"}, Seconds, maxHint, true},
		{"past int64", map[string]string{"Retry-After": "99999999999999999999999"}, all, 0, false},
		{"negative", map[string]string{"Retry-After": "-3"}, all, 0, false},
		{"fraction", map[string]string{"Retry-After": "1.5"}, all, 1500 * time.Millisecond, true},
		{"fraction not taken", map[string]string{"Retry-After": "1.5"}, Seconds | Dates, 0, false},
		{"NaN", map[string]string{"Retry-After": "NaN"}, all, 0, false},
		{"huge fraction", map[string]string{"Retry-After": "1e300"}, all, 0, false},
		{"date", map[string]string{"Retry-After": now.Add(20 * time.Second).Format(http.TimeFormat)}, all, 20 * time.Second, true},
		{"past date", map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, Seconds | Dates, 0, true},
		{"date not taken", map[string]string{"Retry-After": now.Add(20 * time.Second).Format(http.TimeFormat)}, Seconds | Fractions, 0, false},
		{"milliseconds win", map[string]string{"Retry-After-Ms": "250", "Retry-After": "1"}, all, 250 * time.Millisecond, true},
		{"milliseconds not taken", map[string]string{"Retry-After-Ms": "250", "Retry-After": "1"}, Seconds, time.Second, true},
		{"bad milliseconds", map[string]string{"Retry-After-Ms": "soon", "Retry-After": "2"}, all, 2 * time.Second, true},
		{"garbage", map[string]string{"Retry-After": "later"}, all, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			got, ok := RetryAfter(h, now, tt.forms)
			if got != tt.want || ok != tt.ok {
				t.Errorf("RetryAfter = %s, %v; want %s, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestSleep(t *testing.T) {
	if err := Sleep(context.Background(), time.Millisecond); err != nil {
		t.Errorf("Sleep = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep on a done context = %v", err)
	}
	if err := Sleep(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep(0) on a done context = %v", err)
	}
	if time.Since(start) > time.Minute { // an hour, had it waited
		t.Error("Sleep waited past its context")
	}
	if Outlasts(context.Background(), time.Hour) {
		t.Error("no deadline outlasted")
	}
	dctx, dcancel := context.WithTimeout(context.Background(), time.Minute)
	defer dcancel()
	if !Outlasts(dctx, time.Hour) || Outlasts(dctx, time.Second) {
		t.Error("Outlasts against a deadline a minute away")
	}
}
