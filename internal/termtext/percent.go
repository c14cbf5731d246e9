package termtext

import (
	"math"
	"strconv"
	"strings"
)

// Percent renders v as a percentage with at least min decimals, and more
// (up to 4) while it would read the same as a threshold it differs from.
func Percent(v, threshold float64, min int) string {
	t := TrimPercent(threshold)
	for d := min; d < 4; d++ {
		s := strconv.FormatFloat(100*v, 'f', d, 64)
		if v == threshold || trimZeros(s)+"%" != t {
			return s + "%"
		}
	}
	return strconv.FormatFloat(100*v, 'f', 4, 64) + "%"
}

func trimZeros(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// TrimPercent renders a fraction as a percentage without trailing zeros:
// 0.9 is 90%, 0.955 is 95.5%.
func TrimPercent(f float64) string {
	return strconv.FormatFloat(math.Round(f*100*1e6)/1e6, 'f', -1, 64) + "%"
}
