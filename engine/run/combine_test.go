package run

import "testing"

func TestCombineScores(t *testing.T) {
	for _, tc := range []struct {
		conj   string
		scores []float64
		want   float64
	}{
		{"and", []float64{1, 0.5}, 0.75},
		{"and", []float64{1, 0}, 0},
		{"and", []float64{0.2}, 0.2},
		{"or", []float64{0, 0.4, 0.3}, 0.4},
		{"or", []float64{0, 0}, 0},
		{"and", nil, 0},
	} {
		if got := CombineScores(tc.conj, tc.scores); got != tc.want {
			t.Errorf("%s %v: %v, want %v", tc.conj, tc.scores, got, tc.want)
		}
	}
}
