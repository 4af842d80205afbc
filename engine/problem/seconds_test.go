package problem

import (
	"math"
	"testing"
	"time"
)

// Seconds as written become durations, and a number past what a
// duration holds is the longest one, not the negative number a plain
// conversion overflows into (a timeout of 1e30 s that had already
// passed, or never came).
func TestSecondsSaturate(t *testing.T) {
	for s, want := range map[float64]time.Duration{
		1.5:   1500 * time.Millisecond,
		0:     0,
		1e30:  math.MaxInt64,
		9.3e9: math.MaxInt64,
		-1e30: math.MinInt64,
	} {
		if got := Seconds(s); got != want {
			t.Errorf("Seconds(%g) = %v, want %v", s, got, want)
		}
	}
}
