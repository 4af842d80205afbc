package host

// Shared memory between the host and a worker process (Linux): a call's
// input and output travel through a memory both map, and the pipe carries
// only the frames' headers, which say how many bytes are there. Through
// the pipe alone, a batch of a megabyte crossed a 64 KiB pipe buffer in
// some thirty turns — each a write, a wake-up of the other side and a
// read — and was copied four times on its way (into the writer's buffer,
// into the kernel, out of it, into the reader's); now it is copied into
// the shared memory by one side and out of it by the other.
//
// The worker is the host's own code (the plugin's is confined to its
// linear memory), and the two take turns: the host writes an input and
// sends its header, then waits; the worker reads the input, writes the
// output and sends its header, then waits. So neither reads what the
// other is writing. A payload larger than its half still goes through the
// pipe, as on systems without shared memory.

// sharedHalf is the size of each half: a batch's input (at most
// MaxBatchBytes beyond its first call) and its verdicts fit.
const sharedHalf = 2 * MaxBatchBytes

// shared is the memory a host shares with one worker: the first half
// holds inputs (the host writes them), the second outputs (the worker
// writes them).
type shared struct {
	mem []byte
}

func (s *shared) input() []byte  { return s.mem[:len(s.mem)/2] }
func (s *shared) output() []byte { return s.mem[len(s.mem)/2:] }

// put copies data into dst's start when it fits, and says how many bytes
// it wrote: 0 when it does not fit (or s is nil, or there is nothing to
// write), and the payload then goes through the pipe.
func (s *shared) put(dst func(*shared) []byte, data []byte) int {
	if s == nil || s.mem == nil || len(data) == 0 {
		return 0
	}
	d := dst(s)
	if len(data) > len(d) {
		return 0
	}
	return copy(d, data)
}
