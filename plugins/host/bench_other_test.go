//go:build !linux

package host

import "time"

// minorFaults is not counted here.
func minorFaults() int64 { return 0 }

// cpuTime is not measured here.
func cpuTime() time.Duration { return 0 }
