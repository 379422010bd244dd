package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ByteSize is a size setting: a whole number of bytes, optionally with a
// unit (KiB, MiB, GiB, TiB, or KB, MB, GB, TB as powers of 1000).
type ByteSize int64

var units = []struct {
	suffix string
	mult   int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1},
}

// UnmarshalText reads "4GiB", "512MB" or "1048576".
func (b *ByteSize) UnmarshalText(text []byte) error {
	s := strings.TrimSpace(string(text))
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("%q is not a size (e.g. 4GiB, 512MB, 1048576)", string(text))
	}
	if n > math.MaxInt64/mult { // it would wrap, to a small or negative size
		return fmt.Errorf("%q is larger than a size can be (8 EiB)", string(text))
	}
	*b = ByteSize(n * mult)
	return nil
}

// String writes the size in bytes.
func (b ByteSize) String() string { return strconv.FormatInt(int64(b), 10) }
