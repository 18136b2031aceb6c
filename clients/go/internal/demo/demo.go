// Package demo is the scenario behind cmd/maka-demo: a scripted turn streamed to its end on the
// kernel, and a PTY run typed into under a controller lease on the resource service.
package demo

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	commonv1 "github.com/maka-runtime/maka-runtime/clients/go/gen/maka/common/v1"
	kernelv1 "github.com/maka-runtime/maka-runtime/clients/go/gen/maka/kernel/v1"
	resourcev1 "github.com/maka-runtime/maka-runtime/clients/go/gen/maka/resource/v1"
	"github.com/maka-runtime/maka-runtime/clients/go/maka"
)

// Options configures the scenario.
type Options struct {
	// Workspace is the session's workspace root (absolute); empty means the temp directory.
	Workspace string
	// Script is the turn text, e.g. "/script say hello; tool bash ls; say done".
	Script string
	// Session is the resource session id the PTY run belongs to.
	Session string
	// Input is the line typed into the PTY run (without the carriage return).
	Input string
}

// Run performs the scenario, reporting each step on out. It fails on the first step that does
// not behave as documented; the PTY run is stopped in every case.
func Run(ctx context.Context, client *maka.Client, opts Options, out io.Writer) (err error) {
	if opts.Workspace == "" {
		opts.Workspace = os.TempDir()
	}
	created, err := client.Kernel.CreateSession(ctx, &kernelv1.CreateSessionRequest{
		WorkspaceRoot: opts.Workspace, Name: "maka-demo",
	})
	if err != nil {
		return fmt.Errorf("create session: %w", err)
	}
	sessionID := created.GetSession().GetId()
	fmt.Fprintf(out, "session %s\n", sessionID)

	var previous int64
	turn, err := client.StreamTurn(ctx, &kernelv1.StartTurnRequest{SessionId: sessionID, Text: opts.Script},
		func(event *kernelv1.SessionEvent) error {
			if event.GetSeq() <= previous {
				return fmt.Errorf("event seq %d after %d", event.GetSeq(), previous)
			}
			previous = event.GetSeq()
			fmt.Fprintf(out, "  seq %-3d %s\n", event.GetSeq(), describe(event))
			return nil
		})
	if err != nil {
		return fmt.Errorf("turn: %w", err)
	}
	fmt.Fprintf(out, "turn %s ended %v: %q\n", turn.TurnID, turn.Status, turn.Text())

	started, err := client.Resource.StartBackground(ctx, &resourcev1.StartBackgroundRequest{
		SessionId: opts.Session,
		Command:   `while IFS= read -r line; do echo "got:$line"; done`,
		Pty:       true,
	})
	if err != nil {
		return fmt.Errorf("start PTY run: %w", err)
	}
	ref := started.GetRun().GetRef()
	fmt.Fprintf(out, "run %s %v\n", ref, started.GetRun().GetStatus())
	defer func() {
		// Stop the run even when the caller's context has run out.
		stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		stop, stopErr := client.Resource.StopRun(stopCtx, &resourcev1.StopRunRequest{SessionId: opts.Session, Ref: ref})
		if stopErr != nil {
			if err == nil {
				err = fmt.Errorf("stop run: %w", stopErr)
			}
			return
		}
		fmt.Fprintf(out, "run stopped: %v (exit %d)\n", stop.GetRun().GetStatus(), stop.GetRun().GetExitCode())
	}()

	conn, err := client.OpenConnection(ctx, "maka-demo")
	if err != nil {
		return fmt.Errorf("open connection: %w", err)
	}
	defer conn.Close()
	lease, acquired, err := client.AcquireController(ctx, opts.Session, ref, "maka-demo", conn)
	if err != nil {
		return fmt.Errorf("acquire controller: %w", err)
	}
	fmt.Fprintf(out, "controller %s on connection %s, next sequence %d\n", lease.ID, conn.ID, lease.NextSequence())

	first, err := lease.Send(ctx, opts.Input+"\r")
	if err != nil {
		return fmt.Errorf("send input: %w", err)
	}
	fmt.Fprintf(out, "control %d: %d bytes\n", first.GetSequence(), first.GetInputBytes())
	want := "got:" + opts.Input
	screen, err := client.WaitForScreen(ctx, opts.Session, ref, acquired.GetOutputSequence(), maka.ScreenContains(want))
	if err != nil {
		return fmt.Errorf("wait for %q: %w", want, err)
	}
	lines := screen.GetLines()
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	fmt.Fprintf(out, "screen:\n  %s\n", strings.Join(lines, "\n  "))

	again, err := lease.Retry(ctx)
	if err != nil {
		return fmt.Errorf("retry control %d: %w", first.GetSequence(), err)
	}
	if !proto.Equal(first, again) {
		return fmt.Errorf("retry of control %d answered %v, not %v", first.GetSequence(), again, first)
	}
	fmt.Fprintf(out, "retry of control %d: identical result\n", again.GetSequence())

	_, _, err = client.AcquireController(ctx, opts.Session, ref, "maka-demo-second", nil)
	info := maka.ErrorInfo(err)
	if status.Code(err) != codes.Aborted || !maka.HasReason(err, commonv1.ErrorReason_ERROR_REASON_OPERATION_CONFLICT) {
		return fmt.Errorf("second controller: got %v, want ABORTED/OPERATION_CONFLICT", err)
	}
	fmt.Fprintf(out, "second controller: %v %s\n", status.Code(err), info.GetReason())
	return nil
}

func describe(event *kernelv1.SessionEvent) string {
	switch e := event.GetEvent().(type) {
	case *kernelv1.SessionEvent_User:
		return "user " + e.User.GetText()
	case *kernelv1.SessionEvent_TextDelta:
		return fmt.Sprintf("text_delta %q", e.TextDelta.GetText())
	case *kernelv1.SessionEvent_ToolCall:
		return fmt.Sprintf("tool_call %s %s", e.ToolCall.GetName(), e.ToolCall.GetInput())
	case *kernelv1.SessionEvent_ToolOutput:
		return fmt.Sprintf("tool_output %q", e.ToolOutput.GetText())
	case *kernelv1.SessionEvent_ToolResult:
		return fmt.Sprintf("tool_result %q", e.ToolResult.GetOutput())
	case *kernelv1.SessionEvent_TurnState:
		return fmt.Sprintf("turn_state %v", e.TurnState.GetStatus())
	case *kernelv1.SessionEvent_Complete:
		return "complete " + e.Complete.GetStopReason()
	case *kernelv1.SessionEvent_Error:
		return "error " + e.Error.GetMessage()
	}
	return fmt.Sprintf("%T", event.GetEvent())
}
