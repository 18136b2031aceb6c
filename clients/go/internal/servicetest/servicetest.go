// Package servicetest starts the real Python services for Go tests.
//
// The interpreter is $MAKA_PYTHON, or the repository's .venv. Each service listens on
// 127.0.0.1:0; the harness waits for its "listening on HOST:PORT" log line.
package servicetest

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"syscall"
	"testing"
	"time"
)

var listening = regexp.MustCompile(`maka-\w+ listening on (\S+:\d+)`)

// Python is the interpreter that has the services installed.
func Python(t *testing.T) string {
	if python := os.Getenv("MAKA_PYTHON"); python != "" {
		return python
	}
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "..", "..")
	python := filepath.Join(root, ".venv", "bin", "python")
	if _, err := os.Stat(python); err != nil {
		t.Skipf("no Python environment with the services (set MAKA_PYTHON): %v", err)
	}
	return python
}

// Start runs `python -m module --listen 127.0.0.1:0 --data-dir DIR args...` and returns its
// address; the process is stopped with SIGTERM when the test ends. MAKA_DATA_DIR is set to
// DIR for the test, so a client dialled without a token finds the local credential the
// services create there.
func Start(t *testing.T, module, dataDir string, args ...string) string {
	t.Helper()
	t.Setenv("MAKA_DATA_DIR", dataDir)
	argv := append([]string{"-m", module, "--listen", "127.0.0.1:0", "--data-dir", dataDir}, args...)
	cmd := exec.Command(Python(t), argv...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	address := make(chan string, 1)
	go func() {
		scanner := bufio.NewScanner(stderr)
		sent := false
		for scanner.Scan() {
			if m := listening.FindStringSubmatch(scanner.Text()); m != nil && !sent {
				address <- m[1]
				sent = true
			}
		}
		close(address)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	select {
	case addr, ok := <-address:
		if !ok {
			t.Fatalf("%s exited before listening", module)
		}
		return addr
	case <-ctx.Done():
		t.Fatalf("%s did not start listening", module)
	}
	return ""
}
