package summary

import (
	"reflect"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/metric"
	"github.com/toolgrade/toolgrade/internal/stats"
)

// TestEveryRateIsAFieldUnderItsName: each rate of the metric table is the
// field of ModelSummary that summary.json spells as the table does, and no
// rate field lies outside the table.
func TestEveryRateIsAFieldUnderItsName(t *testing.T) {
	var m ModelSummary
	v := reflect.ValueOf(&m).Elem()
	byTag := map[string]*stats.Rate{}
	for i := range v.NumField() {
		if r, ok := v.Field(i).Addr().Interface().(*stats.Rate); ok {
			byTag[strings.Split(v.Type().Field(i).Tag.Get("json"), ",")[0]] = r
		}
	}
	for _, mt := range metric.Select(metric.Rate, 0) {
		if got, want := m.rate(mt.Name), byTag[string(mt.Name)]; got == nil || got != want {
			t.Errorf("%s: the field is not summary.json's %q", mt.Name, mt.Name)
		}
		delete(byTag, string(mt.Name))
	}
	if len(byTag) > 0 {
		t.Errorf("rate fields outside the metric table: %v", byTag)
	}
	for _, mt := range metric.Select(metric.Latency, 0) {
		m.TrialLatency = Latency{P50: 1, P95: 2}
		if m.Seconds(mt.Name) == 0 {
			t.Errorf("%s: no latency of the row", mt.Name)
		}
	}
}
