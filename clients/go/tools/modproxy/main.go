// Command modproxy publishes a module directory at a version into a file-system GOPROXY, the
// layout `go mod download` reads ($GOPROXY/<escaped module path>/@v/list, <v>.info, <v>.mod,
// <v>.zip), so that a program elsewhere can require the module by its path and version with
// GOPROXY=file://DIR,https://proxy.golang.org — no replace directive, no checkout. The zip is
// made by golang.org/x/mod/zip (the go command's own rules: nested modules, vendor and VCS
// directories are left out, sizes and paths are checked).
//
//	go run . -dir ../.. -version v0.1.0 -out /tmp/goproxy
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

func main() {
	dir := flag.String("dir", ".", "the module's directory (holding its go.mod)")
	version := flag.String("version", "", "the version to publish it as, e.g. v0.1.0")
	out := flag.String("out", "", "the GOPROXY directory to write into")
	flag.Parse()
	if err := publish(*dir, *version, *out); err != nil {
		fmt.Fprintln(os.Stderr, "modproxy:", err)
		os.Exit(1)
	}
}

func publish(dir, version, out string) error {
	if out == "" {
		return fmt.Errorf("-out is required")
	}
	goMod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return err
	}
	path := modfile.ModulePath(goMod)
	mod := module.Version{Path: path, Version: version}
	if err := module.Check(path, version); err != nil {
		return err
	}
	escaped, err := module.EscapePath(path)
	if err != nil {
		return err
	}
	escapedVersion, err := module.EscapeVersion(version)
	if err != nil {
		return err
	}
	at := filepath.Join(out, filepath.FromSlash(escaped), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		return err
	}
	archive, err := os.Create(filepath.Join(at, escapedVersion+".zip"))
	if err != nil {
		return err
	}
	if err := modzip.CreateFromDir(archive, mod, dir); err != nil {
		archive.Close()
		return err
	}
	if err := archive.Close(); err != nil {
		return err
	}
	info, err := json.Marshal(map[string]string{
		"Version": version, "Time": time.Now().UTC().Format(time.RFC3339)})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(at, escapedVersion+".info"), info, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(at, escapedVersion+".mod"), goMod, 0o644); err != nil {
		return err
	}
	return addToList(filepath.Join(at, "list"), version)
}

// addToList records version in the proxy's version list (one version a line).
func addToList(list, version string) error {
	data, err := os.ReadFile(list)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	versions := strings.Fields(string(data))
	if !slices.Contains(versions, version) {
		versions = append(versions, version)
	}
	return os.WriteFile(list, []byte(strings.Join(versions, "\n")+"\n"), 0o644)
}
