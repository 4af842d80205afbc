package parquet

import (
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/format"
)

// zstdCodec is parquet-go's zstd codec with a bounded window and one
// shared encoder. The library's codec keeps encoders in a sync.Pool with
// the default 8 MiB window, so each GC drops them and the next page
// allocates a fresh window: most of the writer's memory. Pages are at most
// a few hundred KiB, so a 1 MiB window compresses them as well.
type zstdCodec struct {
	encOnce sync.Once
	enc     *zstd.Encoder
	encErr  error
	decOnce sync.Once
	dec     *zstd.Decoder
	decErr  error
}

func (c *zstdCodec) String() string                            { return "ZSTD" }
func (c *zstdCodec) CompressionCodec() format.CompressionCodec { return format.Zstd }

func (c *zstdCodec) Encode(dst, src []byte) ([]byte, error) {
	c.encOnce.Do(func() {
		c.enc, c.encErr = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithWindowSize(1<<20),
			zstd.WithEncoderConcurrency(1), zstd.WithLowerEncoderMem(true), zstd.WithZeroFrames(true), zstd.WithEncoderCRC(false))
	})
	if c.encErr != nil {
		return nil, c.encErr
	}
	return c.enc.EncodeAll(src, dst[:0]), nil // EncodeAll is safe for concurrent use
}

func (c *zstdCodec) Decode(dst, src []byte) ([]byte, error) {
	c.decOnce.Do(func() {
		c.dec, c.decErr = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
	})
	if c.decErr != nil {
		return nil, c.decErr
	}
	return c.dec.DecodeAll(src, dst[:0])
}
