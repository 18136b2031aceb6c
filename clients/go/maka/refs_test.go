package maka_test

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	resourcev1 "github.com/maka-runtime/maka-runtime/clients/go/gen/maka/resource/v1"
	"github.com/maka-runtime/maka-runtime/clients/go/internal/servicetest"
	"github.com/maka-runtime/maka-runtime/clients/go/maka"
)

// A ref names its run: the helpers work with an empty session id, and another session's id
// is NOT_FOUND.
func TestRunHelpersTakeARefWithoutItsSession(t *testing.T) {
	resourceAddr := servicetest.Start(t, "maka_runtime.resource.server", t.TempDir(), "--standalone")
	client, err := maka.Dial(resourceAddr, resourceAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	started, err := client.Resource.StartBackground(ctx, &resourcev1.StartBackgroundRequest{
		SessionId: "go-refs", Command: "cat", Pty: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	ref := started.GetRun().GetRef()
	got, err := client.Resource.GetRun(ctx, &resourcev1.GetRunRequest{Ref: ref})
	if err != nil || got.GetRun().GetSessionId() != "go-refs" {
		t.Fatalf("GetRun by ref: %v, %v", got, err)
	}
	lease, acquired, err := client.AcquireController(ctx, "", ref, "go", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lease.Send(ctx, "by-ref\r"); err != nil {
		t.Fatal(err)
	}
	if _, err := client.WaitForScreen(ctx, "", ref, acquired.GetOutputSequence(),
		maka.ScreenContains("by-ref")); err != nil {
		t.Fatal(err)
	}
	if released, err := lease.Release(ctx); err != nil || !released {
		t.Fatalf("Release: %v, %v", released, err)
	}
	_, err = client.Resource.GetRun(ctx, &resourcev1.GetRunRequest{SessionId: "go-other", Ref: ref})
	if status.Code(err) != codes.NotFound || maka.ErrorInfo(err).GetMetadata()["field"] != "ref" {
		t.Fatalf("another session's id: %v", err)
	}
	stopped, err := client.Resource.StopRun(ctx, &resourcev1.StopRunRequest{Ref: ref})
	if err != nil || stopped.GetRun().GetStatus() != resourcev1.RunStatus_RUN_STATUS_CANCELLED {
		t.Fatalf("StopRun by ref: %v, %v", stopped, err)
	}
}
