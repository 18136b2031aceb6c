// Command maka-demo drives both services through one scenario: it creates a session, streams
// a scripted turn to its end, starts a background PTY run, takes its controller lease, types a
// line (control sequence 1), waits for the echo on the screen, retries sequence 1 exactly
// (identical answer), shows that a second controller is refused (ABORTED/OPERATION_CONFLICT)
// and stops the run.
//
//	go run ./cmd/maka-demo -kernel 127.0.0.1:50051 -resource 127.0.0.1:50052
//
// Flags:
//
//	-kernel ADDR      kernel address (default 127.0.0.1:50051)
//	-resource ADDR    resource address (default 127.0.0.1:50052)
//	-workspace DIR    the session's workspace root (default: the temp directory)
//	-script TEXT      the turn text (default "/script say hello; tool bash ls; say done")
//	-session ID       the resource session id of the PTY run (default "maka-demo")
//	-input TEXT       the line typed into the PTY run (default "hello")
//	-timeout DURATION deadline for the whole scenario (default 30s)
//
// It exits 0 when every step behaved as documented, 1 otherwise.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/maka-runtime/maka-runtime/clients/go/internal/demo"
	"github.com/maka-runtime/maka-runtime/clients/go/maka"
)

func main() {
	kernelAddr := flag.String("kernel", "127.0.0.1:50051", "kernel address")
	resourceAddr := flag.String("resource", "127.0.0.1:50052", "resource address")
	var opts demo.Options
	flag.StringVar(&opts.Workspace, "workspace", os.TempDir(), "the session's workspace root")
	flag.StringVar(&opts.Script, "script", "/script say hello; tool bash ls; say done", "the turn text")
	flag.StringVar(&opts.Session, "session", "maka-demo", "the resource session id of the PTY run")
	flag.StringVar(&opts.Input, "input", "hello", "the line typed into the PTY run")
	timeout := flag.Duration("timeout", 30*time.Second, "deadline for the whole scenario")
	flag.Parse()

	client, err := maka.Dial(*kernelAddr, *resourceAddr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "maka-demo:", err)
		os.Exit(1)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := demo.Run(ctx, client, opts, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "maka-demo:", err)
		if info := maka.ErrorInfo(err); info != nil {
			fmt.Fprintf(os.Stderr, "maka-demo: %s %s %v\n", info.GetDomain(), info.GetReason(), info.GetMetadata())
		}
		cancel()
		client.Close()
		os.Exit(1)
	}
}
