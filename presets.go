package firmakit

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
)

// The presets besides the bundled profile, each a profile file like any
// other: "profile show NAME" prints it, and a copy of it loads the same.
//
//go:embed profiles/*.yaml
var presetFiles embed.FS

// Presets returns the names of the profiles firmakit carries, the bundled
// one first.
func Presets() []string {
	names := []string{"bundled"}
	entries, _ := fs.ReadDir(presetFiles, "profiles")
	var rest []string
	for _, e := range entries {
		rest = append(rest, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(rest)
	return append(names, rest...)
}

// PresetYAML returns the text of a preset by name, and false when there is
// no such preset.
func PresetYAML(name string) ([]byte, bool) {
	if name == "bundled" {
		return BundledProfileYAML(), true
	}
	if name == "" || strings.ContainsAny(name, "/\\.") {
		return nil, false
	}
	b, err := presetFiles.ReadFile("profiles/" + name + ".yaml")
	if err != nil {
		return nil, false
	}
	return b, true
}

// Preset returns a fresh copy of a preset by name. It returns an error
// naming the presets when there is no such one.
func Preset(name string) (*Profile, error) {
	b, ok := PresetYAML(name)
	if !ok {
		return nil, fmt.Errorf("unknown profile preset %q (presets: %s)", name, strings.Join(Presets(), ", "))
	}
	if name == "bundled" {
		return BundledProfile(), nil
	}
	p, err := ParseProfile(b)
	if err != nil {
		// The presets are tested; reaching this is a programming error.
		panic("firmakit: preset " + name + " is invalid: " + err.Error())
	}
	return p, nil
}

// ResolveProfile returns the profile a --profile value names: a preset
// by name, or else a profile file by path. The error says which presets
// exist when the value is neither.
func ResolveProfile(nameOrFile string) (*Profile, error) {
	if _, ok := PresetYAML(nameOrFile); ok {
		return Preset(nameOrFile)
	}
	if _, err := os.Stat(nameOrFile); err != nil && errors.Is(err, fs.ErrNotExist) && !strings.ContainsAny(nameOrFile, "/\\.") {
		return nil, fmt.Errorf("unknown profile %q: not a preset (%s) nor a file", nameOrFile, strings.Join(Presets(), ", "))
	}
	return LoadProfile(nameOrFile)
}
