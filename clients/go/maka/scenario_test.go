package maka_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	commonv1 "github.com/maka-runtime/maka-runtime/clients/go/gen/maka/common/v1"
	kernelv1 "github.com/maka-runtime/maka-runtime/clients/go/gen/maka/kernel/v1"
	resourcev1 "github.com/maka-runtime/maka-runtime/clients/go/gen/maka/resource/v1"
	"github.com/maka-runtime/maka-runtime/clients/go/internal/servicetest"
	"github.com/maka-runtime/maka-runtime/clients/go/maka"
)

// startBoth starts the resource and kernel services on one data directory and dials them.
func startBoth(t *testing.T) *maka.Client {
	t.Helper()
	dataDir := t.TempDir()
	resourceAddr := servicetest.Start(t, "maka_runtime.resource.server", dataDir, "--standalone")
	kernelAddr := servicetest.Start(t, "maka_runtime.kernel.server", dataDir, "--resource-address", resourceAddr, "--default-backend", "scripted")
	client, err := maka.Dial(kernelAddr, resourceAddr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	return client
}

func TestScriptedTurnStreamsInSeqOrderToCompletion(t *testing.T) {
	client := startBoth(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	created, err := client.Kernel.CreateSession(ctx, &kernelv1.CreateSessionRequest{
		WorkspaceRoot: t.TempDir(), Name: "go-turn",
	})
	if err != nil {
		t.Fatal(err)
	}
	sessionID := created.GetSession().GetId()

	var seen []int64
	turn, err := client.StreamTurn(ctx, &kernelv1.StartTurnRequest{
		SessionId: sessionID, TurnId: "turn-1", Text: "/script say hello; tool bash ls; say done",
	}, func(event *kernelv1.SessionEvent) error {
		seen = append(seen, event.GetSeq())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != len(turn.Events) || len(seen) == 0 {
		t.Fatalf("callback saw %d events, result has %d", len(seen), len(turn.Events))
	}
	for i, event := range turn.Events {
		if event.GetTurnId() != "turn-1" {
			t.Errorf("event %d belongs to turn %q", event.GetSeq(), event.GetTurnId())
		}
		if i > 0 && event.GetSeq() <= turn.Events[i-1].GetSeq() {
			t.Fatalf("seq %d after %d: events out of order", event.GetSeq(), turn.Events[i-1].GetSeq())
		}
	}
	last := turn.Events[len(turn.Events)-1]
	if last.GetTurnState().GetStatus() != kernelv1.TurnStatus_TURN_STATUS_COMPLETED {
		t.Fatalf("last event is %v, want turn_state completed", last)
	}
	if turn.Status != kernelv1.TurnStatus_TURN_STATUS_COMPLETED || turn.LastSeq != last.GetSeq() {
		t.Fatalf("result status %v last seq %d", turn.Status, turn.LastSeq)
	}
	if text := turn.Text(); !strings.Contains(text, "hello") || !strings.Contains(text, "done") ||
		strings.Index(text, "hello") > strings.Index(text, "done") {
		t.Fatalf("text %q, want hello then done", text)
	}
	var call *kernelv1.ToolCall
	var result *kernelv1.ToolResult
	for _, event := range turn.Events {
		if c := event.GetToolCall(); c != nil {
			call = c
		}
		if r := event.GetToolResult(); r != nil {
			result = r
		}
	}
	if call.GetName() != "bash" || call.GetInput() != "ls" || result.GetToolCallId() != call.GetToolCallId() {
		t.Fatalf("tool call %v, result %v", call, result)
	}

	// What was streamed is exactly what the log holds under the same seqs.
	stored, err := client.Kernel.ReadMessages(ctx, &kernelv1.ReadMessagesRequest{SessionId: sessionID})
	if err != nil {
		t.Fatal(err)
	}
	bySeq := map[int64]*kernelv1.SessionEvent{}
	for _, event := range stored.GetEvents() {
		bySeq[event.GetSeq()] = event
	}
	for _, event := range turn.Events {
		if !proto.Equal(bySeq[event.GetSeq()], event) {
			t.Fatalf("streamed %v, stored %v", event, bySeq[event.GetSeq()])
		}
	}
}

func TestPtyControllerLeaseFromGo(t *testing.T) {
	client := startBoth(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	const session = "go-pty"

	started, err := client.Resource.StartBackground(ctx, &resourcev1.StartBackgroundRequest{
		SessionId: session,
		Command:   `while IFS= read -r line; do echo "got:$line"; done`,
		Pty:       true,
		Size:      &resourcev1.TerminalSize{Cols: 80, Rows: 24},
	})
	if err != nil {
		t.Fatal(err)
	}
	ref := started.GetRun().GetRef()
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			stopCtx, stopCancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer stopCancel()
			_, _ = client.Resource.StopRun(stopCtx, &resourcev1.StopRunRequest{SessionId: session, Ref: ref})
		}
	})

	conn, err := client.OpenConnection(ctx, "go-test")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	lease, acquired, err := client.AcquireController(ctx, session, ref, "go-controller", conn)
	if err != nil {
		t.Fatal(err)
	}
	if lease.NextSequence() != 1 {
		t.Fatalf("next sequence %d, want 1", lease.NextSequence())
	}

	first, err := lease.Send(ctx, "hello\r")
	if err != nil {
		t.Fatal(err)
	}
	if first.GetSequence() != 1 || first.GetInputBytes() != int64(len("hello\r")) || lease.NextSequence() != 2 {
		t.Fatalf("control %v, next %d", first, lease.NextSequence())
	}
	screen, err := client.WaitForScreen(ctx, session, ref, acquired.GetOutputSequence(), maka.ScreenContains("got:hello"))
	if err != nil {
		t.Fatalf("waiting for the echo: %v (screen %q)", err, maka.ScreenText(screen))
	}

	// An exact retry of sequence 1 returns the identical result and types nothing again.
	again, err := lease.Retry(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(first, again) || lease.NextSequence() != 2 {
		t.Fatalf("retry answered %v, first answer was %v", again, first)
	}

	// A second controller is refused while the lease is held.
	_, _, err = client.AcquireController(ctx, session, ref, "intruder", nil)
	if status.Code(err) != codes.Aborted || !maka.HasReason(err, commonv1.ErrorReason_ERROR_REASON_OPERATION_CONFLICT) {
		t.Fatalf("second controller: %v (ErrorInfo %v), want ABORTED/OPERATION_CONFLICT", err, maka.ErrorInfo(err))
	}

	// Bookkeeping carries on: the next control is sequence 2.
	second, err := lease.Send(ctx, "again\r")
	if err != nil || second.GetSequence() != 2 {
		t.Fatalf("second control %v: %v", second, err)
	}
	screen, err = client.WaitForScreen(ctx, session, ref, 0, maka.ScreenContains("got:again"))
	if err != nil {
		t.Fatalf("waiting for the second echo: %v", err)
	}
	if n := strings.Count(maka.ScreenText(screen), "got:hello"); n != 1 {
		t.Fatalf("got:hello appears %d times: the retry typed again\n%s", n, maka.ScreenText(screen))
	}

	stop, err := client.Resource.StopRun(ctx, &resourcev1.StopRunRequest{SessionId: session, Ref: ref})
	if err != nil {
		t.Fatal(err)
	}
	stopped = true
	if stop.GetRun().GetStatus() != resourcev1.RunStatus_RUN_STATUS_CANCELLED {
		t.Fatalf("stopped run is %v", stop.GetRun().GetStatus())
	}
	released, err := lease.Release(ctx)
	if err != nil || released {
		t.Fatalf("release after the run ended: released=%v err=%v, want false", released, err)
	}
	_, err = lease.Send(ctx, "late\r")
	if err == nil || errors.Is(err, maka.ErrControlPending) {
		t.Fatalf("control after the run ended: %v", err)
	}
}
