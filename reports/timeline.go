package reports

import (
	"encoding/json"
	"fmt"
	"html"
	"html/template"
	"math"
	"sort"
	"strings"
	"time"
)

// Timing is one notification's arrival as the suite saw it: After201 is
// from when the 201 that created its contract was seen to when the
// notification reached the suite's receiver. The steps that wait for
// notifications note it (steps.NoteTiming); the report draws every
// Timing of the run on one timeline.
type Timing struct {
	// Label names what arrived, e.g. "SIGNED" or "SIGNED, delivered
	// again"; the timeline has a lane per label.
	Label    string
	After201 time.Duration
}

// The window the timeline draws: the interface's "about 500 ms", as the
// suite checks it.
const (
	TimelineMark     = 500 * time.Millisecond
	TimelineEarliest = 300 * time.Millisecond
	TimelineLatest   = 1500 * time.Millisecond
)

type timingJSON struct {
	Label      string  `json:"label"`
	After201MS float64 `json:"after_201_ms"`
}

// MarshalJSON writes a Timing as {"label", "after_201_ms"}, the delay in
// milliseconds to the microsecond.
func (t Timing) MarshalJSON() ([]byte, error) {
	return json.Marshal(timingJSON{t.Label, math.Round(float64(t.After201)/float64(time.Microsecond)) / 1000})
}

// UnmarshalJSON reads what MarshalJSON writes; it returns the JSON
// decoder's errors.
func (t *Timing) UnmarshalJSON(b []byte) error {
	var j timingJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	t.Label, t.After201 = j.Label, time.Duration(math.Round(j.After201MS*float64(time.Millisecond)))
	return nil
}

// timelineDot is one Timing with the scenario it belongs to.
type timelineDot struct {
	Timing
	scenario string
}

// timeline draws every Timing of the results as an inline SVG (no
// script; a dot's <title> says which scenario it is), and sums it up in a
// line. Both are empty when there is no Timing.
func timeline(lang string, results []ScenarioResult) (template.HTML, string) {
	var dots []timelineDot
	for _, r := range results {
		name := r.Name
		if r.Row != "" {
			name += " (" + r.Row + ")"
		}
		for _, t := range r.Timings {
			dots = append(dots, timelineDot{t, fmt.Sprintf("@%s %s [%s]", r.Requirement, Clip(name, 120), r.Lang)})
		}
	}
	if len(dots) == 0 {
		return "", ""
	}
	lanes := map[string][]timelineDot{}
	var labels []string
	slowest := time.Duration(0)
	var all []time.Duration
	outside := 0
	for _, d := range dots {
		if _, ok := lanes[d.Label]; !ok {
			labels = append(labels, d.Label)
		}
		lanes[d.Label] = append(lanes[d.Label], d)
		all = append(all, d.After201)
		slowest = max(slowest, d.After201)
		if d.After201 < TimelineEarliest || d.After201 > TimelineLatest {
			outside++
		}
	}
	sort.Strings(labels)
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	median := all[len(all)/2]
	if len(all)%2 == 0 {
		median = (all[len(all)/2-1] + all[len(all)/2]) / 2
	}

	// The axis runs from 0 to 2 s, or to the slowest rounded up to the
	// next half second, at most 10 s; later dots sit at its end.
	end := 2 * time.Second
	if slowest > end {
		end = min(((slowest+499*time.Millisecond)/(500*time.Millisecond))*500*time.Millisecond, 10*time.Second)
	}
	const (
		width, left, right, top = 800.0, 150.0, 16.0, 24.0
		laneH, axisH            = 26.0, 30.0
	)
	plot := width - left - right
	x := func(d time.Duration) float64 {
		d = min(max(d, 0), end)
		return left + plot*float64(d)/float64(end)
	}
	height := top + laneH*float64(len(labels)) + axisH
	var b strings.Builder
	esc := html.EscapeString
	fmt.Fprintf(&b, `<svg class="timeline" viewBox="0 0 %.0f %.0f" role="img" aria-label="%s" xmlns="http://www.w3.org/2000/svg">`,
		width, height, esc(tr(lang, "timeline.title")))
	bottom := top + laneH*float64(len(labels))
	fmt.Fprintf(&b, `<rect class="window" x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>%s</title></rect>`,
		x(TimelineEarliest), top, x(TimelineLatest)-x(TimelineEarliest), bottom-top, esc(tr(lang, "timeline.window")))
	fmt.Fprintf(&b, `<line class="mark" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"><title>%s</title></line>`,
		x(TimelineMark), top-10, x(TimelineMark), bottom, esc(tr(lang, "timeline.mark")))
	fmt.Fprintf(&b, `<text class="mark-label" x="%.1f" y="%.1f">500 ms</text>`, x(TimelineMark)+3, top-12)
	step := 250 * time.Millisecond
	if end > 4*time.Second {
		step = time.Second
	}
	for t := time.Duration(0); t <= end; t += step {
		fmt.Fprintf(&b, `<line class="tick" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, x(t), bottom, x(t), bottom+4)
		if t%max(step, 500*time.Millisecond) == 0 {
			fmt.Fprintf(&b, `<text class="tick-label" x="%.1f" y="%.1f">%d</text>`, x(t), bottom+16, t.Milliseconds())
		}
	}
	fmt.Fprintf(&b, `<text class="axis-label" x="%.1f" y="%.1f">%s</text>`, width-right, bottom+28, esc(tr(lang, "timeline.axis")))
	for i, label := range labels {
		y := top + laneH*float64(i) + laneH/2
		fmt.Fprintf(&b, `<line class="lane" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, left, y, width-right, y)
		fmt.Fprintf(&b, `<text class="lane-label" x="%.1f" y="%.1f">%s (%d)</text>`, left-8, y+4, esc(Clip(label, 20)), len(lanes[label]))
		for j, d := range lanes[label] {
			class := "in"
			if d.After201 < TimelineEarliest || d.After201 > TimelineLatest {
				class = "out"
			}
			jitter := float64(j%3-1) * 5
			fmt.Fprintf(&b, `<circle class="%s" cx="%.1f" cy="%.1f" r="4"><title>%s: %s ms, %s</title></circle>`,
				class, x(d.After201), y+jitter, esc(d.Label), formatMS(d.After201), esc(d.scenario))
		}
	}
	b.WriteString(`</svg>`)
	summary := tr(lang, "timeline.summary", len(all), median.Milliseconds(), slowest.Milliseconds(), outside)
	return template.HTML(b.String()), summary
}

// formatMS writes a delay in whole milliseconds, with one decimal below
// 10 ms.
func formatMS(d time.Duration) string {
	if d < 10*time.Millisecond {
		return fmt.Sprintf("%.1f", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprint(d.Milliseconds())
}
