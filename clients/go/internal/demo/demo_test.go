package demo_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/maka-runtime/maka-runtime/clients/go/internal/demo"
	"github.com/maka-runtime/maka-runtime/clients/go/internal/servicetest"
	"github.com/maka-runtime/maka-runtime/clients/go/maka"
)

func TestDemoScenarioRunsAgainstRealServices(t *testing.T) {
	dataDir := t.TempDir()
	resourceAddr := servicetest.Start(t, "maka_runtime.resource.server", dataDir, "--standalone")
	kernelAddr := servicetest.Start(t, "maka_runtime.kernel.server", dataDir, "--resource-address", resourceAddr, "--default-backend", "scripted")
	client, err := maka.Dial(kernelAddr, resourceAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	var out bytes.Buffer
	err = demo.Run(ctx, client, demo.Options{
		Workspace: t.TempDir(),
		Script:    "/script say hello; tool bash ls; say done",
		Session:   "demo-test",
		Input:     "ping",
	}, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{
		"TURN_STATUS_COMPLETED", "got:ping", "retry of control 1: identical result",
		"second controller: Aborted OPERATION_CONFLICT", "run stopped: RUN_STATUS_CANCELLED",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
