package runtime

import "bytes"

// CappedBuffer keeps the first Max bytes written and counts the rest. It
// always accepts writes, so a flooding process is drained, never blocked
// and never buffered beyond the cap. Runtimes use one per output stream.
type CappedBuffer struct {
	Buf     bytes.Buffer
	Max     int64
	Dropped int64
}

func (c *CappedBuffer) Write(p []byte) (int, error) {
	room := c.Max - int64(c.Buf.Len())
	switch {
	case room <= 0:
		c.Dropped += int64(len(p))
	case int64(len(p)) > room:
		c.Buf.Write(p[:room])
		c.Dropped += int64(len(p)) - room
	default:
		c.Buf.Write(p)
	}
	return len(p), nil
}
